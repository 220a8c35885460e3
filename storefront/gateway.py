"""The only module that talks to the domain provider, and the only place its API key is read.

One method per endpoint of the provider's interface, typed arguments, dataclass results, one exception family.
Views and services never build provider URLs or read provider status codes.

What is never logged here: the key, the Authorization header, request bodies (passwords), response bodies
(auto-login tokens, transfer codes). A log line names the method, the path, the status and the time taken.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any, Literal

import requests
from django.conf import settings
from django.core.signals import setting_changed
from requests.adapters import HTTPAdapter

from storefront import request_stats

logger = logging.getLogger(__name__)

RecordType = Literal["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "SOA"]
EDITABLE_RECORD_TYPES: tuple[RecordType, ...] = ("A", "AAAA", "CNAME", "MX", "TXT")

# The provider answers these for an id that is unknown or belongs to another partner.
_NOT_FOUND_MESSAGES = {"Invalid order ID", "Invalid customer ID", "Invalid customer email"}


# --- Errors ------------------------------------------------------------------------------------------------


class GatewayError(Exception):
    """Root of everything the gateway raises.

    `message` is for the customer: the provider's own explanation where it is meant for them (a refused
    request), otherwise a plain sentence. `provider_message` is what the provider said, for staff and logs.
    """

    default_message = "The domain service could not complete the request."
    # Whether the provider's own text is fit for a customer (it explains a refusal) or only for staff.
    shows_provider_message = True

    def __init__(self, message: str = "", *, status: int | None = None, retryable: bool = False) -> None:
        self.provider_message = message
        self.message = (message if self.shows_provider_message else "") or self.default_message
        self.status = status
        # True where asking again may succeed (a dropped connection, a gateway timeout): GETs only.
        self.retryable = retryable
        super().__init__(self.provider_message or self.message)


class Unauthorized(GatewayError):
    """The key was refused (401/403): missing, invalid, revoked, expired or for the other environment."""

    # Customers cannot act on a refused key (and must not learn about it); staff see provider_message.
    default_message = "The domain service is unavailable right now. Please try again later."
    shows_provider_message = False


class NotFound(GatewayError):
    """The provider does not know the id (or it belongs to another partner)."""

    default_message = "Not found."


class ValidationRejected(GatewayError):
    """The provider refused the request as invalid; `message` is the provider's own explanation."""

    default_message = "The request was refused."


class CustomerExists(ValidationRejected):
    """Signup with an email the provider already has."""


class RateLimited(GatewayError):
    default_message = "The domain service is busy right now. Please wait a moment and try again."
    shows_provider_message = False

    def __init__(self, message: str = "", *, status: int | None = 429, retry_after: float | None = None) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class Unavailable(GatewayError):
    """The provider could not be reached or answered with a server error or an unreadable body."""

    default_message = "The domain service is unavailable right now. Please try again in a moment."
    shows_provider_message = False


class OutcomeUnknown(Unavailable):
    """A state-changing request may or may not have taken effect: the answer was lost.

    Never retry such a request blindly; reconcile from a listing first.
    """

    default_message = "We could not confirm the result with the domain service."


# --- Results ------------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class PricedSuggestion:
    """A row of `/domain-suggestions` (the main interface's priced suggestions)."""

    domain: str
    status: str
    type: str
    register: dict[int, Decimal]
    privacy: dict[int, Decimal]
    renew: Decimal | None
    slashed: Decimal | None
    renews_on: str


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

    @property
    def premium(self) -> bool:
        # Premium names are shown with a price but cannot be registered through the interface.
        return not self.available and self.pricing is not None


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


# --- Circuit breaker ----------------------------------------------------------------------------------------


