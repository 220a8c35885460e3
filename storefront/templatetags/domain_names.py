"""Domain names as people read them: `{{ name|unicode_name }}` (café.com) and `{{ name|both_forms }}`
(café.com (xn--caf-dma.com)), for the A-labels the store keeps (storefront/site/domain_names.py)."""

from __future__ import annotations

from django import template

from storefront.site.domain_names import domain_both_forms, domain_to_unicode
from storefront.site.lookalikes import lookalike_kind

register = template.Library()


@register.filter
def unicode_name(name: str) -> str:
    return domain_to_unicode(str(name))


@register.filter
def both_forms(name: str) -> str:
    return domain_both_forms(str(name))


@register.filter
def ascii_form(name: str) -> str:
    """The A-label when it differs from what `unicode_name` shows, else "" (for a second, quieter line)."""
    name = str(name)
    return name if domain_to_unicode(name) != name else ""


@register.filter
def lookalike(name: str) -> str:
    """ "mixed" or "latin" when the name can be mistaken for another (storefront/site/lookalikes.py), else ""."""
    return lookalike_kind(str(name))
