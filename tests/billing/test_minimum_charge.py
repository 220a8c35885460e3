"""Stripe's minimum charge per currency, checked before a payment is opened: the customer reads the minimum and
their total, nothing is sent to Stripe, and a total at the minimum goes through."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from billing.ledger.lines import LineToPay
from billing.models import Payment
from billing.payments.minimum_charge import BelowMinimumCharge, minimum_charge
from billing.payments.services import payment_start
from pricing.money import Money

pytestmark = pytest.mark.django_db


def _lines(amount: str, currency: str = "USD") -> list[LineToPay]:
    return [LineToPay("example.com", "example.com, 1 year", Money(Decimal(amount), currency), {"years": 1})]


def _start(customer, lines):
    return payment_start(
        customer=customer,
        lines=lines,
        checkout_id=uuid.uuid4(),
        success_url="http://testserver/checkout/paid/?session_id={CHECKOUT_SESSION_ID}",
        cancel_url="http://testserver/checkout/",
    )


def test_a_total_below_the_minimum_is_refused_with_a_sentence_before_stripe(stripe_sandbox, customer):
    with pytest.raises(BelowMinimumCharge) as refused:
        _start(customer, _lines("0.40"))
    assert str(refused.value.message) == (
        "The payment service cannot take a payment under $0.50, and this order comes to $0.40. Add another domain "
        "or a longer term to reach it."
    )
    assert stripe_sandbox.calls("/v1/") == [] and not Payment.objects.exists()


def test_a_total_at_the_minimum_opens_the_payment_page(stripe_sandbox, customer):
    started = _start(customer, _lines("0.30", "GBP"))
    assert started.url and started.payment.amount == Decimal("0.30")


@pytest.mark.parametrize(("currency", "minimum"), [("USD", "0.50"), ("GBP", "0.30"), ("JPY", "50"), ("HUF", "175.00")])
def test_stripes_table(currency, minimum):
    assert minimum_charge(currency) == Money(Decimal(minimum), currency)


def test_a_currency_stripe_sets_by_the_days_rate_is_left_to_stripe():
    assert minimum_charge("ISK") is None
