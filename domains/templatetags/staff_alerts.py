"""The admin index's banner of what staff must look at (domains/alerts.py)."""

from django import template

from domains.alerts import Alert, staff_alerts

register = template.Library()


@register.inclusion_tag("admin/_staff_alerts.html")
def staff_alert_banner() -> dict[str, list[Alert]]:
    return {"alerts": staff_alerts()}
