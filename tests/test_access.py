"""Who may reach every customer URL, and how: one table, three rules, and a URLconf with nothing left out.

- anonymous → sent to sign in (the URL comes back as `next`), and the provider is asked nothing;
- another customer's object (their domain, their checkout, a receipt that is not theirs) → 404, the provider asked
  nothing (the ownership check comes before any outside call);
- a method the URL does not take → 405, the provider asked nothing.

The provider is the in-memory one (tests/fakes/gateway.py), so "asked nothing" is its call log staying empty.

Every URL the project serves is classified here: a customer URL (the table), a public one (with why), staff's
(the admin), or a library's own (allauth's account pages, which guard themselves). A URL added to the URLconf and
not to one of these fails `test_every_url_is_classified`. The staff API's URLs are in a URLconf of their own, for
requests under /api/v1/ (reseller_api/middleware.py): both are read.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import Customer
from domains.models import Order, Registration
from reseller_api.middleware import API_URLCONF
from storefront.gateway import gateway
from storefront.requests.acting_rules import ACTING_RULE
from tests.conftest import CUSTOMER_PASSWORD
from tests.factories import RegistrationFactory

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Target:
    """The objects a URL may name: the signed-in customer's own, and another customer's."""

    order: Order
    checkout_id: uuid.UUID


@dataclass(frozen=True)
class Url:
    name: str
    methods: tuple[str, ...]  # what it takes (HEAD comes with GET)
    args: Callable[[Target], list[object]] | None = None  # None: it names no object
    back_to: str = ""  # where sign-in leads back to, when not the URL itself
    query: Callable[[Target], str] | None = None  # the object named in the query string instead
    urlconf: str | None = None  # None: the root URLconf

    def path(self, target: Target) -> str:
        path = reverse(self.name, args=self.args(target) if self.args else [], urlconf=self.urlconf)
        return f"{path}?{self.query(target)}" if self.query else path

    def __str__(self) -> str:
        return self.name


def _order(target: Target) -> list[object]:
    return [target.order.order_id]


URLS = [
    Url("orders", ("GET",)),
    Url("order_detail", ("GET",), _order),
    Url("orders_renew", ("POST",)),
    Url("orders_renewed", ("GET",), lambda t: [t.checkout_id]),  # a checkout that is not one of the customer's
    Url("order_renew", ("POST",), _order),
    Url("order_transfer_code", ("GET", "POST"), _order),
    Url("order_auto_renew", ("POST",), _order),
    Url("order_privacy", ("POST",), _order),
    Url("order_privacy_buy", ("POST",), _order),
    Url("order_verification_confirmed", ("POST",), _order),
    Url("dns", ("GET",), _order),
    Url("dns_activate", ("POST",), _order),
    Url("dns_add", ("POST",), _order),
    Url("dns_change", ("GET", "POST"), _order),
    Url("dns_delete", ("GET", "POST"), _order),
    Url("dns_preset", ("GET", "POST"), lambda t: [t.order.order_id, "server"]),
    Url("checkout_done", ("GET",), lambda t: [t.checkout_id]),
    Url("billing:receipt", ("GET",), lambda t: [987654]),  # a number that is not one of the customer's receipts
    Url("billing:credit_note", ("GET",), lambda t: [987654]),
    Url("billing:receipt_pdf", ("GET",), lambda t: [987654]),
    Url("billing:credit_note_pdf", ("GET",), lambda t: [987654]),
    Url("billing:receipt_facturx", ("GET",), lambda t: [987654]),
    Url("billing:receipt_xrechnung", ("GET",), lambda t: [987654]),
    Url("billing:credit_note_facturx", ("GET",), lambda t: [987654]),
    Url("billing:credit_note_xrechnung", ("GET",), lambda t: [987654]),
    Url("billing:billing", ("GET",)),
    Url("billing:card_remove", ("GET", "POST")),
    Url("billing:card_add", ("POST",)),
    Url("billing:card_added", ("GET",)),
    Url("billing:pay_due", ("GET",), lambda t: [t.checkout_id]),  # a checkout that is not one of the customer's
    Url("account", ("GET",)),
    Url("account_contact", ("GET", "POST")),
    Url("account_currency", ("POST",)),
    Url("account_tax", ("GET", "POST")),
    Url("account_export", ("GET",)),
    Url("account_delete", ("GET", "POST")),
    # What the provider cannot do yet, asked about one of the customer's domains (demand/views.py).
    Url("demand_wanted", ("GET", "POST"), lambda t: ["nameservers"], query=lambda t: f"order={t.order.order_id}"),
    # The panel button posts from a page; signing in leads back to that page (here: none, so the domains list).
    Url("panel", ("POST",), back_to="/orders/"),
]
OWNED = [url for url in URLS if url.args is not None]

# Served to anyone, each for a reason; none names a customer's object.
PUBLIC = {
    "home": "the shop's front page",
    "brand_css": "the brand colour, a stylesheet",
    "healthz": "the platform's liveness probe",
    "readyz": "the platform's readiness probe",
    "metrics": "Prometheus scrapes, with the bearer token only (a 404 otherwise: tests/storefront/test_metrics.py)",
    "legal_terms": "legal pages are public",
    "legal_privacy": "legal pages are public",
    "legal_agreement": "legal pages are public",
    "mailbox": "the development mailbox (refused outside development: tests/storefront/test_mailbox.py)",
    "set_language": "the language switcher",
    "signup": "signing up",
    "signup_states": "the signup form's state list",
    "records_preview": "the English spelling of what is typed in a contact form (computed, nothing stored or read)",
    "search": "searching",
    "search_suggestions": "searching",
    "cart": "a visitor's cart lives in the session",
    "cart_add": "a visitor's cart lives in the session",
    "cart_remove": "a visitor's cart lives in the session",
    "cart_update": "a visitor's cart lives in the session",
    "cart_privacy": "a visitor's cart lives in the session",
    "cart_promotion": "a visitor's cart (and its promotion code) lives in the session",
    "checkout": "the review is shown to visitors too (Buy asks to sign in)",
    "billing:stripe_webhook": "the payment service's webhook (its signature is checked)",
    # Both tested in tests/domains/orders/test_acting.py.
    "act_as_start": "staff begin acting as a customer: hijack's own permission check",
    "act_as_stop": "staff stop acting as a customer: only a session that is acting may",
    "reseller_api:openapi-json": "the staff API's OpenAPI description: its shape, no data (tests/reseller_api/)",
    "reseller_api:api-root": "always a 404 (django-ninja's root, by which it finds the API's own paths)",
}
# The staff API (/api/v1/, reseller_api/): a bearer key made in the admin, never a session; every request without
# one is a 401, a signed-in customer's or staff member's included (keys and scopes: tests/reseller_api/).
API = [
    Url("reseller_api:customers", ("GET",), urlconf=API_URLCONF),
    Url("reseller_api:customer", ("GET",), lambda t: [t.order.customer_id], urlconf=API_URLCONF),
    Url("reseller_api:domains", ("GET",), urlconf=API_URLCONF),
    Url("reseller_api:domain", ("GET",), _order, urlconf=API_URLCONF),
    Url("reseller_api:domain_auto_renew", ("POST",), _order, urlconf=API_URLCONF),
    Url("reseller_api:payments", ("GET",), urlconf=API_URLCONF),
    Url("reseller_api:ledger", ("GET",), urlconf=API_URLCONF),
    Url("reseller_api:activity", ("GET",), urlconf=API_URLCONF),
]
# Pages of a library that guards them itself (allauth: sign-in, password, email, two-factor pages).
LIBRARY_MODULES = ("allauth.", "django.views.generic.base", "django.contrib.flatpages.", "django.views.i18n")


# Each served view's rule while staff act as a customer, by route (filled by _served).
rules: dict[str, str | None] = {}


def _served() -> list[tuple[str, str, str]]:
    """(name, route, view module) of every URL pattern of the root URLconf and of the staff API's (which holds the
    root's too: each is listed once), admin's aside."""
    found: dict[tuple[str, str, str], None] = {}

    def walk(patterns, prefix: str, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = ":".join(part for part in (namespace, pattern.namespace or "") if part)
                walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                route = prefix + str(pattern.pattern)
                name = ":".join(part for part in (namespace, pattern.name or "") if part) if pattern.name else ""
                found[(name, route, pattern.callback.__module__)] = None
                rules[route] = getattr(pattern.callback, ACTING_RULE, None)

    walk(get_resolver().url_patterns, "", "")
    walk(get_resolver(API_URLCONF).url_patterns, "", "")
    return [row for row in found if not row[1].startswith("admin/")]


def test_every_url_is_classified():
    customer = {url.name for url in URLS + API}
    unclassified = [
        f"{name or '(unnamed)'} {route} ({module})"
        for name, route, module in _served()
        if name not in customer and name not in PUBLIC and not module.startswith(LIBRARY_MODULES)
    ]
    assert unclassified == [], "classify these URLs in tests/test_access.py: " + "; ".join(unclassified)
    served = {name for name, _, _ in _served()}
    assert not (customer | set(PUBLIC)) - served, "the table names URLs that are no longer served"


def test_every_view_says_whether_staff_acting_as_the_customer_may_use_it():
    """`@acting_allowed` or `@acting_refused` (storefront/requests/acting_rules.py) on every view, library pages
    included (storefront/urls.py marks allauth's): a new view without one fails here, so nobody has to remember a
    list."""
    served = _served()
    unmarked = [f"{name or '(unnamed)'} {route}" for name, route, _ in served if rules[route] is None]
    assert unmarked == [], "mark these views @acting_allowed or @acting_refused: " + "; ".join(unmarked)
    refused = {name for name, route, _ in served if rules[route] == "refused"}
    # What only the customer may do (accounts/staff/acting.py), each refused by its own view.
    assert {
        "order_transfer_code",
        "order_auto_renew",
        "order_renew",
        "orders_renew",
        "order_privacy_buy",
        "checkout",
        "panel",
        "account_delete",
        "billing:card_add",
        "billing:card_remove",
        "billing:pay_due",
        "account_change_password",
        "account_email",
        "mfa_activate_totp",
    } <= refused


METHODS = ("GET", "POST", "PUT", "DELETE")


def _targets(customer: Customer) -> Target:
    assert customer.customer_id is not None
    registered = gateway().domain_register(
        customer_id=customer.customer_id, domain_name=f"access{uuid.uuid4().hex[:8]}.com", duration=1
    )
    gateway().dns_activate(order_id=registered.order_id)
    order = Order.objects.create(
        order_id=registered.order_id, customer=customer, domain_name=f"{registered.order_id}.com", dns_active=True
    )
    registration = cast(Registration, RegistrationFactory(customer=customer, status="registered"))
    return Target(order=order, checkout_id=registration.checkout_id)


@pytest.fixture
def owner(fake_priced, customer) -> Customer:
    return customer


@pytest.fixture
def theirs(fake_priced, other_customer) -> Target:
    """Another customer's domain (DNS on) and checkout."""
    return _targets(other_customer)


@pytest.fixture
def mine(owner) -> Target:
    return _targets(owner)


def _send(client: Client, method: str, path: str, headers: dict[str, str] | None = None):
    return getattr(client, method.lower())(path, headers=headers or {})


def _sign_in(client: Client, customer: Customer) -> None:
    """Signed in, and just now (the transfer code and account deletion ask for the password again otherwise)."""
    client.force_login(customer.user)
    assert client.post("/accounts/reauthenticate/", {"password": CUSTOMER_PASSWORD}).status_code == 302


@pytest.mark.parametrize("url", URLS, ids=str)
def test_anonymous_is_sent_to_sign_in(client, url, theirs, provider_calls):
    for method in url.methods:
        response = _send(client, method, url.path(theirs))
        assert response.status_code == 302, f"{method} {url}"
        assert response["Location"].startswith(reverse("login")), f"{method} {url}"
        assert unquote(response["Location"]).endswith(f"next={url.back_to or url.path(theirs)}"), f"{method} {url}"
    assert provider_calls == []


@pytest.mark.parametrize("url", OWNED, ids=str)
def test_another_customers_object_is_not_found(client, url, owner, theirs, provider_calls):
    _sign_in(client, owner)
    for method in url.methods:
        for headers in ({}, {"HX-Request": "true"}):  # a full page and an htmx fragment alike
            response = _send(client, method, url.path(theirs), headers)
            assert response.status_code == 404, f"{method} {url} {headers}: {response.status_code}"
    assert provider_calls == []


@pytest.mark.parametrize("url", URLS, ids=str)
def test_a_method_the_url_does_not_take_is_refused(client, url, owner, mine, provider_calls):
    _sign_in(client, owner)
    for method in METHODS:
        if method in url.methods:
            continue
        response = _send(client, method, url.path(mine))
        assert response.status_code == 405, f"{method} {url}: {response.status_code}"
    assert provider_calls == []


@pytest.mark.parametrize("url", API, ids=str)
def test_the_staff_api_answers_no_one_without_a_key(client, url, owner, theirs, provider_calls):
    for signed_in in (False, True):
        if signed_in:
            _sign_in(client, owner)
        for method in url.methods:
            response = _send(client, method, url.path(theirs))
            assert response.status_code == 401, f"{method} {url} signed in: {signed_in}"
    assert provider_calls == []


@pytest.mark.parametrize("url", API, ids=str)
def test_a_method_the_api_url_does_not_take_is_refused(client, url, mine, provider_calls):
    for method in METHODS:
        if method not in url.methods:
            assert _send(client, method, url.path(mine)).status_code == 405, f"{method} {url}"
    assert provider_calls == []
