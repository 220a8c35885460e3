"""`/search/?q=`: the results page, or only its results fragment for an htmx request."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from django import forms
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.safestring import SafeString
from django.views.decorators.http import require_safe

from domains.search import fallback_availability, metasearch_cached
from storefront.gateway import (
    DomainResult,
    GatewayError,
    MetaSearchResult,
    RateLimited,
    Unauthorized,
    Unavailable,
    ValidationRejected,
)

logger = logging.getLogger(__name__)

# Rows of the results list shown before "Show N more" (MetaSearch counts the rest in `results_hidden`).
VISIBLE_RESULTS = 10

UNAUTHORIZED_MESSAGE = "Search is not available right now. Please try again later."
DOWN_MESSAGE = "Search is unavailable right now. Please try again in a moment."


class SearchForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=63,
        error_messages={"max_length": "A search can be at most 63 characters. Try a shorter name."},
    )


@require_safe
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    query = request.GET.get("q", "").strip()
    context: dict[str, Any] = {"form": form, "query": query, "state": "blank", "cart_add_url": reverse("cart_add")}
    if not form.is_valid():
        context.update(state="error", error=form.errors["q"][0])
    elif form.cleaned_data["q"]:
        context.update(_results(form.cleaned_data["q"]))

    fragment = request.htmx and not request.htmx.history_restore_request
    template = "domains/_search_results.html" if fragment else "domains/search.html"
    response = render(request, template, context)
    # The same URL answers a page or a fragment: caches must key on the header that tells them apart.
    patch_vary_headers(response, ("HX-Request",))
    return response


def _results(term: str) -> dict[str, Any]:
    try:
        answer = metasearch_cached(term)
    except ValidationRejected as err:
        return {"state": "rejected", "error": err.message}
    except Unauthorized as err:
        # Staff need to know the key was refused; the customer only that search is unavailable.
        logger.error("search: provider refused the storefront's key (%s)", err.status)
        return {"state": "error", "error": UNAUTHORIZED_MESSAGE}
    except RateLimited as err:
        return {"state": "error", "error": err.message}
    except Unavailable:
        return _fallback(term)
    except GatewayError as err:
        return {"state": "error", "error": err.message}

    if not answer.results:
        return {"state": "empty", "message": answer.message or "No domains found for that search."}
    listed = tuple(_row(result) for result in answer.listed)
    listing = Listing(
        hero=_row(answer.hero, featured=True) if answer.hero else None,
        shown=listed[:VISIBLE_RESULTS],
        more=listed[VISIBLE_RESULTS:],
        more_count=answer.results_hidden or len(listed[VISIBLE_RESULTS:]),
        ai_suggestions=tuple(_row(result) for result in answer.ai_suggestions),
    )
    return {"state": "results", "searched": answer.meta.search_term, "listing": _listing_html(listing)}


def _fallback(term: str) -> dict[str, Any]:
    try:
        rows = fallback_availability(term)
    except ValidationRejected as err:
        return {"state": "error", "error": err.message}
    except Unauthorized:
        return {"state": "error", "error": UNAUTHORIZED_MESSAGE}
    except GatewayError:
        return {"state": "error", "error": DOWN_MESSAGE}
    if not rows:
        return {"state": "error", "error": DOWN_MESSAGE}
    typed = term.strip().lower()
    listing = Listing(shown=tuple(_row(row, mine=row.domain_name == typed) for row in rows), title="Availability")
    return {"state": "fallback", "listing": _listing_html(listing)}


@dataclass(frozen=True)
class Row:
    """What one result row shows."""

    domain: str
    status: Literal["available", "premium", "taken"]
    summary: str  # the provider's ready-made price text; empty in the fallback
    free_first_year: bool
    mine: bool  # the exact domain the customer typed
    featured: bool = False


@dataclass(frozen=True)
class Listing:
    """Every row of one answer, in the blocks they are shown in. Nothing here depends on who is looking."""

    shown: tuple[Row, ...]
    hero: Row | None = None
    more: tuple[Row, ...] = ()
    more_count: int = 0
    ai_suggestions: tuple[Row, ...] = ()
    title: str = "More domains"


def _row(result: MetaSearchResult | DomainResult, *, mine: bool = False, featured: bool = False) -> Row:
    pricing = getattr(result, "pricing", None)
    if result.available:
        status = "available"
    elif result.premium:
        status = "premium"
    else:
        status = "taken"
    return Row(
        domain=result.domain_name,
        status=status,
        summary=pricing.summary if pricing else "",
        free_first_year=bool(pricing and pricing.is_free_first_year),
        mine=mine or getattr(result, "is_searched_exact", False),
        featured=featured,
    )


def _render_listing(listing: Listing) -> SafeString:
    return render_to_string("domains/_search_listing.html", {"listing": listing, "cart_add_url": reverse("cart_add")})


# Rendering ~30 rows through the template engine was most of a search's time. The listing's HTML depends only
# on the listing (the CSRF token sits outside it, once per page), so each distinct answer is rendered once per
# process and repeated searches reuse it. Not in DEBUG, so that template edits show at once.
_render_listing_cached = lru_cache(maxsize=256)(_render_listing)


def _listing_html(listing: Listing) -> SafeString:
    return _render_listing(listing) if settings.DEBUG else _render_listing_cached(listing)
