"""The provider client: one method per endpoint of its interface, typed arguments, dataclass results.

Views and services never build provider URLs or read provider status codes; this is the only place the
provider's keys are read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Literal, TypeVar

import requests
from django.conf import settings
from django.core.signals import setting_changed

from storefront.gateway.errors import GatewayError, OutcomeUnknown, RateLimited, Unavailable
from storefront.gateway.guard import requires_capability
from storefront.gateway.input_faults import caller_fault_record, caller_faults_check, control_characters_refuse
from storefront.gateway.price_lists import price_list_from
from storefront.gateway.protocol import Gateway
from storefront.gateway.results import (
    EDITABLE_RECORD_TYPES,
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
    MetaSearchMeta,
    OrderPage,
    PriceList,
    PrivacyChanged,
    RecordType,
    Registered,
    TransferCode,
    TransferLock,
    _ack,
    _contacts,
    _customer_details,
    _dns_record,
    _domain_deleted,
    _domain_details,
    _domain_result,
    _int,
    _list,
    _metasearch_result,
    _order,
    _privacy_changed,
    _str,
    _transfer_lock,
)
from storefront.gateway.transport import (
    CallSlots,
    CircuitBreaker,
    RateGuard,
    Service,
    certainly_not_sent,
    interpret,
    log_answer,
    new_session,
    read_body,
)
from storefront.observability.metrics import provider_call_observed
from storefront.observability.provider_calls import provider_call_record
from storefront.observability.provider_state import provider_observed
from storefront.requests import request_ids, request_stats
from storefront.site.capabilities import (
    CONTACTS,
    CUSTOMER_DETAILS,
    DOMAIN_DELETE,
    DOMAIN_DETAILS,
    PRIVACY,
    TRANSFER_LOCK,
)

logger = logging.getLogger("storefront.gateway")

T = TypeVar("T")


def normalise_base_url(url: str) -> str:
    """The provider's root: its docs write the base URL both with and without `/api/v1`; paths add it."""
    return url.strip().rstrip("/").removesuffix("/api/v1").rstrip("/")


def normalise_metasearch_url(url: str) -> str:
    """MetaSearch's root: the demo's setting holds the whole `…/v1/search`; the client adds that path."""
    return url.strip().rstrip("/").removesuffix("/v1/search").rstrip("/")