class CircuitBreaker:
    """Fails fast for a while after repeated failures, so pages answer at once instead of waiting on timeouts.

    Only failures of the service itself count (unreachable, timeouts, 5xx, unreadable bodies); a refusal such
    as a 422 proves the service is up. After `cooldown` seconds one trial call goes through; its success
    closes the breaker again.
    """

    def __init__(self, *, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False

    def before_call(self) -> None:
        with self._lock:
            if self._opened_at is None:
                return
            if self._clock() - self._opened_at < self.cooldown or self._trial_running:
                raise Unavailable(status=None)
            self._trial_running = True  # half-open: let this one call find out

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial_running = False

    def failed(self) -> None:
        with self._lock:
            self._failures += 1
            self._trial_running = False
            if self._failures >= self.threshold:
                if self._opened_at is None:
                    logger.warning("provider circuit opened after %d failures", self._failures)
                self._opened_at = self._clock()


# --- The client ---------------------------------------------------------------------------------------------


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
        search_read_timeout: float | None = None,
        max_concurrent_calls: int = 0,
        breaker_threshold: int = 5,
        breaker_cooldown: float = 30.0,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.metasearch_url = metasearch_url.rstrip("/")
        self._api_key = api_key
        self.timeout = (connect_timeout, read_timeout)
        # MetaSearch answers while the customer types; when it hangs, the page falls back to the availability
        # endpoint, so it gets a shorter wait and one retry at most.
        self.search_timeout = (connect_timeout, search_read_timeout or read_timeout)
        self.get_retries = get_retries
        # A bulkhead: at most this many calls in flight per process (0: no limit). Kept below the web server's
        # thread count, so a slow provider can hold only some threads and pages that need no provider call
        # still find a free one.
        self._slots = threading.BoundedSemaphore(max_concurrent_calls) if max_concurrent_calls > 0 else None
        self.session = session or _new_session()
        # One breaker per service: MetaSearch being down must not stop registrations, and the reverse.
        self.breakers = {
            url: CircuitBreaker(threshold=breaker_threshold, cooldown=breaker_cooldown)
            for url in (self.base_url, self.metasearch_url)
        }

    def __repr__(self) -> str:
        return f"<ResellerGateway {self.base_url}>"

    @property
    def is_test_key(self) -> bool:
        return key_environment(self._api_key) == "test"

    # Health -------------------------------------------------------------------------------------------------

    def hello(self) -> Hello:
        data = self._get("/api/v1/hello")
        return Hello(server_time=str(data.get("server_time", "")), message=str(data.get("message", "")))

    # Pricing ------------------------------------------------------------------------------------------------

    def pricing(self) -> PriceList:
        """The partner's cost prices, in USD (the provider quotes no other currency)."""
        data = self._get("/api/v1/pricing")
        tlds: dict[str, TldPrices] = {}
        privacy = None
        for slug, value in data.items():
            if slug == "privacy_protection":
                privacy = _decimal(value)
            elif isinstance(value, dict) and slug.startswith("dot") and len(slug) > 3:
                tld = slug.removeprefix("dot")
                tlds[tld] = TldPrices(
                    tld=tld,
                    register=_price_map(value.get("register")),
                    renew=_price_map(value.get("renew")),
                    transfer=_price_map(value.get("transfer")),
                    restore=_price_map(value.get("restore")),
                )
        return PriceList(currency="USD", tlds=tlds, privacy_protection=privacy)

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
        data = self._post("/api/v1/customers/signup", body, exists_is_duplicate=True)
        return CustomerCreated(customer_id=_int(data, "customer_id"), message=str(data.get("message", "")))

    def customer_auto_login(self, *, email: str) -> AutoLoginToken:
        data = self._post("/api/v1/customers/auto-login", {"email": email})
        return AutoLoginToken(
            email=str(data.get("email", email)), token=_str(data, "token"), expires_at=str(data.get("expires_at", ""))
        )

    # Search -------------------------------------------------------------------------------------------------

    def domain_availability(self, *, search_terms: str | Sequence[str], tlds: Sequence[str] = ()) -> list[DomainResult]:
        params: list[tuple[str, str]] = _term_params(search_terms)
        params += [("tlds[]", tld) for tld in tlds]
        data = self._get("/api/v1/domains/availability", params)
        return [_domain_result(row) for row in _list(data, "results")]

    def domain_suggestions(self, *, search_term: str, tlds: Sequence[str] = ()) -> list[DomainResult]:
        params = [("search_term", search_term)]
        if len(tlds) == 1:
            params.append(("tld", tlds[0]))
        else:
            params += [("tld[]", tld) for tld in tlds]
        data = self._get("/api/v1/domains/suggestions", params)
        return [_domain_result(row) for row in _list(data, "results")]

    def priced_suggestions(self, *, search_term: str, tlds: Sequence[str] = ()) -> list[PricedSuggestion]:
        """`GET {base_url}/domain-suggestions`: the one path without the /api/v1 prefix."""
        params = [("search_term", search_term)] + [("tlds[]", tld) for tld in tlds]
        data = self._get("/domain-suggestions", params)
        return [_priced_suggestion(row) for row in _list(data, "results")]

    def metasearch(
        self,
        *,
        search_term: str,
        autosuggest: bool = True,
        aisuggest: bool = True,
        read_timeout: float | None = None,
    ) -> MetaSearch:
        # AI suggestions take seconds on a cache miss: their caller asks separately with a longer read_timeout.
        timeout = self.search_timeout if read_timeout is None else (self.search_timeout[0], read_timeout)
        params = [
            ("search_term", search_term),
            ("autosuggest", _bool_param(autosuggest)),
            ("aisuggest", _bool_param(aisuggest)),
        ]
        data = self._get(
            "/v1/search",
            params,
            base=self.metasearch_url,
            timeout=timeout,
            retries=min(self.get_retries, 1),
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
        data = self._post("/api/v1/domains/register", body)
        return Registered(order_id=_int(data, "order_id"), message=str(data.get("message", "")))

    def domain_orders(self, *, customer_id: int, page: int = 1, search: str = "") -> OrderPage:
        params = [("customer_id", str(int(customer_id))), ("page", str(int(page)))]
        if search:
            params.append(("search", search))
        data = self._get("/api/v1/domains/orders", params)
        orders = [_order(row) for row in _list(data, "orders")]
        return OrderPage(
            total_orders=int(data.get("total_orders") or 0),
            orders_on_page=int(data.get("orders_on_page") or len(orders)),
            orders=orders,
        )

    def domain_renew(self, *, order_id: int, duration: int, expiry_timestamp: int) -> Ack:
        body = {"order_id": int(order_id), "duration": int(duration), "expiry_timestamp": int(expiry_timestamp)}
        return _ack(self._post("/api/v1/domains/renew", body))

    # DNS ----------------------------------------------------------------------------------------------------

    def dns_activate(self, *, order_id: int) -> Ack:
        return _ack(self._post("/api/v1/dns/activate", {"order_id": int(order_id)}))

    def dns_records(self, *, order_id: int, record_type: RecordType = "A") -> list[DnsRecord]:
        params = [("order_id", str(int(order_id))), ("record_type", record_type)]
        data = self._get("/api/v1/dns/dns-records", params)
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
        return _ack(self._send("POST", _record_path(record_type), body))

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
        return _ack(self._send("PUT", _record_path(record_type), body))

    def dns_record_delete(self, *, order_id: int, record_type: RecordType, value: str, host: str = "") -> Ack:
        body = {"order_id": int(order_id), "value": value, "host": host or "@"}
        return _ack(self._send("DELETE", _record_path(record_type), body))

    # Transfers ----------------------------------------------------------------------------------------------

    def transfer_auth_code(self, *, order_id: int) -> TransferCode:
        data = self._get("/api/v1/transfers/auth-code", [("order_id", str(int(order_id)))])
        return TransferCode(order_id=_int(data, "order_id"), transfer_code=_str(data, "transfer_code"))

    # Transport ----------------------------------------------------------------------------------------------

    def _get(
        self,
        path: str,
        params: Sequence[tuple[str, str]] = (),
        *,
        base: str | None = None,
        timeout: tuple[float, float] | None = None,
        retries: int | None = None,
    ) -> dict[str, Any]:
        url = (base or self.base_url) + path
        max_retries = self.get_retries if retries is None else retries
        attempt = 0
        while True:
            try:
                return self._call("GET", url, params=params, timeout=timeout)
            except (Unavailable, RateLimited) as err:
                # A GET changes nothing, so a bounded retry with backoff is safe; but a deterministic server
                # failure (500 with a body, a malformed body) will not get better by asking again.
                if attempt >= max_retries or not err.retryable:
                    raise
                attempt += 1
                time.sleep(min(0.1 * 2**attempt, 1.0))

    def _post(self, path: str, body: Mapping[str, Any], *, exists_is_duplicate: bool = False) -> dict[str, Any]:
        return self._send("POST", path, body, exists_is_duplicate=exists_is_duplicate)

    def _send(
        self, method: str, path: str, body: Mapping[str, Any], *, exists_is_duplicate: bool = False
    ) -> dict[str, Any]:
        # Never retried: the provider may have acted on a request whose answer we lost.
        return self._call(method, self.base_url + path, json_body=body, exists_is_duplicate=exists_is_duplicate)

    def _call(
        self,
        method: str,
        url: str,
        *,
        params: Sequence[tuple[str, str]] = (),
        json_body: Mapping[str, Any] | None = None,
        exists_is_duplicate: bool = False,
        timeout: tuple[float, float] | None = None,
    ) -> dict[str, Any]:
        changes_state = method != "GET"
        path = _path_of(url)
        breaker = self._breaker_for(url)
        try:
            breaker.before_call()
        except Unavailable:
            logger.warning("provider %s %s skipped: circuit open", method, path)
            raise
        started = time.perf_counter()
        try:
            with self._call_slot(method, path):
                response = self._exchange(
                    method, url, params=params, json_body=json_body, timeout=timeout or self.timeout
                )
        except requests.RequestException as err:
            elapsed = time.perf_counter() - started
            record_provider_call(elapsed)
            sent = _may_have_been_sent(err)
            logger.warning("provider %s %s failed after %.0f ms: %s", method, path, elapsed * 1000, type(err).__name__)
            breaker.failed()
            if changes_state and sent:
                raise OutcomeUnknown() from err
            # A refused or reset connection may work on the next try; a provider too slow to answer will not
            # get faster by being asked again, and the customer would wait twice as long.
            raise Unavailable(retryable=not isinstance(err, requests.ReadTimeout)) from err
        elapsed = time.perf_counter() - started
        record_provider_call(elapsed)
        logger.info("provider %s %s %s in %.0f ms", method, path, response.status_code, elapsed * 1000)
        try:
            data = _interpret(response, changes_state=changes_state, exists_is_duplicate=exists_is_duplicate)
        except Unavailable:
            breaker.failed()
            raise
        except GatewayError:
            breaker.succeeded()  # the service answered deliberately: it is up
            raise
        breaker.succeeded()
        return data

    def _exchange(
        self,
        method: str,
        url: str,
        *,
        params: Sequence[tuple[str, str]],
        json_body: Mapping[str, Any] | None,
        timeout: tuple[float, float],
    ) -> requests.Response:
        headers = {"Authorization": f"Bearer {self._api_key}", "Accept": "application/json"}
        arguments = {"params": list(params) or None, "json": json_body, "headers": headers, "timeout": timeout}
        if method == "GET":
            return self.session.request(method, url, **arguments)
        # A state-changing call never reuses a kept-alive connection: one the provider closes just as we send
        # would leave the outcome unknown. A connection of its own costs a handshake on the rare POST, PUT or
        # DELETE, and spares an order or a signup a reconciliation.
        with requests.Session() as once:
            return once.request(method, url, **{**arguments, "headers": {**headers, "Connection": "close"}})

    @contextmanager
    def _call_slot(self, method: str, path: str) -> Iterator[None]:
        """Hold one of the process's call slots for the exchange; none free: fail fast, nothing sent."""
        if self._slots is None:
            yield
            return
        if not self._slots.acquire(blocking=False):
            logger.warning("provider %s %s skipped: every call slot is busy", method, path)
            raise Unavailable()
        try:
            yield
        finally:
            self._slots.release()

    def _breaker_for(self, url: str) -> CircuitBreaker:
        if url.startswith(self.metasearch_url + "/"):
            return self.breakers[self.metasearch_url]
        return self.breakers[self.base_url]


def _interpret(response: requests.Response, *, changes_state: bool, exists_is_duplicate: bool) -> dict[str, Any]:
    status = response.status_code
    try:
        data = response.json(parse_float=Decimal)
    except ValueError:
        data = None
    message = _error_text(data)

    if 200 <= status < 300:
        if not isinstance(data, dict):
            if changes_state:
                raise OutcomeUnknown(status=status)
            raise Unavailable("The domain service sent an unreadable answer.", status=status)
        return data
    if status in (401, 403):
        raise Unauthorized(message, status=status)
    if status == 429:
        raise RateLimited(status=status, retry_after=_retry_after(response))
    if status >= 500:
        if message.startswith("Signup Failed"):
            # The provider reports refused signup details as a 500 with this message (see its OpenAPI).
            raise ValidationRejected(message, status=status)
        if changes_state:
            raise OutcomeUnknown(message, status=status)
        raise Unavailable(message, status=status, retryable=status in (502, 503, 504))
    if data is None:
        # A 4xx that is not the provider's JSON (a proxy's page): the request was turned away unhandled.
        raise Unavailable(status=status)
    if message in _NOT_FOUND_MESSAGES:
        raise NotFound(message, status=status)
    if exists_is_duplicate and status == 422 and message == "User already exists":
        raise CustomerExists(message, status=status)
    raise ValidationRejected(message, status=status)


def _error_text(data: Any) -> str:
    """The provider's message from either main-interface shape, or MetaSearch's `{error}`."""
    if isinstance(data, dict):
        for key in ("message", "error"):
            value = data.get(key)
            if isinstance(value, str) and value:
                return value
    return ""


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _may_have_been_sent(err: requests.RequestException) -> bool:
    """False only when the request certainly never reached the provider (no connection was made)."""
    if isinstance(err, requests.ConnectTimeout):
        return False
    if isinstance(err, requests.ConnectionError):
        reason = str(err.args[0] if err.args else err)
        never_connected = ("NewConnectionError", "NameResolutionError", "Connection refused")
        return not any(marker in reason for marker in never_connected)
    return True


def _path_of(url: str) -> str:
    return requests.utils.urlparse(url).path


def _new_session() -> requests.Session:
    session = requests.Session()
    # Retries are ours (GET only); the adapter keeps a pool of keep-alive connections per host.
    adapter = HTTPAdapter(pool_connections=4, pool_maxsize=32, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


# --- Parsing helpers ----------------------------------------------------------------------------------------


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


def _bool_param(value: bool) -> str:
    return "true" if value else "false"


def _term_params(search_terms: str | Sequence[str]) -> list[tuple[str, str]]:
    if isinstance(search_terms, str):
        return [("search_term", search_terms)]
    if len(search_terms) == 1:
        return [("search_term", search_terms[0])]
    return [("search_term[]", term) for term in search_terms]


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


def _priced_suggestion(row: Mapping[str, Any]) -> PricedSuggestion:
    pricing = row.get("pricing") or {}
    return PricedSuggestion(
        domain=str(row.get("domain", "")),
        status=str(row.get("status", "")),
        type=str(row.get("type", "")),
        register=_price_map(pricing.get("register")),
        privacy=_price_map(pricing.get("privacy")),
        renew=_decimal(pricing.get("renew")),
        slashed=_decimal(pricing.get("slashed")),
        renews_on=str(row.get("renews_on", "")),
    )


def _metasearch_result(row: Mapping[str, Any]) -> MetaSearchResult:
    pricing = row.get("pricing")
    return MetaSearchResult(
        domain_name=str(row.get("domain_name", "")),
        sld=str(row.get("sld", "")),
        tld=str(row.get("tld", "")),
        available=bool(row.get("available")),
        type=str(row.get("type", "result")),
        is_searched_exact=bool(row.get("is_searched_exact")),
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
        time_to_live=int(ttl) if ttl not in (None, "") else None,
        status=str(row.get("status", "")),
        priority=int(priority) if priority not in (None, "") else None,
    )


def _ack(data: Mapping[str, Any]) -> Ack:
    return Ack(status=str(data.get("status", "SUCCESS")), message=str(data.get("message", "")))


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


# --- Per-request accounting (read by the request log) -------------------------------------------------------


def record_provider_call(seconds: float) -> None:
    request_stats.add_provider_call(seconds)


# --- The configured instance --------------------------------------------------------------------------------


@cache
def gateway() -> ResellerGateway:
    """The gateway configured from settings; one per process, so connections are pooled and reused."""
    return ResellerGateway(
        base_url=settings.RESELLER_BASE_URL,
        metasearch_url=settings.RESELLER_METASEARCH_URL,
        api_key=settings.RESELLER_API_KEY,
        connect_timeout=settings.RESELLER_CONNECT_TIMEOUT,
        read_timeout=settings.RESELLER_READ_TIMEOUT,
        get_retries=settings.RESELLER_GET_RETRIES,
        search_read_timeout=settings.RESELLER_SEARCH_READ_TIMEOUT,
        max_concurrent_calls=settings.RESELLER_MAX_CONCURRENT_CALLS,
        breaker_threshold=settings.RESELLER_BREAKER_FAILURES,
        breaker_cooldown=settings.RESELLER_BREAKER_SECONDS,
    )


def _forget_gateway(*, setting: str, **_: Any) -> None:
    if setting.startswith("RESELLER_"):
        gateway.cache_clear()


setting_changed.connect(_forget_gateway)
