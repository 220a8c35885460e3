"""The DNS editor keeps no model of its own: records live at the provider, zones on the order (domains.Order)."""

from django.db import models  # noqa: F401
