"""`GET /api/v1/pricing` in either of the two shapes the provider documents, read into one `PriceList`.

The OpenAPI describes a map keyed `dot<tld>` with prices per operation and term (totals per term) plus one annual
`privacy_protection`. The docs' TLD-catalogue page shows "the TLD pricing endpoint" answering
`{"tlds": [{"tld", "registration_price", "renewal_price", "transfer_price", "currency", "min_period", "max_period",
"privacy_available", "restrictions"}]}` instead, with prices per year. Which one the live service sends is not
settled, so both are read; anything else is an unreadable answer (the sync keeps the last table).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from storefront.gateway.errors import Unavailable
from storefront.gateway.results import PriceList, TldPrices, decimal_or_none, price_map_parse

_UNREADABLE = "The domain service sent an unreadable price list."


def price_list_from(data: Mapping[str, Any]) -> PriceList:
    try:
        if isinstance(data.get("tlds"), list):
            return _catalogue(data["tlds"])
        return _slug_map(data)
    except (InvalidOperation, TypeError, ValueError, AttributeError) as err:
        raise Unavailable(_UNREADABLE) from err


def _slug_map(data: Mapping[str, Any]) -> PriceList:
    tlds: dict[str, TldPrices] = {}
    privacy = None
    for slug, value in data.items():
        if slug == "privacy_protection":
            privacy = decimal_or_none(value)
        elif isinstance(value, dict) and slug.startswith("dot") and len(slug) > 3:
            tld = slug.removeprefix("dot")
            tlds[tld] = TldPrices(
                tld=tld,
                register=price_map_parse(value.get("register")),
                renew=price_map_parse(value.get("renew")),
                transfer=price_map_parse(value.get("transfer")),
                restore=price_map_parse(value.get("restore")),
            )
    return PriceList(currency="USD", tlds=tlds, privacy_protection=privacy)


def _catalogue(rows: list[Any]) -> PriceList:
    tlds: dict[str, TldPrices] = {}
    currencies: set[str] = set()
    for row in rows:
        if not isinstance(row, dict):
            raise Unavailable(_UNREADABLE)
        tld = str(row.get("tld") or "").strip().lower().lstrip(".")
        if not tld:
            raise Unavailable(_UNREADABLE)
        currencies.add(str(row.get("currency") or "USD").upper())
        shortest, longest = int(row.get("min_period") or 1), int(row.get("max_period") or 1)
        if shortest < 1 or longest < shortest:
            raise Unavailable(_UNREADABLE)
        terms = range(shortest, longest + 1)
        privacy = row.get("privacy_available")
        tlds[tld] = TldPrices(
            tld=tld,
            # The catalogue prices one year; a term costs that many years (the cost table keeps totals per term).
            register=_per_term(row.get("registration_price"), terms),
            renew=_per_term(row.get("renewal_price"), terms),
            transfer=_per_term(row.get("transfer_price"), range(1, 2)),
            restore={},
            privacy_available=privacy if isinstance(privacy, bool) else None,
            restrictions=restriction_text(row.get("restrictions")),
        )
    if len(currencies) > 1:
        # One table, one currency: a mixed list is refused rather than half converted.
        raise Unavailable(_UNREADABLE)
    # The catalogue has no privacy price: privacy is not sold until a price list that quotes one.
    return PriceList(currency=currencies.pop() if currencies else "USD", tlds=tlds, privacy_protection=None)


def _per_term(annual: Any, terms: range) -> dict[int, Decimal]:
    price = decimal_or_none(annual)
    if price is None:
        return {}
    return {years: price * years for years in terms}


def restriction_text(value: Any) -> str:
    """The catalogue's `restrictions` as one line for staff and customers. Its format is not documented beyond
    `null`; a text, a list of texts or an object of named requirements (`{"nexus": "US nexus category"}`, or
    `{"eu_residence": true}`) are all read."""
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "; ".join(part for part in map(restriction_text, value) if part)
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            if item is False or item is None:
                continue
            text = restriction_text(item)
            parts.append(f"{key}: {text}" if text else str(key))
        return "; ".join(parts)
    return str(value)
