"""The main interface's search: availability (being phased out in favour of MetaSearch)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from sandbox.api import Context, endpoint, plain
from sandbox.catalogue import LABEL, Catalogue, domain_result

REQUIRED = "The search term field is required."
INVALID = "The search term field format is invalid."
TOO_LONG = "The search term field must not be greater than 63 characters."


def _terms(request: HttpRequest) -> tuple[list[str], str]:
    """The search terms asked for (single or `search_term[]`), or an error message."""
    raw = request.GET.getlist("search_term[]") + request.GET.getlist("search_term")
    terms = [term.strip().lower() for term in raw if term.strip()]
    if not terms:
        return [], REQUIRED
    for term in terms:
        if len(term) > 63:
            return [], TOO_LONG
        if not LABEL.match(term):
            return [], INVALID
    return list(dict.fromkeys(terms)), ""


def _listed(request: HttpRequest, *names: str) -> list[str]:
    values: list[str] = []
    for name in names:
        values += request.GET.getlist(name)
    return values


@endpoint(methods=("GET",), groups=("availability",), search=True)
def availability(request: HttpRequest, ctx: Context) -> JsonResponse:
    terms, problem = _terms(request)
    if problem:
        return plain(problem, 422)
    catalogue = Catalogue(ctx.partner, ctx.environment)
    tlds = catalogue.pick(_listed(request, "tlds[]", "tlds"))
    lookups = catalogue.check([(term, entry) for term in terms for entry in tlds])
    return JsonResponse({"results": [domain_result(lookup) for lookup in lookups]})
