"""The admin index's dashboard (domains/dashboard.py), with every open staff alert (domains/alerts.py)."""

from typing import Any

from django import template
from django.conf import settings

from domains.dashboard import dashboard

register = template.Library()


@register.inclusion_tag("admin/_dashboard.html")
def staff_dashboard() -> dict[str, Any]:
    return {"dashboard": dashboard(), "admins_set": bool(settings.ADMINS)}
