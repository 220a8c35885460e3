"""MetaSearch: one search with availability and prices, in render order (hero, results list, AI block)."""

from __future__ import annotations

import re
import time

from django.core.cache import cache
from django.http import HttpRequest, JsonResponse

from sandbox import faults
from sandbox.api import Context, endpoint
from sandbox.catalogue import LABEL, Catalogue, Lookup, pricing
from sandbox.variations import ai_names, variations

EMPTY = "search_term is required and must not be empty after sanitisation"
TOO_LONG = "search_term must be at most 63 characters"
NOT_FOUND = "No domains found for this search"
VISIBLE = 10
MAX_VARIATIONS = 15
MAX_AI = 5
AI_CACHE_SECONDS = 3600
_UNSAFE = re.compile(r"[^a-z0-9.-]")


class BadFlag(ValueError):
    pass


def _flag(request: HttpRequest, name: str) -> bool:
    value = request.GET.get(name, "").strip().lower()
    if value in ("", "false", "0"):
        return False
    if value in ("true", "1"):
        return True
    raise BadFlag(name)


def _think(*, ctx: Context, label: str) -> None:
    """AI suggestions are slow when the provider has not seen the name lately (8 to 17 s in its demo).

    The delay is the partner's `ai_latency_ms` fault (0 by default, so tests stay fast); a name asked again
    within the hour is a cache hit and answers at once.
    """
    fault = faults.active_for(ctx.partner, ("metasearch",))
    if fault is None or not fault.ai_latency_ms:
        return
    cache_key = f"sandbox:ai:{ctx.partner.pk}:{ctx.environment}:{label}"
    if cache.get(cache_key):
        return
    time.sleep(fault.ai_latency_ms / 1000)
    cache.set(cache_key, True, timeout=AI_CACHE_SECONDS)


def _row(lookup: Lookup, kind: str, exact: bool = False) -> dict:
    return {
        "domain_name": lookup.domain_name,
        "sld": lookup.sld,
        "tld": lookup.tld.tld,
        "available": lookup.available,
        "type": kind,
        "is_searched_exact": exact,
        "pricing": pricing(lookup),
    }


@endpoint(methods=("GET",), groups=("metasearch",), metasearch=True)
def search(request: HttpRequest, ctx: Context) -> JsonResponse:
    term = _UNSAFE.sub("", request.GET.get("search_term", "").lower())
    if not term:
        return JsonResponse({"error": EMPTY}, status=400)
    if len(term) > 63:
        return JsonResponse({"error": TOO_LONG}, status=400)
    try:
        autosuggest, aisuggest = _flag(request, "autosuggest"), _flag(request, "aisuggest")
    except BadFlag as err:
        return JsonResponse({"error": f"{err} must be a boolean"}, status=400)

    parts = [part for part in term.split(".") if part]
    label = parts[0] if parts else ""
    typed_tld = ".".join(parts[1:]) or None
    meta = {"search_term": term, "typed_tld": typed_tld, "autosuggest": autosuggest, "aisuggest": aisuggest}
    catalogue = Catalogue(ctx.partner, ctx.environment)
    # The featured extension belongs to the catalogue behind the key, not to the query (the provider's demo).
    featured = catalogue.first
    if not LABEL.match(label) or featured is None:
        return JsonResponse(
            {"results": [], "results_total": 0, "results_hidden": 0, "meta": meta, "message": NOT_FOUND}
        )
    typed = catalogue.tld(typed_tld) if typed_tld else None
    exact = f"{label}.{typed.tld}" if typed else None

    def shown(lookup: Lookup) -> bool:
        # A taken extension is left out, unless the customer typed that very domain.
        return not lookup.taken or lookup.domain_name == exact

    hero, *others = catalogue.check([(label, entry) for entry in catalogue.tlds])
    # The domain typed comes first in the list when it is not the featured one.
    others.sort(key=lambda lookup: lookup.domain_name != exact)
    listed = [lookup for lookup in others if shown(lookup)]
    if autosuggest:
        close = catalogue.check([(name, featured) for name in variations(label)])
        listed += [lookup for lookup in close if lookup.available][:MAX_VARIATIONS]
    ai: list[Lookup] = []
    if aisuggest:
        seen = {lookup.domain_name for lookup in [hero, *listed]}
        tlds = [featured, *[entry for entry in catalogue.tlds if entry.tld in ("ai", "io") and entry != featured]]
        candidates = catalogue.check([(name, entry) for name in ai_names(label) for entry in tlds])
        ai = [lookup for lookup in candidates if lookup.available and lookup.domain_name not in seen][:MAX_AI]
        _think(ctx=ctx, label=label)

    results = [
        *([_row(hero, "hero", exact=hero.domain_name == exact)] if shown(hero) else []),
        *[_row(lookup, "result", exact=lookup.domain_name == exact) for lookup in listed],
        *[_row(lookup, "ai_suggestion") for lookup in ai],
    ]
    return JsonResponse(
        {
            "results": results,
            "results_total": len(listed),
            "results_hidden": max(0, len(listed) - VISIBLE),
            "meta": meta,
        }
    )
