"""Refunds and disputes act on the line they concern: a refunded renewal undoes that renewal's record and says so,
nothing more (the domain stays paid up by its registration, renewable, its auto-renew on); a lost dispute of part of
a payment marks refunded only the domain whose money it took in full."""

from __future__ import annotations

import pytest

from billing.models import Payment
from domains.models import Order, Registration, Renewal
from tests.billing.conftest import GOOD_CARD, deliver
from tests.domains.checkout.test_checkout_payment import buyer, fresh, start_paying  # noqa: F401 (a fixture)
from tests.domains.conftest import line, put_in_cart
from tests.domains.orders.test_order_renew_payment import come_back, start_renewal

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_refunded_renewal_marks_that_renewal_not_the_domain(signed_in, customer, provider_orders, stripe_sandbox):
    order = provider_orders.register(customer, "refundrenew.com")
    Order.objects.filter(pk=order.pk).update(auto_renew=True)
    payment, _ = start_renewal(signed_in, order, 1)
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    come_back(signed_in, order, payment)
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED

    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id)
    deliver(stripe_sandbox, "refund.created", "charge.refunded")

    order.refresh_from_db()
    assert order.refunded_at is None and order.auto_renew  # the domain is as it was
    renewal = Renewal.objects.get(token=payment.checkout_id)
    assert renewal.refunded_at is not None
    page = signed_in.get(f"/orders/{order.order_id}/").content.decode()
    assert "The payment for this renewal was refunded on" in page
    assert "This domain was refunded" not in page
    assert f'action="/orders/{order.order_id}/renew/"' in page  # still renewable


@pytest.mark.parametrize("short", [0, 500])
def test_a_lost_dispute_marks_only_the_domain_whose_money_it_took_in_full(
    client,
    buyer,  # noqa: F811
    stripe_sandbox,
    short,
):
    put_in_cart(client, line(fresh()), line(fresh()))
    payment, *_ = start_paying(client)
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    taken = payment.lines.order_by("position").first()
    assert taken is not None

    dispute = stripe_sandbox.open_dispute(
        payment.stripe_payment_intent_id, amount=int(taken.gross_amount * 100) - short
    )
    deliver(stripe_sandbox, "charge.dispute.created")
    stripe_sandbox.close_dispute(dispute["id"], won=False)
    deliver(stripe_sandbox, "charge.dispute.closed")

    orders = {r.domain_name: r.order for r in Registration.objects.filter(checkout_id=payment.checkout_id)}
    marked = {name for name, order in orders.items() if Order.objects.get(pk=order.pk).refunded_at is not None}
    assert marked == ({taken.reference} if not short else set())  # $5 short of it: a goodwill part, not a refund
