"""Typed results of the provider's answers, and the parsers that build them from JSON bodies."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from storefront.gateway.errors import Unavailable


@dataclass(frozen=True)
class Hello:
    server_time: str
    message: str


@dataclass(frozen=True)
class CustomerCreated:
    customer_id: int
    message: str


@dataclass(frozen=True)
class AutoLoginToken:
    email: str
    token: str = field(repr=False)
    expires_at: str


@dataclass(frozen=True)
class DomainResult:
    domain_name: str
    sld: str
    tld: str
    available: bool
    premium: bool

    @property
    def sellable(self) -> bool:
        # `premium: true` with `available: true` means "available at a premium price", which `register` refuses.
        return self.available and not self.premium


@dataclass(frozen=True)
class Pricing:
    currency: str
    register: Decimal
    renew: Decimal
    period: str
    is_free_first_year: bool
    summary: str


@dataclass(frozen=True)
class MetaSearchResult:
    domain_name: str
    sld: str
    tld: str
    available: bool
    type: str  # hero, result or ai_suggestion
    is_searched_exact: bool
    pricing: Pricing | None

    # The row's own `premium: true` (the contract's MetaSearch rows may carry it, like availability rows).
    flagged_premium: bool = False

    @property
    def premium(self) -> bool:
        # Premium names are shown with a price but cannot be registered through the interface: either the row
        # says so, or it is priced while not available.
        return self.flagged_premium or (not self.available and self.pricing is not None)

    @property
    def sellable(self) -> bool:
        """Whether the customer may buy it here: available and not premium, whatever `available` says alone."""
        return self.available and not self.premium


@dataclass(frozen=True)
class MetaSearchMeta:
    search_term: str
    typed_tld: str | None
    autosuggest: bool
    aisuggest: bool


@dataclass(frozen=True)
class MetaSearch:
    results: list[MetaSearchResult]
    results_total: int
    results_hidden: int
    meta: MetaSearchMeta
    message: str | None

    @property
    def hero(self) -> MetaSearchResult | None:
        return next((r for r in self.results if r.type == "hero"), None)

    @property
    def listed(self) -> list[MetaSearchResult]:
        return [r for r in self.results if r.type == "result"]

    @property
    def ai_suggestions(self) -> list[MetaSearchResult]:
        return [r for r in self.results if r.type == "ai_suggestion"]


@dataclass(frozen=True)
class TldPrices:
    """The partner's cost of one TLD (`GET /api/v1/pricing`), per operation and term in years."""

    tld: str  # without the leading dot: the slug `dotcom` is `com`
    register: dict[int, Decimal]
    renew: dict[int, Decimal]
    transfer: dict[int, Decimal]
    restore: dict[int, Decimal]

    @property
    def min_term(self) -> int:
        """The shortest registration term the provider prices: a TLD with a minimum term starts there."""
        return min(self.register, default=1)


@dataclass(frozen=True)
class PriceList:
    """What the reseller pays the provider: one entry per TLD it may sell, plus privacy protection per year."""

    currency: str
    tlds: dict[str, TldPrices]
    privacy_protection: Decimal | None


@dataclass(frozen=True)
class Registered:
    order_id: int
    message: str


@dataclass(frozen=True)
class Order:
    order_id: int
    domain_name: str
    status: str
    expiry: str
    expiry_timestamp: int

    @property
    def expires_at(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.expiry_timestamp, tz=dt.UTC)


@dataclass(frozen=True)
class OrderPage:
    total_orders: int
    orders_on_page: int
    orders: list[Order]


@dataclass(frozen=True)
class DnsRecord:
    type: str
    host: str
    value: str
    time_to_live: int | None
    status: str
    priority: int | None = None


@dataclass(frozen=True)
class TransferCode:
    order_id: int
    transfer_code: str = field(repr=False)


@dataclass(frozen=True)
class Ack:
    """The provider's `{status: SUCCESS, message}` answer to an action."""

    status: str
    message: str


# --- Parsing ------------------------------------------------------------------------------------------------


def _list(data: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise Unavailable("The domain service sent an unreadable answer.")
    return [row for row in value if isinstance(row, dict)]


def _int(data: Mapping[str, Any], key: str) -> int:
    try:
        return int(data[key])
    except (KeyError, TypeError, ValueError) as err:
        raise Unavailable("The domain service sent an unreadable answer.") from err


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise Unavailable("The domain service sent an unreadable answer.")
    return value


def _decimal(value: Any) -> Decimal | None:
    if value is None or value == "":
        return None
    return Decimal(str(value))


def _domain_result(row: Mapping[str, Any]) -> DomainResult:
    return DomainResult(
        domain_name=str(row.get("domain_name", "")),
        sld=str(row.get("sld", "")),
        tld=str(row.get("tld", "")),
        available=bool(row.get("available")),
        premium=bool(row.get("premium")),
    )


def _price_map(value: Any) -> dict[int, Decimal]:
    if not isinstance(value, dict):
        return {}
    return {int(term): Decimal(str(price)) for term, price in value.items() if str(term).isdigit()}


def _metasearch_result(row: Mapping[str, Any]) -> MetaSearchResult:
    pricing = row.get("pricing")
    return MetaSearchResult(
        domain_name=str(row.get("domain_name", "")),
        sld=str(row.get("sld", "")),
        tld=str(row.get("tld", "")),
        available=bool(row.get("available")),
        type=str(row.get("type", "result")),
        is_searched_exact=bool(row.get("is_searched_exact")),
        flagged_premium=row.get("premium") is True,
        pricing=Pricing(
            currency=str(pricing.get("currency", "")),
            register=_decimal(pricing.get("register")) or Decimal(0),
            renew=_decimal(pricing.get("renew")) or Decimal(0),
            period=str(pricing.get("period", "year")),
            is_free_first_year=bool(pricing.get("is_free_first_year")),
            summary=str(pricing.get("summary", "")),
        )
        if isinstance(pricing, dict)
        else None,
    )


def _order(row: Mapping[str, Any]) -> Order:
    return Order(
        order_id=_int(row, "order_id"),
        domain_name=str(row.get("domain_name", "")),
        status=str(row.get("status", "")),
        expiry=str(row.get("expiry", "")),
        expiry_timestamp=_int(row, "expiry_timestamp"),
    )


def _dns_record(row: Mapping[str, Any], record_type: str) -> DnsRecord:
    ttl = row.get("time_to_live")
    priority = row.get("priority")
    return DnsRecord(
        type=str(row.get("type") or record_type),
        host=str(row.get("host", "")),
        value=str(row.get("value", "")),
        time_to_live=int(ttl) if ttl is not None and ttl != "" else None,
        status=str(row.get("status", "")),
        priority=int(priority) if priority is not None and priority != "" else None,
    )


def _ack(data: Mapping[str, Any]) -> Ack:
    return Ack(status=str(data.get("status", "SUCCESS")), message=str(data.get("message", "")))
