"""The main interface's search: availability, suggestions (both being phased out) and /domain-suggestions."""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, endpoint, plain
from sandbox.catalogue import (
    LABEL,
    Catalogue,
    add_years,
    domain_result,
    long_date,
    privacy_prices,
    term_prices,
)
from sandbox.variations import variations

REQUIRED = "The search term field is required."
INVALID = "The search term field format is invalid."
TOO_LONG = "The search term field must not be greater than 63 characters."
MAX_SUGGESTIONS_PER_TLD = 20


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


@endpoint(methods=("GET",), groups=("availability",), search=True)
def suggestions(request: HttpRequest, ctx: Context) -> JsonResponse:
    terms, problem = _terms(request)
    if problem:
        return plain(problem, 422)
    catalogue = Catalogue(ctx.partner, ctx.environment)
    tlds = catalogue.pick(_listed(request, "tld[]", "tld"))
    names = variations(terms[0])
    results = []
    for entry in tlds:
        lookups = catalogue.check([(name, entry) for name in names])
        # Only names that can be had come back; premium ones do too, flagged and not available.
        shown = [lookup for lookup in lookups if not lookup.taken][:MAX_SUGGESTIONS_PER_TLD]
        results += [domain_result(lookup) for lookup in shown]
    return JsonResponse({"results": results})


@endpoint(methods=("GET",), groups=("availability",), search=True)
def domain_suggestions(request: HttpRequest, ctx: Context) -> JsonResponse:
    terms, problem = _terms(request)
    if problem:
        return plain(problem, 422)
    term = terms[0]
    catalogue = Catalogue(ctx.partner, ctx.environment)
    tlds = catalogue.pick(_listed(request, "tlds[]", "tlds"))
    names = [term, *variations(term)]
    today = timezone.now().astimezone(dt.UTC)
    results = []
    for entry in tlds:
        lookups = catalogue.check([(name, entry) for name in names])
        for lookup in [lookup for lookup in lookups if lookup.available][:MAX_SUGGESTIONS_PER_TLD]:
            results.append(
                {
                    "product_category": "domain_registration",
                    "domain": lookup.domain_name,
                    "status": "available",
                    "pricing": {
                        "register": term_prices(entry),
                        "privacy": privacy_prices(entry),
                        "renew": float(entry.renew_price),
                        "slashed": float(entry.slashed_price or entry.register_price),
                    },
                    "type": "standard",
                    "renews_on": long_date(add_years(today, entry.min_term)),
                }
            )
    return JsonResponse({"results": results})
