"""WHOIS privacy at checkout: a box per line, priced, paid with the order, bought once after the domain registers."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.test import override_settings

from accounts.models import Activity
from billing.models import Payment, PaymentLine
from domains.models import Order, PrivacyPurchase
from domains.orders.privacy_payments import privacy_paid_line
from storefront.gateway import gateway
from tests.billing.conftest import GOOD_CARD
from tests.domains.checkout.test_checkout_payment import start_paying
from tests.domains.conftest import cart_of, line, put_in_cart

pytestmark = pytest.mark.django_db

# The demo catalogue's privacy costs 4.99 a year; the tests' store adds 1.50 a year.
PRIVACY = Decimal("6.49")


@pytest.fixture
def buyer(client, customer, stripe_sandbox):
    client.force_login(customer.user)
    return customer


def fresh() -> str:
    return f"priv{uuid.uuid4().hex[:10]}.com"


def add_privacy(client, name: str, *, on: bool = True):
    data = {"domain_name": name, "next": "checkout", **({"privacy": "on"} if on else {})}
    return client.post("/cart/privacy/", data)


def paid_and_returned(client, stripe_sandbox) -> Payment:
    payment, *_ = start_paying(client)
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    return payment


def test_the_review_offers_privacy_on_each_line_at_its_price(client, buyer):
    name = fresh()
    put_in_cart(client, line(name))
    html = client.get("/checkout/").content.decode()
    assert "Add WHOIS privacy for 1 year: $6.49" in html
    assert 'name="privacy"' in html and " checked" not in html.split('name="privacy"')[1].split(">")[0]
    assert "Your contact details will be public." not in html


def test_ticking_the_box_adds_privacy_to_the_line_and_the_total(client, buyer):
    name = fresh()
    put_in_cart(client, line(name))
    response = add_privacy(client, name)
    assert (response.status_code, response.url) == (302, "/checkout/")
    assert cart_of(client)[name]["privacy"] == str(PRIVACY)
    page = client.get("/checkout/")
    html = page.content.decode()
    assert "WHOIS privacy for 1 year: $6.49" in html
    assert "Buy now · $20.98" in html  # 14.49 + 6.49
    cart = client.get("/cart/").content.decode()
    assert "<dt>WHOIS privacy</dt><dd>$6.49</dd>" in cart
    assert "<strong>$20.98</strong>" in cart
    assert add_privacy(client, name, on=False).status_code == 302
    assert "privacy" not in cart_of(client)[name]
    assert "Buy now · $14.49" in client.get("/checkout/").content.decode()


def test_a_longer_term_prices_privacy_for_as_many_years(client, buyer):
    name = fresh()
    put_in_cart(client, line(name))
    add_privacy(client, name, on=True)
    client.post("/cart/update/", {"domain_name": name, "duration": "2"})
    assert cart_of(client)[name]["duration"] == 2
    assert cart_of(client)[name]["privacy"] == "12.98"


def test_privacy_is_paid_with_the_order_and_bought_once_after_the_domain_registers(
    client, buyer, stripe_sandbox, provider_calls
):
    name = fresh()
    put_in_cart(client, line(name))
    add_privacy(client, name)
    payment, *_ = start_paying(client)
    assert payment.amount == Decimal("14.49") + PRIVACY
    lines = list(payment.lines.order_by("position"))
    assert [(pl.reference, pl.details["kind"], pl.amount) for pl in lines] == [
        (name, "registration", Decimal("14.49")),
        (f"privacy:{name}", "privacy", PRIVACY),
    ]
    assert lines[1].description == f"{name}, WHOIS privacy for 1 year"
    assert provider_calls.count("privacy_purchase") == 0  # nothing before the payment is authorised

    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("20.98"))
    order = Order.objects.get(domain_name=name)
    assert order.privacy_enabled and order.privacy_expires_at is not None
    assert gateway().domain_details(order_id=order.order_id).privacy.enabled
    purchase = PrivacyPurchase.objects.get(checkout_id=payment.checkout_id)
    assert (purchase.status, purchase.years, purchase.price, purchase.cost_price) == (
        PrivacyPurchase.PURCHASED,
        1,
        PRIVACY,
        Decimal("4.99"),
    )
    assert Activity.objects.filter(action="privacy_purchased", domain_name=name).count() == 1
    receipt = client.get(f"/payments/receipts/{payment.receipt.number}/").content.decode()
    assert f"{name}, WHOIS privacy for 1 year" in receipt

    # Delivered again (a door that took over an abandoned claim): found, not bought twice.
    again = privacy_paid_line(PaymentLine.objects.get(payment=payment, reference=f"privacy:{name}"))
    assert again.outcome == "registered"
    assert provider_calls.count("privacy_purchase") == 1


def test_privacy_of_a_name_that_was_not_registered_is_not_charged(client, buyer, other_customer, stripe_sandbox):
    name = fresh()
    put_in_cart(client, line(name))
    add_privacy(client, name)
    payment, *_ = start_paying(client)
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=name, duration=1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CANCELLED, 0)
    assert set(payment.lines.values_list("status", flat=True)) == {PaymentLine.Status.FAILED}
    assert not PrivacyPurchase.objects.exists()


def test_a_refused_privacy_purchase_charges_only_the_domain(client, buyer, stripe_sandbox, seeded_partner):
    name = fresh()
    put_in_cart(client, line(name))
    add_privacy(client, name)
    seeded_partner.balance = Decimal("12.99")  # enough to register, not for privacy on top
    payment = paid_and_returned(client, stripe_sandbox)
    assert (payment.status, payment.amount_captured) == (Payment.Status.PARTIALLY_CAPTURED, Decimal("14.49"))
    assert PrivacyPurchase.objects.get().status == PrivacyPurchase.FAILED
    assert not Order.objects.get(domain_name=name).privacy_enabled


@override_settings(RESELLER_CAPABILITIES=[])
def test_where_the_provider_does_not_offer_it_the_review_says_the_details_are_public(client, buyer):
    name = fresh()
    put_in_cart(client, line(name))
    html = client.get("/checkout/").content.decode()
    assert "Your contact details will be public." in html
    assert "WHOIS privacy is not available through us yet" in html
    assert "use a business address or a post office box in your contact details" in html
    assert 'name="privacy"' not in html
    add_privacy(client, name)
    assert "privacy" not in cart_of(client)[name]


def test_privacy_taken_off_by_the_provider_since_it_was_added_is_dropped_and_said(client, buyer):
    name = fresh()
    put_in_cart(client, line(name, privacy=PRIVACY))
    with override_settings(RESELLER_CAPABILITIES=[]):
        html = client.get("/checkout/").content.decode()
    assert "WHOIS privacy cannot be added to" in html and "so we took it off your order" in html
    assert "privacy" not in cart_of(client)[name]
    assert "Buy now · $14.49" in html
