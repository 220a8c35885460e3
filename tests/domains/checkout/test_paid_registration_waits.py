"""A paid registration is never skipped by a breaker: each outside service has its own (a search outage never
refuses a registration), and while the registration service's own breaker is open a paid line waits, its money held,
and is registered and captured once the service answers again (the worker's settle, asked by the confirmation page
while it is watched, or the payments reconciler's pass). Over HTTP against the sandbox and the payment sandbox: the
real gateway, its breakers and Stripe's SDK."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from billing.models import Payment, PaymentLine
from billing.payments.reconcile import payments_reconcile
from domains.models import Registration
from storefront.gateway import Unavailable, gateway
from tests.billing.conftest import GOOD_CARD
from tests.domains.checkout.test_checkout_payment import start_paying
from tests.domains.conftest import line, put_in_cart

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded_partner(sandbox_seeded) -> str:
    """The real client and the sandbox (breakers are the client's), not the in-memory provider."""
    return sandbox_seeded


@pytest.fixture
def buyer(client, customer, stripe_sandbox, settings):
    settings.RESELLER_BREAKER_FAILURES = 2
    settings.RESELLER_GET_RETRIES = 0
    client.force_login(customer.user)
    return customer


def _paid(client, stripe_sandbox) -> Payment:
    name = f"wait{uuid.uuid4().hex[:10]}.com"
    put_in_cart(client, line(name))
    payment, _url, _digest = start_paying(client)
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    return payment


def _open(breaker_call, sandbox_control, scope: str) -> None:
    with sandbox_control.fault(error_rate=1.0, scope=scope):
        for _ in range(2):
            with pytest.raises(Unavailable):
                breaker_call()


def test_a_search_outage_never_stops_a_paid_registration(client, buyer, stripe_sandbox, sandbox_control):
    payment = _paid(client, stripe_sandbox)
    _open(lambda: gateway().metasearch(search_term="coffee", aisuggest=False), sandbox_control, "metasearch")
    _open(lambda: gateway().domain_availability(search_terms="coffee", tlds=["com"]), sandbox_control, "availability")
    assert gateway().breakers["search"].is_open and gateway().breakers["availability"].is_open

    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")

    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    assert Registration.objects.get(checkout_id=payment.checkout_id).status == Registration.Status.REGISTERED


def test_with_the_registration_breaker_open_a_paid_line_waits_then_registers_once(
    client, buyer, stripe_sandbox, sandbox_control
):
    payment = _paid(client, stripe_sandbox)
    clock = [1000.0]
    breaker = gateway().breakers["main"]
    breaker._clock = lambda: clock[0]
    _open(lambda: gateway().domain_orders(customer_id=buyer.customer_id), sandbox_control, "orders")

    page = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")

    assert page.status_code == 200
    payment.refresh_from_db()
    (paid_line,) = payment.lines.all()
    assert (payment.status, paid_line.status) == (Payment.Status.AUTHORISED, PaymentLine.Status.PENDING)
    assert not Registration.objects.filter(checkout_id=payment.checkout_id).exists()  # nothing was sent
    assert stripe_sandbox.captures() == [] and payment.amount_captured == 0  # held, not released

    clock[0] += 31  # the breaker's cooldown: the service is asked again
    # The reconcile-payments job's pass, once the payment has waited past its stale claim (nobody watching the page).
    payments_reconcile(now=timezone.now() + dt.timedelta(minutes=10))

    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    assert Registration.objects.get(checkout_id=payment.checkout_id).status == Registration.Status.REGISTERED
    assert len(stripe_sandbox.captures()) == 1
    assert len(sandbox_control.orders(domain_name=paid_line.reference)) == 1


def test_a_paid_renewal_waits_for_the_domain_service_and_says_so(client, buyer, stripe_sandbox, sandbox_control):
    """A renewal paid while the registration service is unreachable is not given up (its money held), the page says
    it waits, and the worker renews it once the service is back."""
    from domains.models import Order, Renewal

    # A domain of the customer's, bought as the module's other tests do.
    payment = _paid(client, stripe_sandbox)
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    order = Order.objects.get(domain_name=payment.lines.get().reference)
    page = client.get(f"/orders/{order.order_id}/").content.decode()
    form = {name: page.split(f'name="{name}" value="')[1].split('"')[0] for name in ("renew_token", "expiry_timestamp")}
    confirm = client.post(f"/orders/{order.order_id}/renew/", {**form, "duration": "1"}).content.decode()
    price = confirm.split('name="price_shown" value="')[1].split('"')[0]
    paying = client.post(
        f"/orders/{order.order_id}/renew/", {**form, "duration": "1", "confirm": "on", "price_shown": price}
    )
    assert paying.status_code == 303
    renewal_payment = Payment.objects.get(checkout_id=form["renew_token"])
    assert stripe_sandbox.pay(renewal_payment.stripe_session_id, GOOD_CARD) == "authorised"
    clock = [1000.0]
    breaker = gateway().breakers["main"]
    breaker._clock = lambda: clock[0]
    _open(lambda: gateway().domain_orders(customer_id=buyer.customer_id), sandbox_control, "orders")

    back = client.get(f"/orders/{order.order_id}/?renewal={form['renew_token']}", follow=True).content.decode()

    assert "so your renewal waits" in back
    renewal_payment.refresh_from_db()
    assert renewal_payment.status == Payment.Status.AUTHORISED and renewal_payment.amount_captured == 0
    clock[0] += 31
    payments_reconcile(now=timezone.now() + dt.timedelta(minutes=10))
    renewal_payment.refresh_from_db()
    assert renewal_payment.status == Payment.Status.CAPTURED
    assert Renewal.objects.get(token=form["renew_token"]).status == Renewal.RENEWED
