"""Support contact in templates.

`{% support_link %}` renders the words "contact support" as a link to the support page or address when one is set
(SUPPORT_URL first, then SUPPORT_EMAIL), plain words otherwise. `{{ message|support_linked }}` does the same for a
sentence written in Python (a message, a refusal, a status) that says "contact support": the words become the
link, in the page's language.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeData, SafeString
from django.utils.translation import gettext

register = template.Library()


@register.simple_tag
def support_link(text: str = "") -> SafeString:
    context = {"text": text, "support_url": settings.SUPPORT_URL, "support_email": settings.SUPPORT_EMAIL}
    return SafeString(render_to_string("storefront/_support_link.html", context).strip())


@register.filter
def support_linked(message: Any) -> SafeString:
    text = str(message)
    phrase = gettext("contact support")
    if settings.SUPPORT_URL or settings.SUPPORT_EMAIL:
        for words in (phrase, phrase[:1].upper() + phrase[1:]):
            if words in text:
                before, _, after = text.partition(words)
                # A message already marked safe keeps its markup; any other is escaped around the link.
                keep = SafeString if isinstance(message, SafeData) else str
                return format_html("{}{}{}", keep(before), support_link(words), keep(after))
    return conditional_escape(message)
