from django import template
from django.utils.http import urlencode

register = template.Library()

_UNITS = ((86400, "day"), (3600, "hour"), (60, "minute"))


@register.filter
def ttl(seconds: int | str | None) -> str:
    """3600 → "1 hour"; odd values stay in seconds; no value is the zone default."""
    if seconds is None or seconds == "":
        return "Default"
    seconds = int(seconds)
    for size, unit in _UNITS:
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} s"


@register.filter
def fqdn(host: str, domain_name: str) -> str:
    """The full name a host stands for: `www` → `www.example.com`, `@` → `example.com`."""
    if host in ("", "@"):
        return domain_name
    return f"{host}.{domain_name}"


@register.filter
def record_query(record) -> str:
    """The query naming one listed record, for its change and delete links."""
    params = {"type": record.type, "host": record.host or "@", "value": record.value}
    if record.time_to_live is not None:
        params["ttl"] = record.time_to_live
    if record.priority is not None:
        params["priority"] = record.priority
    return urlencode(params)
