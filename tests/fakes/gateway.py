"""An in-memory stand-in for the provider client (`storefront.gateway.ResellerGateway`), for page and service tests.

Same public methods, same keyword arguments, same typed results and the same exceptions as the real client, with
the provider's state held in memory: customers, orders, DNS zones, the catalogue (prices, minimum terms, taken and
premium names) and the partner's balance. The rules follow the built-in sandbox's documented behaviour
(sandbox/README.md) closely enough that tests/storefront/test_gateway_contract_shared.py runs the same scenarios
against this fake and against the real client talking to the sandbox: if either drifts, that test fails.

What the fake adds for tests:
- `calls`: every public method called, in order, with its keyword arguments (`called(name)` counts them);
- `fail(method, error, times=..., after=...)`: the next call(s) of a method raise `error` (an instance or class of
  the gateway's exceptions: Unavailable, OutcomeUnknown, RateLimited, a refusal). `after=True` makes the call take
  effect first and then lose its answer, as a registration whose answer was lost does;
- arrangement helpers named as `tests.sandbox_control.SandboxControl`'s (`set_balance`, `set_min_term`, `reserve`,
  `order`, `orders`, `set_order`, `customers`, `listed_orders`; `zone_records` is its `dns_records`).
"""

from __future__ import annotations

import calendar
import datetime as dt
import ipaddress
import itertools
import re
import secrets
import string
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from storefront.gateway import (
    CONTACT_FIELDS,
    CONTACT_ROLES,
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
    Gateway,
    GatewayError,
    Hello,
    MetaSearch,
    MetaSearchMeta,
    MetaSearchResult,
    Order,
    OrderPage,
    OutcomeUnknown,
    PriceList,
    Pricing,
    PrivacyChanged,
    PrivacyProtection,
    RateLimited,
    RecordType,
    Registered,
    TldPrices,
    TransferCode,
    TransferLock,
    Unavailable,
    ValidationRejected,
    refusal_class,
    requires_capability,
)
from storefront.gateway.client import contact_owner
from storefront.gateway.results import EDITABLE_RECORD_TYPES
from storefront.site.capabilities import (
    CONTACTS,
    CUSTOMER_DETAILS,
    DOMAIN_DELETE,
    DOMAIN_DETAILS,
    PRIVACY,
    TRANSFER_LOCK,
)

LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_UNSAFE = re.compile(r"[^a-z0-9.-]")
PAGE_SIZE = 10
VISIBLE = 10
DEFAULT_PREMIUM_PRICE = Decimal("2499.00")
NAMESERVERS = ("ns1.sandbox-dns.test", "ns2.sandbox-dns.test")
PRICED_TERMS = (1, 2, 3, 5, 10)
DEMO_PARTNER = "Demo Reseller"
LISTED_STATUSES = ("Active", "Suspended", "Pending Delete Restorable", "Expired")
SIGNUP_FAILED = "Signup Failed, please ensure that all the fields are valid and in English"


@dataclass
class Tld:
    register: Decimal
    renew: Decimal
    privacy: Decimal = Decimal("4.99")
    slashed: Decimal | None = None
    free_first_year: bool = False
    min_term: int = 1

    @property
    def first_year(self) -> Decimal:
        return Decimal("0.00") if self.free_first_year else self.register

    def register_cost(self, years: int) -> Decimal:
        return self.first_year + self.renew * (years - 1)


def demo_catalogue() -> dict[str, Tld]:
    """The sandbox's demo partner's catalogue (sandbox_seed), in its order: the first TLD is the featured one."""
    d = Decimal
    return {
        "com": Tld(d("12.99"), d("14.99"), d("4.99"), d("17.99")),
        "net": Tld(d("13.99"), d("15.99")),
        "org": Tld(d("11.99"), d("13.99")),
        "io": Tld(d("39.99"), d("49.99"), d("0.00"), d("54.99")),
        "co": Tld(d("24.99"), d("29.99")),
        "dev": Tld(d("15.99"), d("15.99"), d("0.00")),
        "shop": Tld(d("29.99"), d("29.99"), d("4.99"), d("34.99"), free_first_year=True),
        "ai": Tld(d("79.99"), d("79.99"), d("0.00"), min_term=2),
        "app": Tld(d("17.99"), d("17.99"), d("0.00")),
        "xyz": Tld(d("2.99"), d("12.99"), d("4.99"), d("9.99")),
    }


DEMO_TAKEN = ("example.com", "google.com", "shop.com", "amazon.com", "openai.ai")
DEMO_PREMIUM = {
    "cars.com": Decimal("25000.00"),
    "ai.ai": Decimal("9999.00"),
    "hotels.com": Decimal("15000.00"),
    "best.shop": Decimal("1200.00"),
}


@dataclass
class FakeCustomer:
    customer_id: int
    email: str
    details: dict[str, str]
    contacts: dict[str, Contact] = field(default_factory=dict)  # the customer's defaults, set by contacts_set

    def contact(self) -> Contact:
        """The customer's own details as a contact: what every role of their domains is until set otherwise."""
        fields = {name: self.details.get(name, "") for name in CONTACT_FIELDS}
        return Contact(**{**fields, "email": self.email})


@dataclass
class FakeOrder:
    """An order as the fake provider holds it (the fields of tests.sandbox_control.SandboxOrder)."""

    order_id: int
    customer_id: int
    domain_name: str
    duration: int
    status: str
    created_at: dt.datetime
    expires_at: dt.datetime
    transfer_code: str
    dns_active: bool = False
    records: list[FakeRecord] = field(default_factory=list)
    partner: str = "Demo Reseller"
    transfer_lock: bool = True
    privacy_enabled: bool = False
    privacy_expires_at: dt.datetime | None = None
    contacts: dict[str, Contact] = field(default_factory=dict)

    def privacy_purchased(self, now: dt.datetime) -> bool:
        return self.privacy_expires_at is not None and self.privacy_expires_at > now

    @property
    def expiry_timestamp(self) -> int:
        return int(self.expires_at.timestamp())

    def listed_status(self, now: dt.datetime) -> str:
        return "Expired" if self.expires_at < now else self.status


