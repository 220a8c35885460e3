"""A promotion code on the renewal confirmation: typed there, its discount shown (list price, discount, price after
it), charged after it and counted once; a first-year-only code is refused for a renewal; a code used up before the
confirmation's button charges nothing. The demo catalogue's .com renewal costs 14.99 and sells at 16.49."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from billing.models import Payment, PaymentLine
from pricing.models import Promotion, PromotionKind, PromotionRedemption, PromotionScope
from tests.domains.orders.test_order_renew import open_page, url
from tests.pricing.conftest import promotion_make, use_taken_elsewhere

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def code(**fields) -> Promotion:
    defaults = {"code": "COMEBACK", "kind": PromotionKind.FIXED, "value": Decimal("1.00")}
    return promotion_make(**{**defaults, "applies_to": PromotionScope.RENEW, **fields})


def step_one(client, order, form, typed: str):
    return client.post(url(order), {**form, "duration": 1, "promotion_code": typed})


def test_a_renewal_code_is_shown_charged_after_it_and_counted_once(
    signed_in, customer, provider_orders, stripe_sandbox
):
    promotion = code(max_redemptions=1)
    order = provider_orders.register(customer, "comeback.com")
    form = open_page(signed_in, order)
    page = step_one(signed_in, order, form, "comeback").content.decode()
    assert "Code COMEBACK" in page
    assert "$16.49</s> \N{MINUS SIGN}$1.00 = <span" in page and "$15.49" in page
    assert 'name="promotion_code" value="COMEBACK"' in page

    data = {**form, "duration": 1, "confirm": "on", "price_shown": "15.49", "promotion_code": "COMEBACK"}
    assert signed_in.post(url(order), data).status_code == 303
    assert signed_in.post(url(order), data).status_code == 303  # pressed twice: one use
    payment = Payment.objects.get(checkout_id=uuid.UUID(form["renew_token"]))
    assert payment.amount == Decimal("15.49")
    line = PaymentLine.objects.get(payment=payment)
    assert (line.list_amount, line.discount, line.promotion) == (Decimal("16.49"), Decimal("1.00"), promotion)
    assert PromotionRedemption.objects.filter(promotion=promotion, released_at=None).count() == 1


def test_a_first_year_code_is_refused_for_a_renewal(signed_in, customer, provider_orders):
    code(code="LAUNCH", applies_to=PromotionScope.REGISTER)
    order = provider_orders.register(customer, "notrenew.com")
    page = step_one(signed_in, order, open_page(signed_in, order), "LAUNCH").content.decode()
    assert "The code LAUNCH is not for the domains in your order." in page
    assert "$16.49" in page and "Code LAUNCH" not in page


def test_a_code_used_up_before_the_button_charges_nothing(signed_in, customer, other_customer, provider_orders):
    promotion = code(max_redemptions=1)
    order = provider_orders.register(customer, "usedup.com")
    form = open_page(signed_in, order)
    step_one(signed_in, order, form, "COMEBACK")
    use_taken_elsewhere(promotion, customer_id=other_customer.pk, operation="renew")
    data = {**form, "duration": 1, "confirm": "on", "price_shown": "15.49", "promotion_code": "COMEBACK"}
    page = signed_in.post(url(order), data).content.decode()
    assert "The code COMEBACK has been used up." in page
    assert not Payment.objects.exists()
