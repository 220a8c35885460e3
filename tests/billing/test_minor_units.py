"""Amounts go to Stripe in its own minor units per currency (docs.stripe.com/currencies), not ISO's or Babel's."""

from __future__ import annotations

from decimal import Decimal

import pytest

from billing.errors import PaymentError
from billing.ledger.lines import LineToPay
from billing.models import Payment
from billing.payments.services import payment_settle
from billing.payments.stripe_client import NotChargeable, decimals, from_minor, to_minor
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [
        (Decimal("12.99"), "USD", 1299),
        (Decimal("12.99"), "eur", 1299),
        # Zero-decimal: whole yen.
        (Decimal("1500"), "JPY", 1500),
        (Decimal("1500.00"), "jpy", 1500),
        (Decimal("25000"), "KRW", 25000),
        # ISK has no minor unit in ISO 4217 (Babel says 0 decimals) but Stripe keeps it at two: 1990 kr is 199000.
        (Decimal("1990"), "ISK", 199000),
        # HUF likewise two decimals at Stripe, and fractional forint may be charged.
        (Decimal("4990.50"), "HUF", 499050),
        # Three decimals, the last digit 0: 5.12 KWD is 5120.
        (Decimal("5.12"), "KWD", 5120),
        (Decimal("12.5"), "BHD", 12500),
    ],
)
def test_amounts_become_stripes_minor_units_and_back(amount, currency, minor):
    assert to_minor(amount, currency) == minor
    assert from_minor(minor, currency) == amount


def test_isk_is_charged_at_its_price_not_a_hundredth_of_it():
    # Babel (ISO 4217) would have made 1990 ISK into 1990 minor units: 19.90 kr at Stripe.
    assert decimals("ISK") == 2
    assert to_minor(Decimal("1990"), "ISK") != 1990


@pytest.mark.parametrize(
    ("amount", "currency"),
    [
        (Decimal("1500.5"), "JPY"),  # no fraction of a yen
        (Decimal("1990.50"), "ISK"),  # whole krónur only
        (Decimal("5.125"), "KWD"),  # the last of three digits must be 0
        (Decimal("12.999"), "USD"),  # more decimals than the currency
    ],
)
def test_an_amount_stripe_would_refuse_is_never_sent(amount, currency):
    with pytest.raises(NotChargeable):
        to_minor(amount, currency)


def test_an_answer_in_thousandths_is_read_exactly():
    assert from_minor(5120, "KWD") == Decimal("5.12")
    with pytest.raises(NotChargeable):
        from_minor(5125, "KWD")  # Stripe never answers this; it must not be rounded quietly if it did


# --- At the payment sandbox -------------------------------------------------------------------------------------

SALES = [
    ("JPY", Decimal("1500"), 1500),
    ("ISK", Decimal("1990"), 199000),
    ("KWD", Decimal("5.12"), 5120),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("currency", "price", "minor"), SALES)
def test_a_checkout_in_each_currency_charges_its_price(start, stripe_sandbox, registrar, currency, price, minor):
    started = start(lines=[LineToPay("example.jp", "example.jp, register 1 year", Money(price, currency))])
    session = stripe_sandbox.stored(started.payment.stripe_session_id)
    assert (session["amount_total"], session["currency"]) == (minor, currency.lower())
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, price)
    assert stripe_sandbox.stored(payment.stripe_payment_intent_id)["amount_received"] == minor


@pytest.mark.django_db
def test_a_price_in_fractions_of_a_krona_is_refused_before_stripe_is_asked(start, stripe_sandbox):

    with pytest.raises(PaymentError) as refused:
        start(lines=[LineToPay("example.is", "example.is, 1 year", Money(Decimal("1990.50"), "ISK"))])
    assert refused.value.code == "not_chargeable"
    assert not Payment.objects.exists()
    assert stripe_sandbox.calls("/checkout/sessions") == []


@pytest.mark.django_db
def test_checkout_asks_for_a_card_in_the_stores_currency(start, stripe_sandbox):
    session = stripe_sandbox.stored(start().payment.stripe_session_id)
    assert session["payment_method_types"] == ["card"]
    assert session["currency"] == "usd"
