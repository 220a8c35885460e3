"""Minimum terms per TLD, from the prices (never from the wording of a refusal).

The provider's price list (`GET /api/v1/pricing`) prices each TLD per term in years; a TLD with a minimum term
has no price below it. Our cost table (`pricing`, synced from that list daily) answers first, with no provider
call; a TLD it does not have yet, or a `fresh` look after a refusal, asks the provider's list (cached a while).
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from pricing.models import Operation
from pricing.quotes import price_book
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


def _table_terms(tld: str, operation: Operation) -> list[int]:
    return price_book(tlds=[tld]).terms(tld=tld, operation=operation)


def register_min_term(tld: str, *, fresh: bool = False) -> int:
    """The shortest registration term priced for the TLD; 1 when neither our table nor the provider's list says."""
    tld = tld.lower().lstrip(".")
    terms = [] if fresh else _table_terms(tld, Operation.REGISTER)
    if terms:
        # A refusal since the last price sync may have looked the provider's list up afresh (`fresh`, kept in
        # the cache): a longer minimum it found wins over the table's, until the next sync agrees.
        cached: PriceList | None = cache.get(_CACHE_KEY)
        entry = cached.tlds.get(tld) if cached else None
        return max(terms[0], entry.min_term if entry else 1)
    prices = price_list(fresh=fresh)
    entry = prices.tlds.get(tld.lower().lstrip(".")) if prices else None
    return entry.min_term if entry else 1


def renew_min_term(tld: str, *, fresh: bool = False) -> int:
    """The shortest renewal term for the TLD: the larger of its shortest priced renewal and its minimum term
    (the list prices renewals from one year even for a TLD such as .ai, whose minimum applies to renewals too,
    as the provider's OpenAPI example says); 1 when the list is unknown."""
    tld = tld.lower().lstrip(".")
    register, renew = ([], []) if fresh else (_table_terms(tld, Operation.REGISTER), _table_terms(tld, Operation.RENEW))
    if register and renew:
        return max(renew[0], register[0])
    prices = price_list(fresh=fresh)
    entry = prices.tlds.get(tld) if prices else None
    return max(min(entry.renew, default=1), entry.min_term) if entry else 1
