"""Serves /api/v1/ from the API's own URLconf (reseller_api/root_urls.py), so only a worker that is asked for the API
loads it.

Django loads a URLconf whole (the first resolve or reverse() walks every include), and the API's brings django-ninja
and pydantic, about 14 MB a web worker (docs/benchmarks.md, Memory) that only the reseller's staff systems ever use.
The root URLconf (storefront/urls.py) therefore leaves the API out, and a request under /api/v1/ names the API's
URLconf as its `urlconf`: Django's documented per-request replacement for ROOT_URLCONF ("How Django processes a
request"), used for resolving it, for every reverse() made while it is served, and for its error pages.

Nothing here imports the API: the URLconf is named by its dotted path, and Django imports it on the first such
request.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

API_PREFIX = "/api/v1/"
API_URLCONF = "reseller_api.root_urls"


class ApiUrlconfMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # path_info, as the resolver reads it: the path without a script prefix the site may be mounted under.
        if request.path_info.startswith(API_PREFIX):
            request.urlconf = API_URLCONF  # type: ignore[attr-defined]  # documented, but not in django-stubs
        return self.get_response(request)
