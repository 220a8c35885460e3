"""Each event comes from the real flow that records it, once: a signup, a paid checkout (registered, captured),
a staff refund, a dispute, a domain's expiry approaching."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from billing.models import PaymentLine
from billing.payments.refunds import refund_line
from domains.expiring_events import domains_expiring_emit
from domains.models import Order
from domains.orders import renewals
from tests.accounts.conftest import VALID
from tests.billing.conftest import deliver, paid, post_event, registrar, start  # noqa: F401 (fixtures)
from tests.domains.checkout.test_checkout_figures import buyer  # noqa: F401 (a fixture)
from tests.domains.checkout.test_checkout_figures import paid as checkout_paid
from tests.domains.conftest import line, put_in_cart, seeded_partner  # noqa: F401 (a fixture)

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


def data_of(received) -> dict:
    return json.loads(received.body)["data"]


def test_a_signup_is_customer_created_without_its_password(client, fake_priced, receiver, endpoint):
    response = client.post("/accounts/signup/", VALID)
    assert response.status_code == 302, response.content
    [created] = receiver.of_type("customer.created")
    customer = data_of(created)["customer"]
    assert customer["email"] == VALID["email"] and customer["name"] == VALID["name"]
    assert VALID["password"] not in created.body.decode()


def test_a_paid_checkout_is_domain_registered_and_payment_captured_once_each(
    fake_priced,
    client,
    buyer,  # noqa: F811
    stripe_sandbox,
    receiver,
    endpoint,
):
    name = f"hook{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name, duration=2, price=Decimal("30.98")))
    payment, _ = checkout_paid(client, stripe_sandbox)
    # Stripe delivers its events again, as it may: nothing is told twice.
    for event in stripe_sandbox.events(type="checkout.session.completed") * 2:
        assert post_event(Client(), event).status_code == 200

    [registered] = receiver.of_type("domain.registered")
    domain = data_of(registered)["domain"]
    order = Order.objects.get(domain_name=name)
    assert (domain["name"], domain["order_id"], domain["customer_id"]) == (name, order.order_id, buyer.pk)
    assert data_of(registered)["years"] == 2
    [captured] = receiver.of_type("payment.captured")
    assert data_of(captured) == {
        "payment": {"id": payment.pk, "customer_id": buyer.pk, "currency": payment.currency},
        "amount": "30.98",
        "domains": [name],
    }


def test_a_refund_is_payment_refunded_and_domain_refunded_once_each(
    fake_priced,
    client,
    buyer,  # noqa: F811
    stripe_sandbox,
    receiver,
    endpoint,
):
    name = f"hookrefund{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name))
    payment, _ = checkout_paid(client, stripe_sandbox)
    domain_line = payment.lines.get(reference=name)
    assert refund_line(line=domain_line).status == PaymentLine.Status.REFUNDED
    refund_line(line=PaymentLine.objects.get(pk=domain_line.pk))  # again: nothing more moves, nothing is told

    [refunded] = receiver.of_type("payment.refunded")
    assert data_of(refunded)["amount"] == str(domain_line.gross_amount)
    assert data_of(refunded)["domains"] == [name]
    [domain] = receiver.of_type("domain.refunded")
    assert data_of(domain)["domain"]["name"] == name and data_of(domain)["domain"]["auto_renew"] is False


def test_a_dispute_is_opened_then_closed_even_when_stripe_tells_it_backwards(
    paid,  # noqa: F811
    stripe_sandbox,
    receiver,
    endpoint,
):
    payment = paid()
    dispute = stripe_sandbox.open_dispute(payment.stripe_payment_intent_id, reason="fraudulent")
    stripe_sandbox.close_dispute(dispute["id"], won=True)
    deliver(stripe_sandbox, times=2, reverse=True)

    [opened] = receiver.of_type("dispute.opened")
    [closed] = receiver.of_type("dispute.closed")
    assert receiver.received.index(opened) < receiver.received.index(closed)
    assert data_of(opened)["dispute"]["id"] == dispute["id"]
    assert data_of(closed)["payment"] == {"id": payment.pk, "customer_id": payment.customer_id}


def test_a_domain_is_expiring_30_then_7_days_ahead_once_each(customer, receiver, endpoint):
    now = timezone.now()
    order = Order.objects.create(
        order_id=990001, customer=customer, domain_name="soon.com", expires_at=now + dt.timedelta(days=30, hours=-3)
    )
    Order.objects.create(  # refunded: the store no longer renews it, so nothing is said
        order_id=990002, customer=customer, domain_name="gone.com", expires_at=order.expires_at, refunded_at=now
    )
    assert domains_expiring_emit(now=now) == 1
    assert domains_expiring_emit(now=now + dt.timedelta(hours=1)) == 0  # the next run the same day
    with time_machine.travel(now + dt.timedelta(days=23), tick=False):
        assert domains_expiring_emit() == 1
        assert domains_expiring_emit() == 0
    told = [data_of(each) for each in receiver.of_type("domain.expiring")]
    assert [(each["domain"]["name"], each["days"]) for each in told] == [("soon.com", 30), ("soon.com", 7)]


def test_a_renewal_is_domain_renewed_with_its_new_expiry_once(provider_orders, customer, receiver, endpoint):
    order = provider_orders.register(customer, f"hookrenew{uuid.uuid4().hex[:8]}.com")
    provider_orders.set_expiry_in_days(order, 40)
    expiry = provider_orders.at_provider(order).expiry_timestamp
    token = uuid.uuid4()
    renewal = renewals.renewal_place(
        order=order, request=renewals.RenewRequest(2, expiry, token, Decimal("32.98"), "USD")
    )
    with pytest.raises(renewals.RenewAlreadySubmitted):  # the same form posted again
        renewals.renewal_place(order=order, request=renewals.RenewRequest(2, expiry, token, Decimal("32.98"), "USD"))

    [renewed] = receiver.of_type("domain.renewed")
    assert data_of(renewed)["years"] == 2
    assert data_of(renewed)["domain"]["name"] == order.domain_name
    assert data_of(renewed)["domain"]["expires_at"] == renewal.new_expires_at.isoformat().replace("+00:00", "Z")
