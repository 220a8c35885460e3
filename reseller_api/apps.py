from django.apps import AppConfig


class ResellerApiConfig(AppConfig):
    name = "reseller_api"
    # The admin's index lists the keys under this heading.
    verbose_name = "Staff API"