class ResellerGateway:
    def __init__(
        self,
        *,
        base_url: str,
        metasearch_url: str,
        api_key: str,
        connect_timeout: float,
        read_timeout: float,
        get_retries: int,
        metasearch_key: str = "",
        search_read_timeout: float | None = None,
        max_concurrent_calls: int = 0,
        breaker_threshold: int = 5,
        breaker_cooldown: float = 30.0,
        rate_limit: int = 0,
        search_rate_limit: int = 0,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        self.metasearch_url = normalise_metasearch_url(metasearch_url)
        self._api_key = api_key
        # The demo gives MetaSearch tokens of its own; whether the main key works there is not documented.
        self._metasearch_key = metasearch_key or api_key
        self.timeout = (connect_timeout, read_timeout)
        # MetaSearch answers while the customer types; when it hangs, the page falls back to the availability
        # endpoint, so it gets a shorter wait and one retry at most.
        self.search_timeout = (connect_timeout, search_read_timeout or read_timeout)
        self.get_retries = get_retries
        self.session = session or new_session(get_retries=get_retries)
        self.search_session = session or new_session(get_retries=min(get_retries, 1))
        # One breaker per service the customer depends on: a fault in one never refuses calls to another (a
        # MetaSearch outage, or a failing availability fallback, must not stop registrations, nor DNS the renewals).
        # Call slots are per host (a slow host holds only its own share of threads); rate limits per key and kind.
        main_slots = CallSlots(max_concurrent_calls)
        main_rate = RateGuard(service="main", api_key=api_key, per_second=rate_limit)

        def breaker(name: str) -> CircuitBreaker:
            return CircuitBreaker(threshold=breaker_threshold, cooldown=breaker_cooldown, name=f"provider {name}")

        # Registration and orders: registering, renewing, the order listing, customers, pricing, transfers.
        self.main = Service(
            name="main", base_url=self.base_url, breaker=breaker("main"), slots=main_slots, rate=main_rate
        )
        # The DNS editor's endpoints, on the main interface's host.
        self.dns = Service(name="dns", base_url=self.base_url, breaker=breaker("dns"), slots=main_slots, rate=main_rate)
        self.search = Service(
            name="search",
            base_url=self.metasearch_url,
            breaker=breaker("search"),
            slots=CallSlots(max_concurrent_calls),
            rate=RateGuard(service="search", api_key=self._metasearch_key, per_second=search_rate_limit),
        )
        # AI suggestions are MetaSearch too, but take 8 to 17 s on a cache miss: timeouts there say nothing about
        # the quick results, so they trip a breaker of their own and hold slots of their own (the budget is shared).
        self.ai = Service(
            name="ai",
            base_url=self.metasearch_url,
            breaker=breaker("ai"),
            slots=CallSlots(max_concurrent_calls),
            rate=self.search.rate,
        )
        # The main interface's availability endpoint: search's fallback while MetaSearch is down, and the checkout
        # review's one call. Its failures stop neither MetaSearch nor registrations; it counts against the search
        # limit and holds main-interface slots.
        self.availability = Service(
            name="availability",
            base_url=self.base_url,
            breaker=breaker("availability"),
            slots=main_slots,
            rate=RateGuard(service="search", api_key=api_key, per_second=search_rate_limit),
        )
        self.breakers = {
            service.name: service.breaker for service in (self.main, self.dns, self.search, self.ai, self.availability)
        }

    def __repr__(self) -> str:
        return f"<ResellerGateway {self.base_url}>"

    # Health -------------------------------------------------------------------------------------------------

    def hello(self) -> Hello:
        data = self._get("/api/v1/hello", endpoint="hello")
        return Hello(server_time=str(data.get("server_time", "")), message=str(data.get("message", "")))

    # Pricing ------------------------------------------------------------------------------------------------

    def pricing(self) -> PriceList:
        """The partner's cost prices, in either documented shape (storefront/gateway/price_lists.py)."""
        return price_list_from(self._get("/api/v1/pricing", endpoint="pricing"))

    # Customers ----------------------------------------------------------------------------------------------

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
    ) -> CustomerCreated:
        body = {
            "name": name,
            "address": address,
            "city": city,
            "state": state,
            "country": country,
            "zipcode": zipcode,
            "country_code": country_code,
            "phone": phone,
            "email": email,
            "password": password,
        }
        if company:
            body["company"] = company
        data = self._send("POST", "/api/v1/customers/signup", body, endpoint="signup")
        return CustomerCreated(customer_id=_int(data, "customer_id"), message=str(data.get("message", "")))

    def customer_auto_login(self, *, email: str) -> AutoLoginToken:
        data = self._send("POST", "/api/v1/customers/auto-login", {"email": email}, endpoint="auto-login")
        return AutoLoginToken(
            email=str(data.get("email", email)), token=_str(data, "token"), expires_at=str(data.get("expires_at", ""))
        )

    @requires_capability(CUSTOMER_DETAILS)
    def customer_details(self, *, customer_id: int) -> CustomerDetails:
        params = [("customer_id", str(int(customer_id)))]
        return _customer_details(self._get("/api/v1/customers/details", params, endpoint="customer-details"))

    @requires_capability(CUSTOMER_DETAILS)
    def customer_details_update(self, *, customer_id: int, details: Contact) -> CustomerDetails:
        """Replaces every contact field of the customer (signup's fields and rules; the password is not one)."""
        body = {"customer_id": int(customer_id), **details.as_fields()}
        data = self._send("PUT", "/api/v1/customers/details", body, endpoint="customer-details")
        return _confirmed(data, _customer_details, customer_id=int(customer_id))

    # Contacts -----------------------------------------------------------------------------------------------

    @requires_capability(CONTACTS)
    def contacts(self, *, order_id: int | None = None, customer_id: int | None = None) -> Contacts:
        """A domain's four contacts, or (with `customer_id` only) the customer's defaults for their domains."""
        params = [(key, str(value)) for key, value in contact_owner(order_id, customer_id).items()]
        return _contacts(self._get("/api/v1/contacts", params, endpoint="contacts"))

    @requires_capability(CONTACTS)
    def contacts_set(
        self,
        *,
        order_id: int | None = None,
        customer_id: int | None = None,
        registrant: Contact | None = None,
        admin: Contact | None = None,
        tech: Contact | None = None,
        billing: Contact | None = None,
    ) -> Contacts:
        """Sets the roles given (None: left as they are) of a domain, or the customer's defaults; answers all four."""
        owner = contact_owner(order_id, customer_id)
        given = {"registrant": registrant, "admin": admin, "tech": tech, "billing": billing}
        roles = {role: contact.as_fields() for role, contact in given.items() if contact is not None}
        if not roles:
            raise ValueError("contacts_set needs at least one contact")
        data = self._send("POST", "/api/v1/contacts", {**owner, "contacts": roles}, endpoint="contacts")
        return _confirmed(data, _contacts, **owner)

    # Search -------------------------------------------------------------------------------------------------

    def domain_availability(self, *, search_terms: str | Sequence[str], tlds: Sequence[str] = ()) -> list[DomainResult]:
        params: list[tuple[str, str]] = _term_params(search_terms)
        params += [("tlds[]", tld) for tld in tlds]
        data = self._get(
            "/api/v1/domains/availability", params, endpoint="search", service=self.availability, caller_input=True
        )
        return [_domain_result(row) for row in _list(data, "results")]

    def metasearch(
        self,
        *,
        search_term: str,
        autosuggest: bool = True,
        aisuggest: bool = True,
        read_timeout: float | None = None,
    ) -> MetaSearch:
        """`GET {metasearch_url}/v1/search`; `read_timeout` overrides the search wait (AI suggestions: 8 to 17 s)."""
        params = [
            ("search_term", search_term),
            ("autosuggest", _bool_param(autosuggest)),
            ("aisuggest", _bool_param(aisuggest)),
        ]
        data = self._get(
            "/v1/search",
            params,
            endpoint="search",
            service=self.ai if aisuggest else self.search,
            timeout=(self.search_timeout[0], read_timeout) if read_timeout else self.search_timeout,
            caller_input=True,
        )
        meta = data.get("meta") or {}
        return MetaSearch(
            results=[_metasearch_result(row) for row in _list(data, "results")],
            results_total=int(data.get("results_total") or 0),
            results_hidden=int(data.get("results_hidden") or 0),
            meta=MetaSearchMeta(
                search_term=str(meta.get("search_term", search_term)),
                typed_tld=meta.get("typed_tld"),
                autosuggest=bool(meta.get("autosuggest", autosuggest)),
                aisuggest=bool(meta.get("aisuggest", aisuggest)),
            ),
            message=data.get("message"),
        )

    # Domains ------------------------------------------------------------------------------------------------

    def domain_register(self, *, customer_id: int, domain_name: str, duration: int) -> Registered:
        body = {"customer_id": int(customer_id), "domain_name": domain_name, "duration": int(duration)}
        data = self._send("POST", "/api/v1/domains/register", body, endpoint="register")
        return Registered(order_id=_int(data, "order_id"), message=str(data.get("message", "")))

    def domain_orders(self, *, customer_id: int, page: int = 1, search: str = "") -> OrderPage:
        params = [("customer_id", str(int(customer_id))), ("page", str(int(page)))]
        if search:
            params.append(("search", search))
        data = self._get("/api/v1/domains/orders", params, endpoint="orders", caller_input=bool(search))
        orders = [_order(row) for row in _list(data, "orders")]
        return OrderPage(
            total_orders=int(data.get("total_orders") or 0),
            orders_on_page=int(data.get("orders_on_page") or len(orders)),
            orders=orders,
        )

    def domain_renew(self, *, order_id: int, duration: int, expiry_timestamp: int) -> Ack:
        body = {"order_id": int(order_id), "duration": int(duration), "expiry_timestamp": int(expiry_timestamp)}
        return _ack(self._send("POST", "/api/v1/domains/renew", body, endpoint="renew"))

    @requires_capability(DOMAIN_DETAILS)
    def domain_details(self, *, order_id: int) -> DomainDetails:
        data = self._get("/api/v1/domains/details", [("order_id", str(int(order_id)))], endpoint="domain-details")
        return _domain_details(data)

    @requires_capability(DOMAIN_DELETE)
    def domain_delete(self, *, order_id: int) -> DomainDeleted:
        data = self._send("POST", "/api/v1/domains/delete", {"order_id": int(order_id)}, endpoint="domain-delete")
        return _confirmed(data, _domain_deleted, order_id=int(order_id))

    # Privacy protection -------------------------------------------------------------------------------------

    @requires_capability(PRIVACY)
    def privacy_purchase(self, *, order_id: int, duration: int) -> PrivacyChanged:
        """Buys (or extends) WHOIS privacy for `duration` years; the provider charges the partner's balance."""
        body = {"order_id": int(order_id), "duration": int(duration)}
        data = self._send("POST", "/api/v1/privacy-protection", body, endpoint="privacy")
        return _confirmed(data, _privacy_changed, order_id=int(order_id))

    @requires_capability(PRIVACY)
    def privacy_set(self, *, order_id: int, enabled: bool) -> PrivacyChanged:
        body = {"order_id": int(order_id), "enabled": bool(enabled)}
        data = self._send("PUT", "/api/v1/privacy-protection", body, endpoint="privacy")
        changed = _confirmed(data, _privacy_changed, order_id=int(order_id))
        if changed.privacy.enabled != bool(enabled):
            raise OutcomeUnknown("the answer does not show the privacy asked for", status=200)
        return changed

    # DNS ----------------------------------------------------------------------------------------------------

    def dns_activate(self, *, order_id: int) -> Ack:
        body = {"order_id": int(order_id)}
        return _ack(self._send("POST", "/api/v1/dns/activate", body, endpoint="dns", service=self.dns))

    def dns_records(self, *, order_id: int, record_type: RecordType = "A") -> list[DnsRecord]:
        params = [("order_id", str(int(order_id))), ("record_type", record_type)]
        data = self._get("/api/v1/dns/dns-records", params, endpoint="dns", service=self.dns)
        return [_dns_record(row, record_type) for row in _list(data, "dns_records")]

    def dns_record_add(
        self,
        *,
        order_id: int,
        record_type: RecordType,
        value: str,
        host: str = "",
        ttl: int | None = None,
        priority: int | None = None,
    ) -> Ack:
        body: dict[str, Any] = {"order_id": int(order_id), "value": value}
        _add_record_options(body, record_type, host=host, ttl=ttl, priority=priority)
        return _ack(self._send("POST", _record_path(record_type), body, endpoint="dns", service=self.dns))

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
    ) -> Ack:
        body: dict[str, Any] = {"order_id": int(order_id), "current_value": current_value, "new_value": new_value}
        _add_record_options(body, record_type, host=host, ttl=ttl, priority=priority)
        return _ack(self._send("PUT", _record_path(record_type), body, endpoint="dns", service=self.dns))

    def dns_record_delete(self, *, order_id: int, record_type: RecordType, value: str, host: str = "") -> Ack:
        body = {"order_id": int(order_id), "value": value, "host": host or "@"}
        return _ack(self._send("DELETE", _record_path(record_type), body, endpoint="dns", service=self.dns))

    # Transfers ----------------------------------------------------------------------------------------------

    def transfer_auth_code(self, *, order_id: int) -> TransferCode:
        data = self._get("/api/v1/transfers/auth-code", [("order_id", str(int(order_id)))], endpoint="transfer")
        return TransferCode(order_id=_int(data, "order_id"), transfer_code=_str(data, "transfer_code"))

    @requires_capability(TRANSFER_LOCK)
    def transfer_lock_set(self, *, order_id: int, locked: bool) -> TransferLock:
        body = {"order_id": int(order_id), "locked": bool(locked)}
        data = self._send("PUT", "/api/v1/transfers/lock", body, endpoint="transfer-lock")
        return _confirmed(data, _transfer_lock, order_id=int(order_id), locked=bool(locked))

    # Transport ----------------------------------------------------------------------------------------------

    def _get(
        self,
        path: str,
        params: Sequence[tuple[str, str]] = (),
        *,
        endpoint: str,
        service: Service | None = None,
        timeout: tuple[float, float] | None = None,
        caller_input: bool = False,
    ) -> dict[str, Any]:
        # Retried by the session's urllib3 Retry (a GET changes nothing); see transport.new_session.
        return self._call(
            "GET",
            path,
            params=params,
            endpoint=endpoint,
            service=service or self.main,
            timeout=timeout,
            caller_input=caller_input,
        )

    def _send(
        self, method: str, path: str, body: Mapping[str, Any], *, endpoint: str, service: Service | None = None
    ) -> dict[str, Any]:
        # Never retried: the provider may have acted on a request whose answer we lost.
        return self._call(method, path, json_body=body, endpoint=endpoint, service=service or self.main)

    def _call(
        self,
        method: str,
        path: str,
        *,
        endpoint: str,
        service: Service,
        params: Sequence[tuple[str, str]] = (),
        json_body: Mapping[str, Any] | None = None,
        timeout: tuple[float, float] | None = None,
        caller_input: bool = False,
    ) -> dict[str, Any]:
        """`caller_input`: the call carries what the request's caller typed (a search), so a server error in answer
        may be that input's fault: it counts against the caller first (storefront/gateway/input_faults.py)."""
        changes_state = method != "GET"
        url = service.base_url + path
        control_characters_refuse(params, json_body)
        if caller_input:
            caller_faults_check()
        if not service.breaker.allows_call():
            logger.warning("provider %s %s skipped: the %s circuit is open", method, path, service.name)
            raise Unavailable(status=None)
        try:
            # Bounded per request (storefront.requests.request_stats): refused before anything is sent, so it proves
            # nothing.
            bounded = request_stats.before_call(timeout or self.timeout)
        except request_stats.BudgetSpent as err:
            logger.warning("provider %s %s skipped: request budget spent (%s)", method, path, err)
            service.breaker.abandoned()
            raise Unavailable("request budget spent") from err
        # Ours, sent as X-Request-ID and kept beside the provider's own (storefront/requests/request_ids.py).
        request_id = request_ids.current() or request_ids.generate()
        started = time.perf_counter()
        try:
            service.rate.acquire()
            with service.slots.hold(method, path):
                response = self._exchange(
                    method,
                    url,
                    service=service,
                    params=params,
                    json_body=json_body,
                    timeout=bounded,
                    request_id=request_id,
                )
        except (RateLimited, Unavailable):
            # Raised before anything was sent (cooling down, over budget, no free slot): it proves nothing.
            service.breaker.abandoned()
            raise
        except requests.RequestException as err:
            elapsed = time.perf_counter() - started
            record_provider_call(elapsed, service=service.name, outcome="unreachable")
            logger.warning("provider %s %s failed after %.0f ms: %s", method, path, elapsed * 1000, type(err).__name__)
            call_record(service, method, path, None, elapsed, request_id=request_id, provider_request_id=None)
            service.breaker.failed()
            if changes_state and not certainly_not_sent(err):
                raise OutcomeUnknown() from err
            raise Unavailable(type(err).__name__) from err
        elapsed = time.perf_counter() - started
        data = read_body(response)
        provider_request_id = log_answer(method, path, response, data, elapsed, request_id=request_id)
        call_record(
            service,
            method,
            path,
            response.status_code,
            elapsed,
            request_id=request_id,
            provider_request_id=provider_request_id,
        )
        try:
            answer = interpret(response, data, endpoint=endpoint, changes_state=changes_state)
        except RateLimited as err:
            record_provider_call(elapsed, service=service.name, outcome="rate_limited")
            # The caller is told the whole shared wait (Retry-After plus jitter): asking sooner fails fast anyway.
            err.retry_after = service.rate.cool_down(err.retry_after)
            service.breaker.succeeded()  # it answered: the service is up, only busy
            raise
        except Unavailable as err:
            record_provider_call(elapsed, service=service.name, outcome="unavailable")
            answered_5xx = err.status is not None and err.status >= 500
            if caller_input and answered_5xx and not caller_fault_record():
                service.breaker.abandoned()  # this caller's input again: it says nothing new about the service
            else:
                service.breaker.failed()
            raise
        except GatewayError:
            record_provider_call(elapsed, service=service.name, outcome="refused")
            service.breaker.succeeded()  # the service answered deliberately: it is up
            raise
        record_provider_call(elapsed, service=service.name, outcome="ok")
        service.breaker.succeeded()
        return answer

    def _exchange(
        self,
        method: str,
        url: str,
        *,
        service: Service,
        params: Sequence[tuple[str, str]],
        json_body: Mapping[str, Any] | None,
        timeout: tuple[float, float],
        request_id: str,
    ) -> requests.Response:
        key = self._metasearch_key if service in (self.search, self.ai) else self._api_key
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/json", request_ids.HEADER: request_id}
        query = list(params) or None
        if method == "GET":
            session = self.search_session if service in (self.search, self.ai) else self.session
            return session.request(method, url, params=query, json=json_body, headers=headers, timeout=timeout)
        # A state-changing call never reuses a kept-alive connection: one the provider closes just as we send
        # would leave the outcome unknown. A connection of its own costs a handshake on the rare POST, PUT or
        # DELETE, and spares an order or a signup a reconciliation. Its session has no retries at all.
        with requests.Session() as once:
            headers["Connection"] = "close"
            return once.request(method, url, params=query, json=json_body, headers=headers, timeout=timeout)


