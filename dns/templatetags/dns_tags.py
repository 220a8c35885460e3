"""Template helpers of the DNS editor."""

from django import template
from django.utils.functional import Promise
from django.utils.http import urlencode
from django.utils.translation import gettext, ngettext, pgettext_lazy

register = template.Library()

_UNITS = (
    (86400, lambda n: ngettext("%(count)d day", "%(count)d days", n)),
    (3600, lambda n: ngettext("%(count)d hour", "%(count)d hours", n)),
    (60, lambda n: ngettext("%(count)d minute", "%(count)d minutes", n)),
)


@register.filter
def ttl(seconds: int | str | None) -> str:
    """3600 → "1 hour"; odd values stay in seconds; no value is the zone default."""
    if seconds is None or seconds == "":
        return gettext("Default")
    seconds = int(seconds)
    for size, words in _UNITS:
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return words(count) % {"count": count}
    return gettext("%(count)d s") % {"count": seconds}


# The provider's record statuses (only "Active" is documented); any other shows as the provider wrote it, which is
# better than hiding it.
_RECORD_STATUSES = {"Active": pgettext_lazy("DNS record status", "Active")}


@register.filter
def record_status(status: str) -> str | Promise:
    """A record's status in the customer's language: `{{ record.status|record_status }}`."""
    return _RECORD_STATUSES.get(status, status)


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
