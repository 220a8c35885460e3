"""A promotion code in the cart, the checkout and on the receipt: entered with clear messages, shown on each line it
touches, re-checked at Buy (a code used up meanwhile charges nothing at the old price), counted once, and given
back for a line that was not registered. The demo catalogue's .com costs 12.99 and sells at 14.49."""

from __future__ import annotations

import datetime as dt
import io
import uuid
from decimal import Decimal

import pytest
from django.utils import timezone
from pypdf import PdfReader

from billing.models import Payment, PaymentLine
from pricing.models import Promotion, PromotionRedemption
from storefront.gateway import gateway
from tests.billing.conftest import GOOD_CARD
from tests.domains.checkout.test_checkout_payment import buy, review
from tests.domains.conftest import cart_of, line, put_in_cart
from tests.limits import TEST_WINDOW
from tests.pricing.conftest import promotion_make, use_taken_elsewhere

pytestmark = pytest.mark.django_db


def fresh(tld: str = "com") -> str:
    return f"promo{uuid.uuid4().hex[:10]}.{tld}"


@pytest.fixture
def buyer(client, customer, stripe_sandbox):
    client.force_login(customer.user)
    return customer


def launch(**fields) -> Promotion:
    return promotion_make(**{"value": Decimal("10"), **fields})


def enter(client, code: str):
    return client.post("/cart/promotion/", {"code": code}, follow=True)


def test_a_code_in_the_cart_shows_on_each_line_it_touches(client, buyer):
    launch(tlds="com")
    com, net = fresh(), fresh("net")
    put_in_cart(client, line(com), line(net, price=Decimal("15.99")))
    page = enter(client, "launch").content.decode()
    assert "The code LAUNCH is applied." in page
    assert "Code LAUNCH" in page and "$14.49</s> \N{MINUS SIGN}$1.45 = <span" in page and "$13.04" in page
    assert page.count("Code LAUNCH") == 1  # the .net line is not touched
    assert cart_of(client)[com]["discount"] == "1.45" and "discount" not in cart_of(client)[net]

    removed = client.post("/cart/promotion/", {"remove": "on"}, follow=True).content.decode()
    assert "The promotion code was removed." in removed and "Code LAUNCH" not in removed
    assert "discount" not in cart_of(client)[com]


@pytest.mark.parametrize(
    ("fields", "typed", "message"),
    [
        ({}, "NOPE", "We don&#x27;t know the code NOPE."),
        (
            {"ends_at": timezone.now() - dt.timedelta(hours=1), "starts_at": timezone.now() - dt.timedelta(days=3)},
            "LAUNCH",
            "The code LAUNCH has expired.",
        ),
        ({"starts_at": timezone.now() + dt.timedelta(days=3)}, "LAUNCH", "The code LAUNCH is not valid yet"),
        ({"tlds": "io"}, "LAUNCH", "The code LAUNCH is not for the domains in your order."),
        ({"max_redemptions": 0}, "LAUNCH", "The code LAUNCH has been used up."),
    ],
)
def test_a_code_that_cannot_be_used_says_why_beside_the_field(client, buyer, fields, typed, message):
    launch(**fields)
    put_in_cart(client, line(fresh()))
    response = client.post("/cart/promotion/", {"code": typed})
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert 'aria-invalid="true"' in html
    assert "discount" not in next(iter(cart_of(client).values()))


def test_a_code_is_never_applied_below_cost(client, buyer):
    launch(value=Decimal("50"))  # 7.25 off would sell at 7.24, under the 12.99 cost
    name = fresh()
    put_in_cart(client, line(name))
    enter(client, "LAUNCH")
    assert cart_of(client)[name]["discount"] == "1.50"  # down to the cost, not below


def test_paying_with_a_code_charges_the_discounted_price_and_the_receipt_says_so(client, buyer, stripe_sandbox):
    promotion = launch(max_redemptions=5)
    name = fresh()
    put_in_cart(client, line(name))
    enter(client, "LAUNCH")
    page = client.get("/checkout/")
    assert "Promotion code LAUNCH applied before tax." in page.content.decode()
    assert "\N{MINUS SIGN}$1.45" in page.content.decode()
    checkout_id, digest = page.context["checkout_id"], page.context["review_digest"]
    assert buy(client, checkout_id, digest).status_code == 303
    assert buy(client, checkout_id, digest).status_code == 303  # a double click takes no second use
    payment = Payment.objects.get(checkout_id=checkout_id)
    assert payment.amount == Decimal("13.04")
    paid = PaymentLine.objects.get(payment=payment)
    assert (paid.amount, paid.list_amount, paid.discount, paid.promotion) == (
        Decimal("13.04"),
        Decimal("14.49"),
        Decimal("1.45"),
        promotion,
    )
    assert PromotionRedemption.objects.filter(promotion=promotion, released_at=None).count() == 1

    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("13.04"))
    receipt = client.get(f"/payments/receipts/{payment.receipt.number}/").content.decode()
    assert "Promotion code LAUNCH: list price $14.49, discount \N{MINUS SIGN}$1.45" in receipt
    assert "$13.04" in receipt
    pdf = client.get(f"/payments/receipts/{payment.receipt.number}/pdf/").content
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "Promotion code LAUNCH: list price $14.49, discount" in text


def test_a_code_used_up_between_review_and_buy_charges_nothing(client, buyer, other_customer):
    promotion = launch(max_redemptions=1)
    put_in_cart(client, line(fresh()))
    enter(client, "LAUNCH")
    checkout_id, digest = review(client)
    # Someone else buys with the last use while this review is open.
    use_taken_elsewhere(promotion, customer_id=other_customer.pk)
    response = buy(client, checkout_id, digest, follow=True)
    html = response.content.decode()
    assert "The code LAUNCH has been used up." in html
    assert "Nothing was bought" in html
    assert not Payment.objects.filter(checkout_id=checkout_id).exists()
    assert "discount" not in next(iter(cart_of(client).values()))  # the review shows the full price now


def test_a_line_that_is_not_registered_gives_its_use_back(client, buyer, other_customer, stripe_sandbox):
    promotion = launch(max_redemptions=1)
    lost = fresh()
    put_in_cart(client, line(lost))
    enter(client, "LAUNCH")
    checkout_id, digest = review(client)
    buy(client, checkout_id, digest)
    payment = Payment.objects.get(checkout_id=checkout_id)
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=lost, duration=1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CANCELLED
    redemption = PromotionRedemption.objects.get(promotion=promotion)
    assert redemption.released_at is not None  # the one use is free again


def test_codes_cannot_be_guessed_from_a_list(client, settings):
    """Trying codes is limited per address: a word list runs into a wait, and the code is not even looked up."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "promotion_code": (3, TEST_WINDOW)}
    for guess in ("SPRING", "LAUNCH", "WELCOME"):
        assert client.post("/cart/promotion/", {"code": guess}).status_code != 429
    blocked = client.post("/cart/promotion/", {"code": "LAUNCH10"})
    assert blocked.status_code == 429
    assert "Please wait" in blocked.content.decode()