def _confirmed(data: dict[str, Any], parse: Callable[[dict[str, Any]], T], **expected: Any) -> T:
    """The answer to a change, read strictly. The provider's placeholders for these endpoints answer 200 without
    doing anything, so a 2xx that does not name what changed, or names another state, proves nothing: its
    outcome is unknown (reconcile by reading the state back), never success."""
    try:
        result = parse(data)
    except Unavailable as err:
        raise OutcomeUnknown("the answer does not say what changed", status=200) from err
    for attribute, value in expected.items():
        if getattr(result, attribute) != value:
            raise OutcomeUnknown(f"the answer names another {attribute}", status=200)
    return result


def contact_owner(order_id: int | None, customer_id: int | None) -> dict[str, int]:
    """Whose contacts: a domain's or a customer's (defaults), named by exactly one id."""
    if (order_id is None) == (customer_id is None):
        raise ValueError("name exactly one of order_id and customer_id")
    return {"order_id": int(order_id)} if order_id is not None else {"customer_id": int(customer_id or 0)}


def _bool_param(value: bool) -> str:
    return "true" if value else "false"


def _term_params(search_terms: str | Sequence[str]) -> list[tuple[str, str]]:
    if isinstance(search_terms, str):
        return [("search_term", search_terms)]
    if len(search_terms) == 1:
        return [("search_term", search_terms[0])]
    return [("search_term[]", term) for term in search_terms]


