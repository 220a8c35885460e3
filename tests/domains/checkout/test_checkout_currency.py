"""A customer who buys in euros: the cart, the review and Stripe's page in EUR at the customer's rate, the payment
keeping its currency and rate, and the books keeping each line's cost in euros."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from billing.models import LedgerEntry, Payment
from pricing.currencies import currency_table_forget
from pricing.models import Currency
from pricing.quotes import display_price_book_forget
from tests.billing.conftest import GOOD_CARD
from tests.domains.checkout.test_checkout_payment import start_paying
from tests.domains.conftest import cart_of, line, put_in_cart

pytestmark = pytest.mark.django_db


@pytest.fixture
def euro_buyer(client, customer, stripe_sandbox):
    currency_table_forget()
    display_price_book_forget()
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    customer.currency = "EUR"
    customer.save(update_fields=["currency"])
    client.force_login(customer.user)
    yield customer
    currency_table_forget()
    display_price_book_forget()


def test_a_customer_in_euros_is_quoted_charged_and_booked_in_euros(client, euro_buyer, stripe_sandbox):
    name = f"euro{uuid.uuid4().hex[:8]}.com"
    assert client.post("/cart/add/", {"domain_name": name}).status_code in (200, 302, 303)
    cart = client.get("/cart/").content.decode()
    main = cart.split("<main", 1)[1]
    assert "€" in main and "$" not in main

    payment, _url, _ = start_paying(client)
    assert (payment.currency, payment.rate) == ("EUR", Decimal("0.92"))
    assert str(payment.amount).endswith(".99")  # the euro's price ending
    session = stripe_sandbox.stored(payment.stripe_session_id)
    assert session["currency"] == "eur" and session["amount_total"] == int(payment.amount * 100)

    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    [capture] = LedgerEntry.objects.filter(payment=payment, kind=LedgerEntry.Kind.CAPTURE)
    assert capture.currency == "EUR" and capture.cost is not None and capture.cost < capture.amount


def test_a_line_put_in_the_cart_in_another_currency_is_priced_again_in_the_customers(client, euro_buyer):
    name = f"before{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name))  # added in dollars, before signing in

    main = client.get("/cart/").content.decode().split("<main", 1)[1]

    # 14.49 USD at 0.92 is 13.33 EUR, rounded up to the euro's ending
    assert "€13.99" in main and "$14.49" not in main
    assert cart_of(client)[name]["currency"] == "EUR" and cart_of(client)[name]["price"] == "13.99"
