"""What the gateway offers its callers, as a `typing.Protocol`: the HTTP client (client.ResellerGateway) and the
in-memory provider the tests use (tests/fakes/gateway.py) both implement it, and mypy checks that they do
(`gateway()` is typed with it, and the fake is assigned to it in its module). A method added to the client and
used through `gateway()` must be added here, and then to the fake, or the type check fails.

Each method's meaning, errors and capability are documented on the client.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storefront.gateway.results import (
    Ack,
    AutoLoginToken,
    Contact,
    Contacts,
    CustomerCreated,
    CustomerDetails,
    DnsRecord,
    DomainDeleted,
    DomainDetails,
    DomainResult,
    Hello,
    MetaSearch,
    OrderPage,
    PriceList,
    PrivacyChanged,
    RecordType,
    Registered,
    TransferCode,
    TransferLock,
)


class Gateway(Protocol):
    def hello(self) -> Hello: ...

    def pricing(self) -> PriceList: ...

    def customer_signup(
        self,
        *,
        name: str,
        address: str,
        city: str,
        state: str,
        country: str,
        zipcode: str,
        country_code: str,
        phone: str,
        email: str,
        password: str,
        company: str = "",
    ) -> CustomerCreated: ...

    def customer_auto_login(self, *, email: str) -> AutoLoginToken: ...

    def customer_details(self, *, customer_id: int) -> CustomerDetails: ...

    def customer_details_update(self, *, customer_id: int, details: Contact) -> CustomerDetails: ...

    def contacts(self, *, order_id: int | None = None, customer_id: int | None = None) -> Contacts: ...

    def contacts_set(
        self,
        *,
        order_id: int | None = None,
        customer_id: int | None = None,
        registrant: Contact | None = None,
        admin: Contact | None = None,
        tech: Contact | None = None,
        billing: Contact | None = None,
    ) -> Contacts: ...

    def domain_availability(
        self, *, search_terms: str | Sequence[str], tlds: Sequence[str] = ()
    ) -> list[DomainResult]: ...

    def metasearch(
        self,
        *,
        search_term: str,
        autosuggest: bool = True,
        aisuggest: bool = True,
        read_timeout: float | None = None,
    ) -> MetaSearch: ...

    def domain_register(self, *, customer_id: int, domain_name: str, duration: int) -> Registered: ...

    def domain_orders(self, *, customer_id: int, page: int = 1, search: str = "") -> OrderPage: ...

    def domain_renew(self, *, order_id: int, duration: int, expiry_timestamp: int) -> Ack: ...

    def domain_details(self, *, order_id: int) -> DomainDetails: ...

    def domain_delete(self, *, order_id: int) -> DomainDeleted: ...

    def privacy_purchase(self, *, order_id: int, duration: int) -> PrivacyChanged: ...

    def privacy_set(self, *, order_id: int, enabled: bool) -> PrivacyChanged: ...

    def dns_activate(self, *, order_id: int) -> Ack: ...

    def dns_records(self, *, order_id: int, record_type: RecordType = "A") -> list[DnsRecord]: ...

    def dns_record_add(
        self,
        *,
        order_id: int,
        record_type: RecordType,
        value: str,
        host: str = "",
        ttl: int | None = None,
        priority: int | None = None,
    ) -> Ack: ...

    def dns_record_modify(
        self,
        *,
        order_id: int,
        record_type: RecordType,
        current_value: str,
        new_value: str,
        host: str = "",
        ttl: int | None = None,
        priority: int | None = None,
    ) -> Ack: ...

    def dns_record_delete(self, *, order_id: int, record_type: RecordType, value: str, host: str = "") -> Ack: ...

    def transfer_auth_code(self, *, order_id: int) -> TransferCode: ...

    def transfer_lock_set(self, *, order_id: int, locked: bool) -> TransferLock: ...
