"""Auto-renew charges in the customer's currency (the worker has no request to take it from), at its rate."""

from __future__ import annotations

from decimal import Decimal

import pytest

from billing.models import Payment, SaleCause
from domains.orders.tasks import auto_renew_domains
from pricing.currencies import currency_table_forget
from pricing.models import Currency
from tests.worker.test_auto_renew import due_on_auto_renew  # noqa: F401  (the fixture)

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def test_auto_renew_charges_in_the_customers_currency(due_on_auto_renew, customer, stripe_sandbox):  # noqa: F811
    currency_table_forget()
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    customer.currency = "EUR"
    customer.save(update_fields=["currency"])

    auto_renew_domains.enqueue()

    payment = Payment.objects.get(lines__cause=SaleCause.AUTO_RENEWAL)
    # 16.49 USD (the .com renewal at our retail price) at 0.92 is 15.17 EUR, up to the euro's ending
    assert (payment.status, payment.currency, payment.rate) == (Payment.Status.CAPTURED, "EUR", Decimal("0.92"))
    assert payment.amount_captured == Decimal("15.99")
    intent = stripe_sandbox.stored(payment.stripe_payment_intent_id)
    assert (intent["currency"], intent["amount_received"]) == ("eur", 1599)
    # The cost is booked in euros too (14.99 USD at 0.92, rounded up): the margin is known.
    assert payment.lines.get().cost == Decimal("13.80")
    currency_table_forget()


def test_a_renewal_charged_by_an_earlier_run_goes_on_however_the_rate_moved(
    due_on_auto_renew,  # noqa: F811
    customer,
    stripe_sandbox,
):
    """A run whose charge is still held (the provider's answer waits) is followed by the next run at another rate:
    that run neither quotes nor charges again, nor calls the renewal failed; the held payment goes on."""
    from domains.orders.auto_renew import Outcome, auto_renew_checkout_id, auto_renew_order
    from domains.orders.services import order_fetch

    order = due_on_auto_renew
    current = order_fetch(order=order)
    assert current is not None and current.expiry_timestamp is not None
    held = Payment.objects.create(
        customer=customer,
        checkout_id=auto_renew_checkout_id(order=order, expiry_timestamp=current.expiry_timestamp),
        status=Payment.Status.AUTHORISED,
        currency="USD",
        amount=Decimal("16.49"),
        amount_authorised=Decimal("16.49"),
    )
    before = Payment.objects.count()

    assert auto_renew_order(order=order) == Outcome.HELD

    order.refresh_from_db()
    assert order.auto_renew and order.auto_renew_failed_at is None
    assert Payment.objects.count() == before
    held.refresh_from_db()
    assert held.status == Payment.Status.AUTHORISED


def test_auto_renew_renews_the_paid_privacy_with_the_domain(due_on_auto_renew, customer, stripe_sandbox):  # noqa: F811
    """Privacy paid up to the domain's expiry is renewed with it, for as long, as a line of the same payment."""
    from domains.models import Order, PrivacyPurchase
    from domains.orders.services import order_fetch

    order = due_on_auto_renew
    current = order_fetch(order=order)
    assert current is not None and current.expires_at is not None
    Order.objects.filter(pk=order.pk).update(privacy_enabled=True, privacy_expires_at=current.expires_at)

    auto_renew_domains.enqueue()

    payment = Payment.objects.get(lines__cause=SaleCause.AUTO_RENEWAL)
    kinds = sorted((line.details["kind"], line.status) for line in payment.lines.all())
    assert kinds == [("privacy", "registered"), ("renewal", "registered")]
    assert payment.amount_captured == Decimal("16.49") + Decimal("6.49")  # the renewal and a year of privacy
    purchase = PrivacyPurchase.objects.get(checkout_id=payment.checkout_id)
    order.refresh_from_db()
    assert purchase.years == 1 and order.privacy_expires_at is not None
    assert order.privacy_expires_at > current.expires_at  # privacy runs on with the domain
