from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest
from django.test import Client

from accounts.models import Customer
from billing.ledger import lines
from billing.ledger.lines import DEFAULT_KIND, LineKind, LineToPay
from billing.models import Payment
from billing.payments.services import StartedPayment, payment_settle, payment_start
from pricing.money import Money
from tests.billing.fakes import REGISTRAR, FakeRegistrar
from tests.stripe_control import SignedEvent

LINES = [
    LineToPay("example.com", "example.com, register 1 year", Money(Decimal("12.99"), "USD"), {"years": 1}),
    LineToPay("example.net", "example.net, register 2 years", Money(Decimal("25.00"), "USD"), {"years": 2}),
    LineToPay("example.org", "example.org, register 1 year", Money(Decimal("9.50"), "USD"), {"years": 1}),
]
TOTAL = Decimal("47.49")
GOOD_CARD = "4242 4242 4242 4242"
DECLINED_CARD = "4000 0000 0000 0002"
AUTHENTICATION_CARD = "4000 0025 0000 3155"


@pytest.fixture
def registrar(monkeypatch) -> Iterator[FakeRegistrar]:
    """The fake delivers the tests' lines (their kind is the default one, a registration) in every door: the return
    page, the webhook and the off-session charge alike."""
    REGISTRAR.reset()
    monkeypatch.setitem(
        lines._KINDS, DEFAULT_KIND, LineKind(DEFAULT_KIND, deliver=REGISTRAR, resolve=REGISTRAR.resolve)
    )
    yield REGISTRAR
    REGISTRAR.reset()


@pytest.fixture
def start(stripe_sandbox, customer) -> Callable[..., StartedPayment]:
    def started(lines: list[LineToPay] = LINES, checkout_id: uuid.UUID | None = None, who: Customer | None = None):
        return payment_start(
            customer=who or customer,
            lines=lines,
            checkout_id=checkout_id or uuid.uuid4(),
            success_url="http://testserver/checkout/paid/?session_id={CHECKOUT_SESSION_ID}",
            cancel_url="http://testserver/checkout/",
        )

    return started


def post_event(client: Client, event: SignedEvent, *, signature: str | None = None):
    return client.post(
        "/payments/stripe/webhook/",
        event.payload,
        content_type="application/json",
        headers={"Stripe-Signature": event.signature if signature is None else signature},
    )


@pytest.fixture
def paid(start, stripe_sandbox, registrar) -> Callable[..., Payment]:
    """Pay with the test card and settle as the worker does: the payment, captured unless a line says otherwise."""

    def pay(lines: list[LineToPay] = LINES, **kwargs) -> Payment:
        started = start(lines=lines, **kwargs)
        assert stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD) == "authorised"
        return payment_settle(session_id=started.payment.stripe_session_id)

    return pay


def deliver(stripe_sandbox, *types: str, times: int = 1, reverse: bool = False) -> list[int]:
    """POST the payment sandbox's events of these types to our webhook (as Stripe would), `times` over, newest first
    when `reverse`: the answers' status codes."""
    events = [event for event in stripe_sandbox.events() if not types or event.type in types]
    if reverse:
        events.reverse()
    client = Client()
    return [post_event(client, event).status_code for _ in range(times) for event in events]
