"""`{% support_link %}`: the words "contact support", a link to the support page or address when one is set
(SUPPORT_URL first, then SUPPORT_EMAIL), plain words otherwise."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def support_link(text: str = "") -> SafeString:
    context = {"text": text, "support_url": settings.SUPPORT_URL, "support_email": settings.SUPPORT_EMAIL}
    return SafeString(render_to_string("storefront/_support_link.html", context).strip())
