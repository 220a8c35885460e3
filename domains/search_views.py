"""`/search/?q=`: the results page, or only its results fragment for an htmx request."""

from __future__ import annotations

import logging
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from domains.search import fallback_availability, metasearch_cached
from storefront.gateway import GatewayError, RateLimited, Unauthorized, Unavailable, ValidationRejected

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
    context: dict[str, Any] = {"form": form, "query": query, "state": "blank"}
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
    listed = answer.listed
    shown, more = listed[:VISIBLE_RESULTS], listed[VISIBLE_RESULTS:]
    return {
        "state": "results",
        "answer": answer,
        "hero": answer.hero,
        "shown": shown,
        "more": more,
        "more_count": answer.results_hidden or len(more),
        "ai_suggestions": answer.ai_suggestions,
    }


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
    return {"state": "fallback", "rows": rows, "typed_domain": typed if "." in typed else ""}
