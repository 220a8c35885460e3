"""Every page and action against every fault the provider can show (the in-memory provider's scripted faults).

Each answers with a clear message and a sensible status (never a 500; 503 where the provider is unavailable
on a full page is right), and loses nothing: the cart keeps its lines, typed forms keep their values, and a
checkout in flight leaves its registration on record.
"""

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.test import Client

from domains.models import Order, Registration
from storefront.gateway import Unauthorized, Unavailable, gateway
from tests.conftest import CUSTOMER_PASSWORD
from tests.fakes.gateway import FakeGateway

MESSAGES = (
    "unavailable",
    "try again",
    "could not",
    "couldn't",
    "not available",
    "please wait",
    "too many",
    "slow down",
    "not confirm",
    "being checked",
    "went wrong",
    "isn't available",
    "is not available",
    "problem",
)


def _fake() -> FakeGateway:
    provider = gateway()
    assert isinstance(provider, FakeGateway)
    return provider


# The provider's faults as the client reports them (tests/fakes/gateway.py; the client's own handling of each, over
# HTTP, is tested in test_gateway_faults.py and test_gateway_contract_shared.py keeps the fake to the client's word).
FAULTS: dict[str, Callable[[], AbstractContextManager[None]]] = {
    "down": lambda: _fake().outage(error=Unavailable("ConnectionError")),
    "slow": lambda: _fake().fault(hang_seconds=1.2),
    "500": lambda: _fake().fault(error_rate=1.0),
    "malformed": lambda: _fake().fault(malformed=True),
    "401": lambda: _fake().outage(error=Unauthorized("Unauthorized", status=401)),
    "429": lambda: _fake().fault(rate_limited=True),
}


@dataclass
class World:
    client: Client
    order: Order
    checkout_id: str
    review_digest: str
    renew_token: str
    expiry_timestamp: str
    domain_in_cart: str


@pytest.fixture
def world(fake_priced, customer) -> World:
    assert customer.customer_id is not None
    label = f"matrix{uuid.uuid4().hex[:8]}"
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=f"{label}.com", duration=1)
    gateway().dns_activate(order_id=registered.order_id)
    gateway().dns_record_add(order_id=registered.order_id, record_type="A", host="www", value="203.0.113.7")
    client = Client()
    client.force_login(customer.user)
    client.get("/orders/")  # the listing gives us our local copy of the order
    order = Order.objects.get(order_id=registered.order_id)
    order.dns_active = True
    order.save(update_fields=["dns_active"])
    in_cart = f"{label}-more.net"
    assert client.post("/cart/add/", {"domain_name": in_cart}).status_code in (200, 302)
    checkout_page = client.get("/checkout/").content.decode()
    detail_page = client.get(f"/orders/{order.order_id}/").content.decode()
    return World(
        client=client,
        order=order,
        checkout_id=_hidden(checkout_page, "checkout_id"),
        review_digest=_hidden(checkout_page, "review_digest"),
        renew_token=_hidden(detail_page, "renew_token"),
        expiry_timestamp=_hidden(detail_page, "expiry_timestamp"),
        domain_in_cart=in_cart,
    )


def _hidden(page: str, name: str) -> str:
    marker = f'name="{name}" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def _actions(world: World) -> dict[str, Callable[[], object]]:
    c, oid = world.client, world.order.order_id
    return {
        "search page": lambda: c.get("/search/", {"q": "matrixword"}),
        "search fragment": lambda: c.get("/search/", {"q": "matrixword"}, HTTP_HX_REQUEST="true"),
        "cart add": lambda: c.post("/cart/add/", {"domain_name": "anotherone.org"}),
        "cart": lambda: c.get("/cart/"),
        "checkout review": lambda: c.get("/checkout/"),
        "checkout place": lambda: c.post(
            "/checkout/", {"checkout_id": world.checkout_id, "review_digest": world.review_digest, "accept_terms": "on"}
        ),
        "orders": lambda: c.get("/orders/"),
        "order detail": lambda: c.get(f"/orders/{oid}/"),
        "renew": lambda: c.post(
            f"/orders/{oid}/renew/",
            {
                "duration": "1",
                "renew_token": world.renew_token,
                "expiry_timestamp": world.expiry_timestamp,
                "confirm": "on",
            },
        ),
        "transfer code": lambda: c.post(f"/orders/{oid}/transfer-code/", {"password": CUSTOMER_PASSWORD}),
        "dns records": lambda: c.get(f"/orders/{oid}/dns/", {"type": "A"}),
        "dns add": lambda: c.post(
            f"/orders/{oid}/dns/add/", {"type": "A", "host": "typed-host", "value": "198.51.100.23", "ttl": "3600"}
        ),
        "dns delete": lambda: c.post(
            f"/orders/{oid}/dns/delete/", {"type": "A", "host": "www", "value": "203.0.113.7"}
        ),
        "panel": lambda: c.post("/accounts/panel/", HTTP_REFERER=f"/orders/{oid}/"),
    }


def _visible_text(client: Client, response) -> str:
    if response.status_code in (301, 302, 303):
        followed = client.get(response["Location"])
        assert followed.status_code != 500
        return followed.content.decode().lower()
    return response.content.decode().lower()


ACTION_NAMES = [
    "search page",
    "search fragment",
    "cart add",
    "cart",
    "checkout review",
    "checkout place",
    "orders",
    "order detail",
    "renew",
    "transfer code",
    "dns records",
    "dns add",
    "dns delete",
    "panel",
]
# Faults where a state-changing call is certainly not acted on: unreachable, key refused, rate limited.
NEVER_SENT = {"down", "401", "429"}
# Pages that need no provider call answer normally whatever the provider does.
NO_PROVIDER_NEEDED = {"cart"}


def _database(action: str) -> pytest.MarkDecorator:
    # Placing a checkout hands the lines to the worker on commit: that one needs real commits.
    return pytest.mark.django_db(transaction=action == "checkout place")


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("action", [pytest.param(name, marks=_database(name)) for name in ACTION_NAMES])
def test_every_action_survives_every_fault(world, fault, action):
    cache.clear()  # no cached answer to fall back on: every page has to ask the provider
    with FAULTS[fault]():
        response = _actions(world)[action]()
        status = response.status_code
        text = _visible_text(world.client, response)
    assert status != 500
    assert status < 500 or status == 503, f"{action} under {fault}: {status}"
    if action not in NO_PROVIDER_NEEDED and status != 302:
        assert any(phrase in text for phrase in MESSAGES), f"{action} under {fault} says nothing clear"

    # Nothing is lost.
    cart = world.client.session.get("cart", {})
    if action != "checkout place":
        assert world.domain_in_cart in cart
    else:
        registration = Registration.objects.filter(domain_name=world.domain_in_cart).first()
        if fault in NEVER_SENT:
            # The registration certainly was not sent: it is not failed, it waits for the worker's next attempt.
            assert registration is None, "a registration that was not sent is never recorded as failed"
            assert world.domain_in_cart in cart
        else:
            assert registration is not None, "the checkout line must stay on record"
            assert registration.status in (
                Registration.Status.UNKNOWN,
                Registration.Status.FAILED,
                Registration.Status.PENDING,
            )
            if registration.status != Registration.Status.UNKNOWN:
                assert world.domain_in_cart in cart
    if action == "dns add":
        assert "typed-host" in text and "198.51.100.23" in text
