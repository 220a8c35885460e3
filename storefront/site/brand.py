"""The reseller's brand as pages and emails use it: name, logo, colour, legal identity and support contact.

Everything is read from settings at call time (tests and `override_settings` see the current values). The colour
is checked at start-up (storefront/checks.py) with the same contrast arithmetic as here.
"""

from __future__ import annotations

import hashlib
import re
from email.utils import formataddr, parseaddr
from typing import Any
from urllib.parse import urlparse

from django.conf import settings
from django.templatetags.static import static

HEX_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
# WCAG 2 AA for normal text: the brand colour is link text on white and the background of white button text.
MIN_CONTRAST = 4.5
# The hover shade of links and buttons: the brand colour darkened by this factor (today's #2446c7 → #1a349a is
# about 0.75).
_DARKEN = 0.75


def logo_url() -> str:
    """STORE_LOGO_URL as the page must write it: an absolute URL as given, else a path under static/."""
    value = settings.STORE_LOGO_URL.strip()
    if not value:
        return ""
    if urlparse(value).scheme in ("http", "https") or value.startswith("/"):
        return value
    return static(value)


def from_email() -> str:
    """DEFAULT_FROM_EMAIL, with the store's name as the display name unless it names one itself."""
    name, address = parseaddr(settings.DEFAULT_FROM_EMAIL)
    return settings.DEFAULT_FROM_EMAIL if name else formataddr((settings.STORE_NAME, address))


def brand_context() -> dict[str, Any]:
    """What templates (pages through the context processor, emails passed it explicitly) know of the brand."""
    return {
        "store_name": settings.STORE_NAME,
        "store_logo_url": logo_url(),
        "store_legal_name": settings.STORE_LEGAL_NAME,
        "store_legal_address": settings.STORE_LEGAL_ADDRESS,
        "support_email": settings.SUPPORT_EMAIL,
        "support_url": settings.SUPPORT_URL,
        "brand_css_version": brand_css_version(),
    }


# --- Colour --------------------------------------------------------------------------------------------------


def _channels(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def relative_luminance(color: str) -> float:
    """WCAG 2's relative luminance of a #rrggbb colour."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in _channels(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_with_white(color: str) -> float:
    return 1.05 / (relative_luminance(color) + 0.05)


def darker(color: str) -> str:
    return "#" + "".join(f"{round(c * _DARKEN):02x}" for c in _channels(color))


DEFAULT_COLOR = "#2446c7"


def brand_color() -> str:
    """STORE_PRIMARY_COLOR when it is a #rrggbb colour, else the default blue (the staff dashboard's charts)."""
    color = settings.STORE_PRIMARY_COLOR.strip()
    return color.lower() if HEX_COLOR.match(color) else DEFAULT_COLOR


def brand_css() -> str:
    """The custom properties site.css reads, for STORE_PRIMARY_COLOR; empty when it is not set (site.css's own
    defaults apply)."""
    color = settings.STORE_PRIMARY_COLOR.strip()
    if not HEX_COLOR.match(color):
        return ""
    color = color.lower()
    return f":root {{ --brand: {color}; --brand-dark: {darker(color)}; }}\n"


def brand_css_version() -> str:
    """Changes with the colour, so the stylesheet's URL can be cached for long."""
    css = brand_css()
    return hashlib.sha256(css.encode()).hexdigest()[:12] if css else ""
