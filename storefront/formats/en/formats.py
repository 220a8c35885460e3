# English dates as the storefront has always shown them ("Nov 22, 2026"); Django's own English format
# abbreviates with a full stop ("Nov. 22, 2026"). Other languages use Django's formats for that language.
DATE_FORMAT = "M j, Y"
