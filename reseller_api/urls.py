"""/api/v1/'s URLs (reseller_api/root_urls.py includes them, for requests under /api/v1/ only), each marked as
allowed while staff act as a customer: the API never reads the session, so acting (a session state) changes nothing
here."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, URLResolver

from reseller_api.api import api
from storefront.requests.acting_rules import acting_allowed


def _allowed(patterns: list[Any]) -> list[Any]:
    marked: list[Any] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            marked.append(URLResolver(pattern.pattern, _allowed(pattern.url_patterns), pattern.default_kwargs))
        else:
            marked.append(
                URLPattern(pattern.pattern, acting_allowed(pattern.callback), pattern.default_args, pattern.name)
            )
    return marked


_patterns, _, _ = api.urls
app_name = "reseller_api"
urlpatterns = _allowed(_patterns)
