"""Typed results of the provider's answers, and the parsers that build them from JSON bodies."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any, Literal

from storefront.gateway.errors import Unavailable

RecordType = Literal["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "SOA"]
# The record types the provider lets a partner add, change and delete (NS, SRV and SOA are its own).
EDITABLE_RECORD_TYPES: tuple[RecordType, ...] = ("A", "AAAA", "CNAME", "MX", "TXT")


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
    # The TLD catalogue's own fields (the other price-list shape): None where the answer says nothing of privacy,
    # and the registry's requirements in the provider's words ("" when there are none or they are not known).
    privacy_available: bool | None = None
    restrictions: str = ""

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


# --- The provider's "coming soon" endpoints (storefront/site/capabilities.py) --------------------------------------


@dataclass(frozen=True)
class Contact:
    """A person's contact details as the provider holds them: a customer's own (given at signup), or a domain's
    registrant, admin, tech or billing contact. The same fields and rules as signup (ASCII only)."""

    name: str
    company: str
    address: str
    city: str
    state: str
    country: str
    zipcode: str
    country_code: str
    phone: str
    email: str

    def as_fields(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in CONTACT_FIELDS}


CONTACT_FIELDS = tuple(f.name for f in fields(Contact))
CONTACT_ROLES = ("registrant", "admin", "tech", "billing")


@dataclass(frozen=True)
class CustomerDetails(Contact):
    customer_id: int


@dataclass(frozen=True)
class Contacts:
    """A domain's (or, without `order_id`, a customer's default) four contacts. A role nobody set is the customer's
    own details, as the provider's docs say of every domain registered under a customer."""

    customer_id: int
    order_id: int | None
    registrant: Contact
    admin: Contact
    tech: Contact
    billing: Contact


@dataclass(frozen=True)
class PrivacyProtection:
    """WHOIS privacy of a domain: `purchased` while paid for, `enabled` while paid for and switched on."""

    purchased: bool
    enabled: bool
    expiry_timestamp: int | None  # the end of what was paid for; None: never bought

    @property
    def expires_at(self) -> dt.datetime | None:
        return None if self.expiry_timestamp is None else dt.datetime.fromtimestamp(self.expiry_timestamp, tz=dt.UTC)


@dataclass(frozen=True)
class DomainDetails:
    order_id: int
    domain_name: str
    customer_id: int
    status: str
    registered_timestamp: int
    expiry: str
    expiry_timestamp: int
    transfer_lock: bool
    dns_active: bool
    privacy: PrivacyProtection

    @property
    def expires_at(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.expiry_timestamp, tz=dt.UTC)


@dataclass(frozen=True)
class PrivacyChanged:
    """The answer to buying privacy or switching it: the state it left."""

    order_id: int
    privacy: PrivacyProtection
    message: str


@dataclass(frozen=True)
class TransferLock:
    order_id: int
    locked: bool
    message: str


@dataclass(frozen=True)
class DomainDeleted:
    order_id: int
    status: str  # the order's status afterwards (the sandbox: Pending Delete Restorable)
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


def decimal_or_none(value: Any) -> Decimal | None:
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


def price_map_parse(value: Any) -> dict[int, Decimal]:
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
            register=decimal_or_none(pricing.get("register")) or Decimal(0),
            renew=decimal_or_none(pricing.get("renew")) or Decimal(0),
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


def _text(data: Mapping[str, Any], key: str) -> str:
    """A string field that must be there, empty or not (a contact's company may be blank)."""
    value = data.get(key)
    if not isinstance(value, str):
        raise Unavailable("The domain service sent an unreadable answer.")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool:
    """A JSON boolean that must be there: a missing state is not read as false."""
    value = data.get(key)
    if not isinstance(value, bool):
        raise Unavailable("The domain service sent an unreadable answer.")
    return value


def _object(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise Unavailable("The domain service sent an unreadable answer.")
    return value


def _contact(row: Mapping[str, Any]) -> Contact:
    return Contact(**{name: _text(row, name) for name in CONTACT_FIELDS})


def _customer_details(data: Mapping[str, Any]) -> CustomerDetails:
    return CustomerDetails(customer_id=_int(data, "customer_id"), **_contact(data).as_fields())


def _contacts(data: Mapping[str, Any]) -> Contacts:
    roles = _object(data, "contacts")
    return Contacts(
        customer_id=_int(data, "customer_id"),
        order_id=_int(data, "order_id") if data.get("order_id") is not None else None,
        **{role: _contact(_object(roles, role)) for role in CONTACT_ROLES},
    )


def _privacy(data: Mapping[str, Any]) -> PrivacyProtection:
    state = _object(data, "privacy_protection")
    expiry = state.get("expiry_timestamp")
    return PrivacyProtection(
        purchased=_flag(state, "purchased"),
        enabled=_flag(state, "enabled"),
        expiry_timestamp=None if expiry is None else _int(state, "expiry_timestamp"),
    )


def _domain_details(data: Mapping[str, Any]) -> DomainDetails:
    return DomainDetails(
        order_id=_int(data, "order_id"),
        domain_name=_str(data, "domain_name"),
        customer_id=_int(data, "customer_id"),
        status=_str(data, "status"),
        registered_timestamp=_int(data, "registered_timestamp"),
        expiry=str(data.get("expiry") or ""),
        expiry_timestamp=_int(data, "expiry_timestamp"),
        transfer_lock=_flag(data, "transfer_lock"),
        dns_active=_flag(data, "dns_active"),
        privacy=_privacy(data),
    )


def _privacy_changed(data: Mapping[str, Any]) -> PrivacyChanged:
    return PrivacyChanged(order_id=_int(data, "order_id"), privacy=_privacy(data), message=str(data.get("message", "")))


def _transfer_lock(data: Mapping[str, Any]) -> TransferLock:
    return TransferLock(
        order_id=_int(data, "order_id"), locked=_flag(data, "transfer_lock"), message=str(data.get("message", ""))
    )


def _domain_deleted(data: Mapping[str, Any]) -> DomainDeleted:
    return DomainDeleted(
        order_id=_int(data, "order_id"), status=_str(data, "order_status"), message=str(data.get("message", ""))
    )