def _record_path(record_type: RecordType) -> str:
    if record_type not in EDITABLE_RECORD_TYPES:
        raise ValueError(f"{record_type} records cannot be changed through the interface")
    return f"/api/v1/dns/{record_type.lower()}-record"


def _add_record_options(
    body: dict[str, Any], record_type: RecordType, *, host: str, ttl: int | None, priority: int | None
) -> None:
    body["host"] = host or "@"
    if ttl is not None:
        body["time_to_live"] = int(ttl)
    if record_type == "MX" and priority is not None:
        body["priority"] = int(priority)


def key_environment(api_key: str) -> Literal["test", "live", "unknown"]:
    """Which environment a key belongs to, from its prefix (`test_`/`live_`, also `nk_test_`/`nk_live_`)."""
    bare = api_key.removeprefix("nk_")
    if bare.startswith("test_"):
        return "test"
    if bare.startswith("live_"):
        return "live"
    return "unknown"


def call_record(
    service: Service,
    method: str,
    path: str,
    status: int | None,
    seconds: float,
    *,
    request_id: str,
    provider_request_id: str | None,
) -> None:
    """The provider call log (storefront/observability/provider_calls.py): what staff search by a customer's
    reference."""
    provider_call_record(
        request_id=request_id,
        provider_request_id=provider_request_id,
        service=service.name,
        method=method,
        path=path,
        status=status,
        seconds=seconds,
    )