@dataclass
class FakeRecord:
    """A DNS record as the fake provider holds it (the fields of tests.sandbox_control.SandboxRecord)."""

    type: str
    host: str
    value: str
    time_to_live: int
    priority: int | None = None
    status: str = "Active"


class Call(NamedTuple):
    """One call of a public method: its name and keyword arguments (unpacks as `name, kwargs`)."""

    method: str
    kwargs: dict[str, Any]


@dataclass
class _Failure:
    method: str
    error: GatewayError | type[GatewayError]
    times: int | None
    after: bool


def _refusal(text: str, *, endpoint: str, status: int = 422) -> GatewayError:
    return refusal_class(endpoint=endpoint, text=text)(text, status=status)


def _add_years(moment: dt.datetime, years: int) -> dt.datetime:
    year = moment.year + years
    return moment.replace(year=year, day=min(moment.day, calendar.monthrange(year, moment.month)[1]))


def _transfer_code() -> str:
    classes = [string.ascii_uppercase, string.ascii_lowercase, string.digits, "#!@$%*+"]
    chars = [secrets.choice(group) for group in classes] + [secrets.choice("".join(classes)) for _ in range(8)]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def _money(value: Decimal) -> str:
    return f"${value:,.2f}"


def _coined(label: str, words: Callable[[str], list[str]]) -> list[str]:
    """Names coined around a label, as the sandbox coins them: an A-label (`xn--caf-dma`) is varied as the word it
    spells (`café`) and each result encoded again; an `xn--` label that is not punycode gets none."""
    word = label
    if label.startswith("xn--"):
        try:
            word = label[4:].encode("ascii").decode("punycode")
        except UnicodeError:
            return []
        if not word or word.isascii():
            return []
    coined = (w if w.isascii() else "xn--" + w.encode("punycode").decode("ascii") for w in words(word))
    return list(dict.fromkeys(name for name in coined if name != label and LABEL.match(name)))


def _variations(label: str) -> list[str]:
    return _coined(label, lambda w: [f"get{w}", f"{w}hq", f"my{w}", f"{w}online", f"the{w}", f"{w}app"])


def _ai_names(label: str) -> list[str]:
    return _coined(label, lambda w: [f"{w}hub", f"{w}lab", f"smart{w}", f"{w}ly", f"{w}ify"])


