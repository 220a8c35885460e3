"""Minimum terms per TLD, from the provider's price list (never from the wording of a refusal).

The price list (`GET /api/v1/pricing`) prices each TLD per term in years; a TLD with a minimum term has no
price below it. It changes rarely, so it is kept in the shared cache for a while.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from storefront.gateway import GatewayError, PriceList, gateway

logger = logging.getLogger(__name__)

_CACHE_KEY = "provider-price-list"
_CACHE_SECONDS = 15 * 60


def price_list(*, fresh: bool = False) -> PriceList | None:
    """The provider's price list, cached (`fresh`: asked again); None when the provider cannot give it now."""
    cached = None if fresh else cache.get(_CACHE_KEY)
    if cached is not None:
        return cached
    try:
        prices = gateway().pricing()
    except GatewayError as err:
        logger.warning("price list unavailable: %s", type(err).__name__)
        return None
    cache.set(_CACHE_KEY, prices, timeout=_CACHE_SECONDS)
    return prices


def register_min_term(tld: str, *, fresh: bool = False) -> int:
    """The shortest registration term the provider prices for the TLD; 1 when the list is unknown or silent."""
    prices = price_list(fresh=fresh)
    entry = prices.tlds.get(tld.lower().lstrip(".")) if prices else None
    return entry.min_term if entry else 1


def renew_min_term(tld: str, *, fresh: bool = False) -> int:
    """The shortest renewal term for the TLD: the larger of its shortest priced renewal and its minimum term
    (the list prices renewals from one year even for a TLD such as .ai, whose minimum applies to renewals too,
    as the provider's OpenAPI example says); 1 when the list is unknown."""
    prices = price_list(fresh=fresh)
    entry = prices.tlds.get(tld.lower().lstrip(".")) if prices else None
    return max(min(entry.renew, default=1), entry.min_term) if entry else 1