def record_provider_call(seconds: float, *, service: str, outcome: str) -> None:
    """Per-request accounting (read by the request log), the call's metric (/metrics), and the service's state as
    this process last saw it (readiness reports it)."""
    request_stats.add_provider_call(seconds)
    provider_call_observed(service=service, outcome=outcome, seconds=seconds)
    provider_observed(service=service, outcome=outcome)


@cache
def gateway() -> Gateway:
    """The gateway configured from settings; one per process, so connections are pooled and reused."""
    # Looked up at each (uncached) call, so tests can put an in-memory provider in its place (tests/fakes).
    return gateway_from_settings()


def gateway_from_settings() -> ResellerGateway:
    return ResellerGateway(
        base_url=settings.RESELLER_BASE_URL,
        metasearch_url=settings.RESELLER_METASEARCH_URL,
        api_key=settings.RESELLER_API_KEY,
        metasearch_key=settings.RESELLER_METASEARCH_KEY,
        connect_timeout=settings.RESELLER_CONNECT_TIMEOUT,
        read_timeout=settings.RESELLER_READ_TIMEOUT,
        get_retries=settings.RESELLER_GET_RETRIES,
        search_read_timeout=settings.RESELLER_SEARCH_READ_TIMEOUT,
        max_concurrent_calls=settings.RESELLER_MAX_CONCURRENT_CALLS,
        breaker_threshold=settings.RESELLER_BREAKER_FAILURES,
        breaker_cooldown=settings.RESELLER_BREAKER_SECONDS,
        rate_limit=settings.RESELLER_RATE_LIMIT,
        search_rate_limit=settings.RESELLER_SEARCH_RATE_LIMIT,
    )


def _forget_gateway(*, setting: str, **_: Any) -> None:
    if setting.startswith("RESELLER_"):
        gateway.cache_clear()


setting_changed.connect(_forget_gateway)