class FakeGateway:
    """The provider in memory. `now` is read through `clock` so time-machine moves it with everything else."""

    def __init__(self, *, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self.tlds: dict[str, Tld] = demo_catalogue()
        self.taken: set[str] = set(DEMO_TAKEN)
        self.premium: dict[str, Decimal] = dict(DEMO_PREMIUM)
        self.balance = Decimal("100000.00")
        self.customers_by_id: dict[int, FakeCustomer] = {}
        self.orders_by_id: dict[int, FakeOrder] = {}
        self.calls: list[Call] = []
        self._failures: list[_Failure] = []
        self._latency: dict[str, float] = {}
        self._customer_ids = itertools.count(10_000_001)
        self._order_ids = itertools.count(100_000_001)

    def __repr__(self) -> str:
        return "<FakeGateway>"

    # --- Test controls -------------------------------------------------------------------------------------

    def fail(
        self,
        method: str,
        error: GatewayError | type[GatewayError],
        *,
        times: int | None = 1,
        after: bool = False,
    ) -> None:
        """The next `times` calls of `method` (None: every call) raise `error`; `after`: once the call took effect."""
        if not callable(getattr(type(self), method, None)):
            raise AttributeError(f"the gateway has no method {method!r}")
        self._failures.append(_Failure(method=method, error=error, times=times, after=after))

    @contextmanager
    def outage(self, *methods: str, error: GatewayError | type[GatewayError] | None = None) -> Iterator[None]:
        """Every call of `methods` (default: all) fails within the block, as when the provider answers 500: a read
        is Unavailable, a state-changing call an unknown outcome (the provider may have acted)."""
        names = methods or PROVIDER_METHODS
        failures = [
            _Failure(method=name, error=error or _server_error(name), times=None, after=False) for name in names
        ]
        self._failures[:0] = failures
        try:
            yield
        finally:
            self._failures = [f for f in self._failures if all(f is not g for g in failures)]

    @contextmanager
    def fault(
        self,
        *,
        scope: str = "",
        error_rate: float = 0.0,
        hang_seconds: float = 0.0,
        hang_after_commit: bool = False,
        malformed: bool = False,
        availability_down: bool = False,
        rate_limited: bool = False,
        latency_ms: int = 0,
        error_200_message: str = "",
    ) -> Iterator[None]:
        """The sandbox's faults (tests.sandbox_control.SandboxControl.fault), as the client would report them:
        a 500 (`error_rate`), a hang past the read timeout (`hang_seconds`; `hang_after_commit`: the call took
        effect first), a body that is not JSON (`malformed`), the availability backend down, 429 with Retry-After,
        `latency_ms` before acting, a refusal sent with 200 (`error_200_message`). `scope` names endpoint groups."""
        names = [name for group in scope.split(",") if group for name in SCOPES[group.strip()]] or PROVIDER_METHODS
        failures = []
        for name in names:
            error: GatewayError | None = None
            after = False
            changes = name in STATE_CHANGING
            if availability_down and name in ("metasearch", *SCOPES["availability"]):
                error = Unavailable("Domain availability service unavailable", status=503)
            elif rate_limited:
                error = RateLimited("Too Many Requests", retry_after=2.0)
            elif error_200_message:
                error = _refusal(error_200_message, endpoint=ENDPOINTS[name], status=200)
            elif error_rate >= 1:
                error = _server_error(name)
            elif hang_seconds:
                error = OutcomeUnknown() if changes else Unavailable("ReadTimeout")
                after = changes and hang_after_commit
            elif malformed:
                error = OutcomeUnknown(status=200) if changes else Unavailable("unreadable answer", status=200)
                after = changes
            if error is not None:
                failures.append(_Failure(method=name, error=error, times=None, after=after))
        latency = {name: latency_ms / 1000 for name in names} if latency_ms else {}
        self._failures[:0] = failures
        saved = dict(self._latency)
        self._latency.update(latency)
        try:
            yield
        finally:
            self._failures = [f for f in self._failures if all(f is not g for g in failures)]
            self._latency = saved

    def slow(self, method: str, seconds: float) -> None:
        """Each call of `method` takes `seconds` before it acts (for tests of concurrent requests)."""
        self._latency[method] = seconds

    def heal(self) -> None:
        """No more scripted failures."""
        self._failures.clear()

    def called(self, method: str | None = None, **kwargs: Any) -> int:
        """How many calls of `method` (any method: None) with at least these keyword arguments were made."""
        return sum(
            1
            for call in self.calls
            if method in (None, call.method) and all(call.kwargs.get(k) == v for k, v in kwargs.items())
        )

    def _enter(self, method: str, kwargs: dict[str, Any]) -> _Failure | None:
        self.calls.append(Call(method, dict(kwargs)))
        if method in self._latency:
            time.sleep(self._latency[method])
        for failure in self._failures:
            if failure.method == method and failure.times != 0:
                if failure.times is not None:
                    failure.times -= 1
                if not failure.after:
                    raise _instance(failure.error)
                return failure
        return None

    def _run(self, method: str, kwargs: dict[str, Any], body: Callable[[], Any]) -> Any:
        failure = self._enter(method, kwargs)
        result = body()
        if failure is not None:
            raise _instance(failure.error)
        return result

    # --- Arrangement (the names of tests.sandbox_control.SandboxControl) --------------------------------------

    # `partner` is accepted for SandboxControl's signatures: the fake holds one partner, the sandbox's demo one.
    def set_balance(self, amount: Decimal, *, partner: str = DEMO_PARTNER) -> None:
        self.balance = Decimal(amount)

    def partner_balance(self, *, partner: str = DEMO_PARTNER) -> Decimal:
        return self.balance

    def set_price(
        self, tld: str, *, register: Decimal | str, renew: Decimal | str, partner: str = DEMO_PARTNER
    ) -> None:
        """What the partner pays per year for `tld` from now on (the sandbox's CatalogueTld prices)."""
        self.tlds[tld].register = Decimal(register)
        self.tlds[tld].renew = Decimal(renew)

    def set_min_term(self, tld: str, years: int, *, partner: str = DEMO_PARTNER) -> None:
        self.tlds[tld].min_term = years

    def reserve(
        self, domain_name: str, *, kind: str, premium_price: Decimal | None = None, partner: str = DEMO_PARTNER
    ) -> None:
        if kind == "taken":
            self.taken.add(domain_name)
        else:
            self.premium[domain_name] = premium_price or DEFAULT_PREMIUM_PRICE

    def customers(self, email: str) -> list[FakeCustomer]:
        return [c for c in self.customers_by_id.values() if c.email.lower() == email.lower()]

    def orders(self, **lookups: Any) -> list[FakeOrder]:
        return [o for o in self.orders_by_id.values() if all(getattr(o, k) == v for k, v in lookups.items())]

    def order(self, order_id: int) -> FakeOrder:
        return self.orders_by_id[order_id]

    def listed_orders(self, domain_name: str) -> int:
        return len([o for o in self.orders(domain_name=domain_name) if o.status in LISTED_STATUSES])

    def set_order(self, order_id: int, *, status: str | None = None, expires_at: dt.datetime | None = None) -> None:
        order = self.orders_by_id[order_id]
        if status is not None:
            order.status = status
        if expires_at is not None:
            order.expires_at = expires_at

    def zone_records(self, order_id: int, **lookups: Any) -> list[FakeRecord]:
        """The zone as held (no call logged): SandboxControl's `dns_records`."""
        return [r for r in self.orders_by_id[order_id].records if all(getattr(r, k) == v for k, v in lookups.items())]

    def add_order(
        self, *, customer_id: int, domain_name: str, duration: int = 1, dns_active: bool = False, **fields: Any
    ) -> FakeOrder:
        """An order placed directly (no call logged, no balance taken), as if registered earlier."""
        now = self.clock().replace(microsecond=0)
        order = FakeOrder(
            order_id=next(self._order_ids),
            customer_id=customer_id,
            domain_name=domain_name,
            duration=duration,
            status="Active",
            created_at=now,
            expires_at=_add_years(now, duration),
            transfer_code=_transfer_code(),
        )
        for name, value in fields.items():
            setattr(order, name, value)
        self.orders_by_id[order.order_id] = order
        if dns_active:
            self._activate(order)
        return order

    def add_customer(self, *, email: str, **details: str) -> FakeCustomer:
        customer = FakeCustomer(customer_id=next(self._customer_ids), email=email, details=dict(details))
        self.customers_by_id[customer.customer_id] = customer
        return customer

    # --- The gateway's public methods --------------------------------------------------------------------------

    def hello(self) -> Hello:
        return self._run(
            "hello",
            {},
            lambda: Hello(server_time=f"{self.clock():%Y-%m-%d %H:%M:%S}", message="Authorized"),
        )

    def pricing(self) -> PriceList:
        def body() -> PriceList:
            tlds = {}
            for name, tld in self.tlds.items():
                terms = [t for t in PRICED_TERMS if t >= tld.min_term] or [tld.min_term]
                tlds[name] = TldPrices(
                    tld=name,
                    register={t: tld.register_cost(t) for t in terms},
                    renew={t: tld.renew * t for t in PRICED_TERMS},
                    transfer={1: tld.renew},
                    restore={1: Decimal("170.00")},
                )
            return PriceList(currency="USD", tlds=tlds, privacy_protection=self._privacy_price())

        return self._run("pricing", {}, body)

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
        details = {
            "name": name,
            "address": address,
            "city": city,
            "state": state,
            "country": country,
            "zipcode": zipcode,
            "country_code": country_code,
            "phone": phone,
            "company": company,
        }

        def body() -> CustomerCreated:
            if not _details_valid({**details, "email": email}) or not password.strip():
                raise _refusal(SIGNUP_FAILED, endpoint="signup", status=500)
            if self.customers(email):
                raise _refusal("User already exists", endpoint="signup")
            created = self.add_customer(email=email, **details)
            return CustomerCreated(customer_id=created.customer_id, message="Customer created")

        return self._run("customer_signup", {**details, "email": email, "password": password}, body)

    def customer_auto_login(self, *, email: str) -> AutoLoginToken:
        def body() -> AutoLoginToken:
            found = self.customers(email.strip())
            if not found:
                raise _refusal("Invalid customer email", endpoint="auto-login")
            expires = self.clock() + dt.timedelta(minutes=5)
            return AutoLoginToken(
                email=found[0].email, token=secrets.token_hex(32), expires_at=f"{expires:%Y-%m-%d %H:%M:%S}"
            )

        return self._run("customer_auto_login", {"email": email}, body)

    def domain_availability(self, *, search_terms: str | Sequence[str], tlds: Sequence[str] = ()) -> list[DomainResult]:
        def body() -> list[DomainResult]:
            labels = self._labels(search_terms)
            return [self._domain_result(label, tld) for label in labels for tld in self._pick(tlds)]

        return self._run("domain_availability", {"search_terms": search_terms, "tlds": tlds}, body)

    def metasearch(
        self,
        *,
        search_term: str,
        autosuggest: bool = True,
        aisuggest: bool = True,
        read_timeout: float | None = None,
    ) -> MetaSearch:
        kwargs = {"search_term": search_term, "autosuggest": autosuggest, "aisuggest": aisuggest}
        if read_timeout is not None:
            kwargs["read_timeout"] = read_timeout
        return self._run("metasearch", kwargs, lambda: self._metasearch(search_term, autosuggest, aisuggest))

    def domain_register(self, *, customer_id: int, domain_name: str, duration: int) -> Registered:
        def body() -> Registered:
            if int(customer_id) not in self.customers_by_id:
                raise _refusal("Invalid customer ID", endpoint="register")
            name = domain_name.strip().lower().rstrip(".")
            sld, _, tld_name = name.partition(".")
            tld = self.tlds.get(tld_name)
            unable = _refusal("Unable to register domain", endpoint="register")
            if tld is None or not LABEL.match(sld) or not tld.min_term <= int(duration) <= 10:
                raise unable
            if self._state(sld, tld_name) != "available":
                raise unable
            cost = tld.register_cost(int(duration))
            if cost > self.balance:
                raise unable
            self.balance -= cost
            order = self.add_order(customer_id=int(customer_id), domain_name=name, duration=int(duration))
            return Registered(order_id=order.order_id, message="Domain registered successfully")

        kwargs = {"customer_id": customer_id, "domain_name": domain_name, "duration": duration}
        return self._run("domain_register", kwargs, body)

    def domain_orders(self, *, customer_id: int, page: int = 1, search: str = "") -> OrderPage:
        def body() -> OrderPage:
            if int(customer_id) not in self.customers_by_id:
                raise _refusal("Invalid customer ID", endpoint="orders")
            now = self.clock()
            listed = [
                o
                for o in self.orders_by_id.values()
                if o.customer_id == int(customer_id)
                and o.status in LISTED_STATUSES
                and search.strip().lower() in o.domain_name
            ]
            listed.sort(key=lambda o: (o.created_at, o.order_id), reverse=True)
            start = (max(1, int(page)) - 1) * PAGE_SIZE
            rows = [
                Order(
                    order_id=o.order_id,
                    domain_name=o.domain_name,
                    status=o.listed_status(now),
                    expiry=f"{o.expires_at:%b} {o.expires_at.day}, {o.expires_at.year}",
                    expiry_timestamp=o.expiry_timestamp,
                )
                for o in listed[start : start + PAGE_SIZE]
            ]
            return OrderPage(total_orders=len(listed), orders_on_page=len(rows), orders=rows)

        return self._run("domain_orders", {"customer_id": customer_id, "page": page, "search": search}, body)

    def domain_renew(self, *, order_id: int, duration: int, expiry_timestamp: int) -> Ack:
        def body() -> Ack:
            order = self._listed_order(order_id, endpoint="renew")
            failed = _refusal("Failed to renew the domain order", endpoint="renew")
            if not 1 <= int(duration) <= 9:
                raise failed
            if int(expiry_timestamp) != order.expiry_timestamp:
                raise _refusal("Invalid current expiry timestamp", endpoint="renew")
            tld = self.tlds.get(order.domain_name.partition(".")[2])
            if order.status == "Pending Delete Restorable" or tld is None or int(duration) < tld.min_term:
                raise failed
            cost = tld.renew * int(duration)
            if cost > self.balance:
                raise failed
            self.balance -= cost
            order.expires_at = _add_years(order.expires_at, int(duration))
            if order.status == "Expired":
                order.status = "Active"
            return Ack(status="SUCCESS", message="Domain order renewed")

        kwargs = {"order_id": order_id, "duration": duration, "expiry_timestamp": expiry_timestamp}
        return self._run("domain_renew", kwargs, body)

    def dns_activate(self, *, order_id: int) -> Ack:
        def body() -> Ack:
            order = self._listed_order(order_id, endpoint="dns")
            if order.dns_active:
                raise _refusal("DNS service is already active", endpoint="dns")
            self._activate(order)
            return Ack(status="SUCCESS", message="DNS service activated successfully")

        return self._run("dns_activate", {"order_id": order_id}, body)

    def dns_records(self, *, order_id: int, record_type: RecordType = "A") -> list[DnsRecord]:
        def body() -> list[DnsRecord]:
            order = self._zone(order_id)
            return [
                DnsRecord(
                    type=r.type,
                    host=r.host,
                    value=r.value,
                    time_to_live=r.time_to_live,
                    status=r.status,
                    priority=r.priority if r.type in ("MX", "SRV") else None,
                )
                for r in order.records
                if r.type == record_type
            ]

        return self._run("dns_records", {"order_id": order_id, "record_type": record_type}, body)

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
        def body() -> Ack:
            _editable(record_type)
            order = self._zone(order_id)
            clean = _value(record_type, value)
            where = _host(host, order.domain_name)
            time_to_live = _ttl(ttl)
            if record_type == "CNAME" and where == "@":
                raise _refusal("A CNAME record is not allowed at the zone apex", endpoint="dns")
            same_host = [r for r in order.records if r.host == where]
            if any(r.type == record_type and r.value == clean for r in same_host):
                raise _refusal("Duplicate record found", endpoint="dns")
            if (record_type == "CNAME" and same_host) or any(r.type == "CNAME" for r in same_host):
                raise _refusal("A CNAME record cannot coexist with other records on the same host", endpoint="dns")
            order.records.append(
                FakeRecord(
                    type=record_type,
                    host=where,
                    value=clean,
                    time_to_live=time_to_live or 3600,
                    priority=(10 if priority is None else int(priority)) if record_type == "MX" else None,
                )
            )
            return Ack(status="SUCCESS", message="Record added successfully")

        kwargs = {"order_id": order_id, "record_type": record_type, "value": value, "host": host}
        return self._run("dns_record_add", {**kwargs, "ttl": ttl, "priority": priority}, body)

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
        def body() -> Ack:
            _editable(record_type)
            order = self._zone(order_id)
            where = _host(host, order.domain_name)
            record = _find(order, record_type, where, current_value)
            if record is None:
                raise _refusal("Failed to modify the record", endpoint="dns")
            clean = _value(record_type, new_value)
            time_to_live = _ttl(ttl)
            if clean != record.value and _find(order, record_type, where, clean) is not None:
                raise _refusal("Duplicate record found", endpoint="dns")
            record.value = clean
            if time_to_live is not None:
                record.time_to_live = time_to_live
            if priority is not None and record_type == "MX":
                record.priority = int(priority)
            return Ack(status="SUCCESS", message="Record modified successfully")

        kwargs = {
            "order_id": order_id,
            "record_type": record_type,
            "current_value": current_value,
            "new_value": new_value,
            "host": host,
            "ttl": ttl,
            "priority": priority,
        }
        return self._run("dns_record_modify", kwargs, body)

    def dns_record_delete(self, *, order_id: int, record_type: RecordType, value: str, host: str = "") -> Ack:
        def body() -> Ack:
            _editable(record_type)
            order = self._zone(order_id)
            try:
                where = _host(host, order.domain_name)
            except GatewayError:
                where = ""
            record = _find(order, record_type, where, value)
            if record is None:
                raise _refusal("Failed to delete the record", endpoint="dns")
            order.records.remove(record)
            return Ack(status="SUCCESS", message="Record deleted successfully")

        kwargs = {"order_id": order_id, "record_type": record_type, "value": value, "host": host}
        return self._run("dns_record_delete", kwargs, body)

    def transfer_auth_code(self, *, order_id: int) -> TransferCode:
        def body() -> TransferCode:
            order = self._listed_order(order_id, endpoint="transfer")
            return TransferCode(order_id=order.order_id, transfer_code=order.transfer_code)

        return self._run("transfer_auth_code", {"order_id": order_id}, body)

    # --- The provider's "coming soon" endpoints (the sandbox's design, sandbox/README.md) ---------------------

    @requires_capability(CUSTOMER_DETAILS)
    def customer_details(self, *, customer_id: int) -> CustomerDetails:
        def body() -> CustomerDetails:
            customer = self._customer(customer_id, endpoint="customer-details")
            return CustomerDetails(customer_id=customer.customer_id, **customer.contact().as_fields())

        return self._run("customer_details", {"customer_id": customer_id}, body)

    @requires_capability(CUSTOMER_DETAILS)
    def customer_details_update(self, *, customer_id: int, details: Contact) -> CustomerDetails:
        def body() -> CustomerDetails:
            customer = self._customer(customer_id, endpoint="customer-details")
            if not _details_valid(details.as_fields()):
                raise _refusal(SIGNUP_FAILED, endpoint="customer-details")
            if any(other is not customer for other in self.customers(details.email)):
                raise _refusal("User already exists", endpoint="customer-details")
            customer.email = details.email
            customer.details = {k: v for k, v in details.as_fields().items() if k != "email"}
            return CustomerDetails(customer_id=customer.customer_id, **customer.contact().as_fields())

        return self._run("customer_details_update", {"customer_id": customer_id, "details": details}, body)

    @requires_capability(CONTACTS)
    def contacts(self, *, order_id: int | None = None, customer_id: int | None = None) -> Contacts:
        owner = contact_owner(order_id, customer_id)
        return self._run("contacts", {"order_id": order_id, "customer_id": customer_id}, lambda: self._contacts(owner))

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
        owner = contact_owner(order_id, customer_id)
        given = {"registrant": registrant, "admin": admin, "tech": tech, "billing": billing}
        roles = {role: contact for role, contact in given.items() if contact is not None}
        if not roles:
            raise ValueError("contacts_set needs at least one contact")

        def body() -> Contacts:
            customer, order = self._contact_holder(owner)
            if order is not None and order.listed_status(self.clock()) != "Active":
                raise _refusal("Failed to update the contacts", endpoint="contacts")
            if not all(_details_valid(contact.as_fields()) for contact in roles.values()):
                raise _refusal(SIGNUP_FAILED, endpoint="contacts")
            (order or customer).contacts.update(roles)
            return self._contacts(owner)

        return self._run("contacts_set", {"order_id": order_id, "customer_id": customer_id, **given}, body)

    @requires_capability(PRIVACY)
    def privacy_purchase(self, *, order_id: int, duration: int) -> PrivacyChanged:
        def body() -> PrivacyChanged:
            order = self._listed_order(order_id, endpoint="privacy")
            now = self.clock().replace(microsecond=0)
            failed = _refusal("Failed to purchase privacy protection", endpoint="privacy")
            cost = self._privacy_price() * int(duration)
            if not 1 <= int(duration) <= 10 or order.listed_status(now) != "Active" or cost > self.balance:
                raise failed
            self.balance -= cost
            paid_until = order.privacy_expires_at
            order.privacy_expires_at = _add_years(max(now, paid_until) if paid_until else now, int(duration))
            order.privacy_enabled = True
            return PrivacyChanged(order.order_id, self._privacy(order), "Privacy protection purchased")

        return self._run("privacy_purchase", {"order_id": order_id, "duration": duration}, body)

    @requires_capability(PRIVACY)
    def privacy_set(self, *, order_id: int, enabled: bool) -> PrivacyChanged:
        def body() -> PrivacyChanged:
            order = self._listed_order(order_id, endpoint="privacy")
            now = self.clock()
            if order.listed_status(now) != "Active":
                raise _refusal("Failed to update privacy protection", endpoint="privacy")
            if not order.privacy_purchased(now):
                raise _refusal("Privacy protection has not been purchased for this domain", endpoint="privacy")
            order.privacy_enabled = bool(enabled)
            message = "Privacy protection enabled" if enabled else "Privacy protection disabled"
            return PrivacyChanged(order.order_id, self._privacy(order), message)

        return self._run("privacy_set", {"order_id": order_id, "enabled": enabled}, body)

    @requires_capability(DOMAIN_DETAILS)
    def domain_details(self, *, order_id: int) -> DomainDetails:
        def body() -> DomainDetails:
            order = self._listed_order(order_id, endpoint="domain-details")
            return DomainDetails(
                order_id=order.order_id,
                domain_name=order.domain_name,
                customer_id=order.customer_id,
                status=order.listed_status(self.clock()),
                registered_timestamp=int(order.created_at.timestamp()),
                expiry=f"{order.expires_at:%b} {order.expires_at.day}, {order.expires_at.year}",
                expiry_timestamp=order.expiry_timestamp,
                transfer_lock=order.transfer_lock,
                dns_active=order.dns_active,
                privacy=self._privacy(order),
            )

        return self._run("domain_details", {"order_id": order_id}, body)

    @requires_capability(DOMAIN_DELETE)
    def domain_delete(self, *, order_id: int) -> DomainDeleted:
        def body() -> DomainDeleted:
            order = self._listed_order(order_id, endpoint="domain-delete")
            if order.status not in ("Active", "Expired"):
                raise _refusal("Failed to delete the domain order", endpoint="domain-delete")
            order.status = "Pending Delete Restorable"
            return DomainDeleted(order.order_id, order.status, "Domain order deleted")

        return self._run("domain_delete", {"order_id": order_id}, body)

    @requires_capability(TRANSFER_LOCK)
    def transfer_lock_set(self, *, order_id: int, locked: bool) -> TransferLock:
        def body() -> TransferLock:
            order = self._listed_order(order_id, endpoint="transfer-lock")
            if order.listed_status(self.clock()) != "Active":
                raise _refusal("Failed to update the transfer lock", endpoint="transfer-lock")
            order.transfer_lock = bool(locked)
            return TransferLock(order.order_id, order.transfer_lock, f"Transfer lock {'en' if locked else 'dis'}abled")

        return self._run("transfer_lock_set", {"order_id": order_id, "locked": locked}, body)

    # --- Rules -------------------------------------------------------------------------------------------------

    def _privacy_price(self) -> Decimal:
        """The price list's one annual privacy price (as the sandbox: the highest of the catalogue's)."""
        return max((tld.privacy for tld in self.tlds.values()), default=Decimal("0.00"))

    def _privacy(self, order: FakeOrder) -> PrivacyProtection:
        purchased = order.privacy_purchased(self.clock())
        expiry = order.privacy_expires_at
        return PrivacyProtection(
            purchased=purchased,
            enabled=purchased and order.privacy_enabled,
            expiry_timestamp=int(expiry.timestamp()) if expiry else None,
        )

    def _customer(self, customer_id: int, *, endpoint: str) -> FakeCustomer:
        customer = self.customers_by_id.get(int(customer_id))
        if customer is None:
            raise _refusal("Invalid customer ID", endpoint=endpoint)
        return customer

    def _contact_holder(self, owner: dict[str, int]) -> tuple[FakeCustomer, FakeOrder | None]:
        if "order_id" in owner:
            order = self._listed_order(owner["order_id"], endpoint="contacts")
            return self.customers_by_id[order.customer_id], order
        return self._customer(owner["customer_id"], endpoint="contacts"), None

    def _contacts(self, owner: dict[str, int]) -> Contacts:
        customer, order = self._contact_holder(owner)
        own = order.contacts if order is not None else {}
        chosen = {role: own.get(role) or customer.contacts.get(role) or customer.contact() for role in CONTACT_ROLES}
        return Contacts(
            customer_id=customer.customer_id, order_id=order.order_id if order is not None else None, **chosen
        )

    def _state(self, sld: str, tld: str) -> str:
        name = f"{sld}.{tld}"
        registered = any(o.domain_name == name and o.status in LISTED_STATUSES for o in self.orders_by_id.values())
        if registered or sld.startswith("taken") or name in self.taken:
            return "taken"
        if sld.startswith("premium") or name in self.premium:
            return "premium"
        return "available"

    def _pick(self, requested: Sequence[str]) -> list[str]:
        names = (t.strip().lower().lstrip(".") for t in requested)
        picked = list(dict.fromkeys(name for name in names if name in self.tlds))
        return picked or list(self.tlds)[:1]

    def _labels(self, terms: str | Sequence[str]) -> list[str]:
        raw = [terms] if isinstance(terms, str) else list(terms)
        labels = [t.strip().lower() for t in raw if t.strip()]
        if not labels:
            raise _refusal("The search term field is required.", endpoint="search")
        for label in labels:
            if len(label) > 63:
                raise _refusal("The search term field must not be greater than 63 characters.", endpoint="search")
            if not LABEL.match(label):
                raise _refusal("The search term field format is invalid.", endpoint="search")
        return list(dict.fromkeys(labels))

    def _domain_result(self, sld: str, tld: str) -> DomainResult:
        state = self._state(sld, tld)
        return DomainResult(
            domain_name=f"{sld}.{tld}", sld=sld, tld=tld, available=state == "available", premium=state == "premium"
        )

    def _pricing(self, sld: str, name: str, state: str) -> Pricing | None:
        if state == "taken":
            return None
        tld = self.tlds[name]
        if state == "premium":
            price = self.premium.get(f"{sld}.{name}", DEFAULT_PREMIUM_PRICE)
            summary = f"Premium: {_money(price)} first year, then {_money(tld.renew)}/yr"
            return Pricing("USD", price, tld.renew, "year", False, summary)
        if tld.free_first_year:
            summary = f"Free for the first year, then {_money(tld.renew)}/yr"
        elif tld.first_year == tld.renew:
            summary = f"{_money(tld.first_year)}/yr"
        else:
            summary = f"{_money(tld.first_year)} first year, then {_money(tld.renew)}/yr"
        if tld.min_term > 1:
            summary += f" ({tld.min_term}-year minimum)"
        return Pricing("USD", tld.first_year, tld.renew, "year", tld.free_first_year, summary)

    def _row(self, sld: str, tld: str, kind: str, exact: bool = False) -> MetaSearchResult:
        state = self._state(sld, tld)
        return MetaSearchResult(
            domain_name=f"{sld}.{tld}",
            sld=sld,
            tld=tld,
            available=state == "available",
            type=kind,
            is_searched_exact=exact,
            pricing=self._pricing(sld, tld, state),
        )

    def _metasearch(self, search_term: str, autosuggest: bool, aisuggest: bool) -> MetaSearch:
        term = _UNSAFE.sub("", search_term.lower())
        if not term:
            raise _refusal(
                "search_term is required and must not be empty after sanitisation", endpoint="search", status=400
            )
        parts = [part for part in term.split(".") if part]
        label = parts[0] if parts else ""
        typed_tld = ".".join(parts[1:]) or None
        meta = MetaSearchMeta(search_term=term, typed_tld=typed_tld, autosuggest=autosuggest, aisuggest=aisuggest)
        if not LABEL.match(label) or not self.tlds:
            return MetaSearch([], 0, 0, meta, "No domains found for this search")
        featured, *others = list(self.tlds)
        exact = f"{label}.{typed_tld}" if typed_tld in self.tlds else None

        def shown(sld: str, tld: str) -> bool:
            return self._state(sld, tld) != "taken" or f"{sld}.{tld}" == exact

        others.sort(key=lambda tld: f"{label}.{tld}" != exact)
        listed = [(label, tld) for tld in others if shown(label, tld)]
        if autosuggest:
            listed += [(n, featured) for n in _variations(label) if self._state(n, featured) == "available"]
        ai: list[tuple[str, str]] = []
        if aisuggest:
            seen = {f"{s}.{t}" for s, t in [(label, featured), *listed]}
            tlds = [featured, *[t for t in self.tlds if t in ("ai", "io") and t != featured]]
            ai = [
                (n, t)
                for n in _ai_names(label)
                for t in tlds
                if self._state(n, t) == "available" and f"{n}.{t}" not in seen
            ][:5]
        results = [
            *([self._row(label, featured, "hero", f"{label}.{featured}" == exact)] if shown(label, featured) else []),
            *[self._row(s, t, "result", f"{s}.{t}" == exact) for s, t in listed],
            *[self._row(s, t, "ai_suggestion") for s, t in ai],
        ]
        return MetaSearch(results, len(listed), max(0, len(listed) - VISIBLE), meta, None)

    def _listed_order(self, order_id: int, *, endpoint: str) -> FakeOrder:
        order = self.orders_by_id.get(int(order_id))
        if order is None or order.status not in LISTED_STATUSES:
            raise _refusal("Invalid order ID", endpoint=endpoint)
        return order

    def _zone(self, order_id: int) -> FakeOrder:
        order = self._listed_order(order_id, endpoint="dns")
        if not order.dns_active:
            raise _refusal("DNS service is not active for this order", endpoint="dns")
        return order

    def _activate(self, order: FakeOrder) -> None:
        order.dns_active = True
        serial = f"{self.clock():%Y%m%d}01"
        order.records += [FakeRecord("NS", "@", ns, 86400) for ns in NAMESERVERS]
        soa = f"{NAMESERVERS[0]}. hostmaster.{order.domain_name}. {serial} 7200 3600 1209600 3600"
        order.records.append(FakeRecord("SOA", "@", soa, 3600))


STATE_CHANGING = (
    "customer_signup",
    "customer_auto_login",
    "domain_register",
    "domain_renew",
    "dns_activate",
    "dns_record_add",
    "dns_record_modify",
    "dns_record_delete",
    "customer_details_update",
    "contacts_set",
    "privacy_purchase",
    "privacy_set",
    "domain_delete",
    "transfer_lock_set",
)
PROVIDER_METHODS = (
    "hello",
    "pricing",
    "customer_signup",
    "customer_auto_login",
    "domain_availability",
    "metasearch",
    "domain_register",
    "domain_orders",
    "domain_renew",
    "dns_activate",
    "dns_records",
    "dns_record_add",
    "dns_record_modify",
    "dns_record_delete",
    "transfer_auth_code",
    "customer_details",
    "customer_details_update",
    "contacts",
    "contacts_set",
    "privacy_purchase",
    "privacy_set",
    "domain_details",
    "domain_delete",
    "transfer_lock_set",
)
DNS_METHODS = tuple(name for name in PROVIDER_METHODS if name.startswith("dns_"))
# The sandbox's endpoint groups (its faults' `scope`), as gateway methods.
SCOPES: dict[str, tuple[str, ...]] = {
    "availability": ("domain_availability",),
    "customers": ("customer_signup", "customer_auto_login", "customer_details", "customer_details_update"),
    "dns": DNS_METHODS,
    "hello": ("hello",),
    "metasearch": ("metasearch",),
    "orders": ("domain_orders", "domain_details"),
    "register": ("domain_register",),
    "renew": ("domain_renew",),
    "domains": ("domain_orders", "domain_register", "domain_renew", "domain_details", "domain_delete"),
    "pricing": ("pricing",),
    "transfers": ("transfer_auth_code", "transfer_lock_set"),
    "contacts": ("contacts", "contacts_set"),
    "privacy": ("privacy_purchase", "privacy_set"),
}
# The endpoint names the client reads refusal texts by (storefront/gateway/errors.py REFUSALS).
ENDPOINTS = {
    **{name: "search" for name in ("metasearch", "domain_availability")},
    **{name: "dns" for name in DNS_METHODS},
    "hello": "hello",
    "pricing": "pricing",
    "customer_signup": "signup",
    "customer_auto_login": "auto-login",
    "domain_register": "register",
    "domain_orders": "orders",
    "domain_renew": "renew",
    "transfer_auth_code": "transfer",
    "customer_details": "customer-details",
    "customer_details_update": "customer-details",
    "contacts": "contacts",
    "contacts_set": "contacts",
    "privacy_purchase": "privacy",
    "privacy_set": "privacy",
    "domain_details": "domain-details",
    "domain_delete": "domain-delete",
    "transfer_lock_set": "transfer-lock",
}


def _details_valid(details: dict[str, str]) -> bool:
    """The fake's reading of signup's rules (the sandbox checks each one): every field but the company given, and
    everything in English (ASCII)."""
    required = [value for name, value in details.items() if name != "company"]
    return all(value.strip() for value in required) and all(value.isascii() for value in details.values())


def _server_error(method: str) -> GatewayError:
    if method in STATE_CHANGING:
        return OutcomeUnknown("Server Error", status=500)
    return Unavailable("Server Error", status=500)


def _instance(error: GatewayError | type[GatewayError]) -> GatewayError:
    return error() if isinstance(error, type) else error


def _editable(record_type: str) -> None:
    if record_type not in EDITABLE_RECORD_TYPES:
        raise ValueError(f"{record_type} records cannot be changed through the interface")


def _host(value: str, zone: str) -> str:
    host = (value or "").strip().lower().rstrip(".")
    if host in ("", "@", zone):
        return "@"
    host = host.removesuffix(f".{zone}")
    labels = host.split(".")
    pattern = re.compile(r"^(?:\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$")
    if len(host) > 253 or not all(pattern.match(label) for label in labels) or "*" in labels[1:]:
        raise _refusal("Invalid host", endpoint="dns")
    return host


def _value(record_type: str, value: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _refusal("The value field is required", endpoint="dns")
    try:
        if record_type == "A":
            return str(ipaddress.IPv4Address(value.strip()))
        if record_type == "AAAA":
            return ipaddress.IPv6Address(value.strip()).compressed
    except ValueError as err:
        raise _refusal(f"Invalid {'IPv4' if record_type == 'A' else 'IPv6'} address", endpoint="dns") from err
    if record_type in ("CNAME", "MX"):
        name = value.strip().lower().rstrip(".")
        labels = name.split(".")
        pattern = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?$")
        if len(name) > 253 or len(labels) < 2 or not all(pattern.match(label) for label in labels):
            raise _refusal("Invalid hostname: a fully qualified domain name is expected", endpoint="dns")
        return name
    if len(value) > 4096:
        raise _refusal("TXT value must be at most 4096 characters", endpoint="dns")
    return value


def _ttl(ttl: int | None) -> int | None:
    if ttl is None:
        return None
    if int(ttl) < 300:
        raise _refusal("TTL must be at least 300 seconds", endpoint="dns")
    return int(ttl)


def _find(order: FakeOrder, record_type: str, host: str, raw: str) -> FakeRecord | None:
    try:
        value = _value(record_type, raw)
    except ValidationRejected:
        return None
    return next((r for r in order.records if (r.type, r.host, r.value) == (record_type, host, value)), None)


class CallLog:
    """The fake's calls from the moment the log was opened (calls made while fixtures set things up are left out).

    `count("dns_record_add")`, `names()`, `== []`, `len()`, `clear()`; `record_types_read()` for the DNS editor.
    """

    def __init__(self, fake: FakeGateway) -> None:
        self.fake = fake
        self.start = len(fake.calls)

    @property
    def calls(self) -> list[Call]:
        return self.fake.calls[self.start :]

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[Call]:
        return iter(self.calls)

    def __eq__(self, other: object) -> bool:
        return self.calls == other if isinstance(other, list) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<CallLog {[call.method for call in self.calls]}>"

    def __contains__(self, method: object) -> bool:
        return method in self.names()

    def clear(self) -> None:
        self.start = len(self.fake.calls)

    def names(self) -> list[str]:
        return [call.method for call in self.calls]

    def count(self, method: str | None = None, **kwargs: Any) -> int:
        return sum(
            1
            for call in self.calls
            if method in (None, call.method) and all(call.kwargs.get(k) == v for k, v in kwargs.items())
        )

    def record_types_read(self) -> list[str]:
        return [call.kwargs["record_type"] for call in self.calls if call.method == "dns_records"]


# The fake implements the gateway's protocol, as the client does: mypy checks this assignment, so a method the
# client gains (and callers use through `gateway()`) must be added here too.
_IMPLEMENTS: Gateway = FakeGateway()
