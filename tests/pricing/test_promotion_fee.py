"""A promotion capped "at cost" stops at the cost plus the card fee (settings.PAYMENT_FEE_PERCENT and
PAYMENT_FEE_FIXED): at the cost alone, every line sold at the cap lost the fee. And the admin says where a code would
sell below it in one sentence, not a list of every TLD and term."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pricing.fees import cost_floor
from pricing.models import Promotion
from tests.pricing.conftest import markup
from tests.pricing.test_promotions import add_promotion, ask, off, promo, usd

pytestmark = pytest.mark.django_db


@pytest.fixture
def stripe_fee(settings):
    settings.PAYMENT_FEE_PERCENT = Decimal("2.9")
    settings.PAYMENT_FEE_FIXED = Decimal("0.30")


def test_the_floor_pays_the_cost_and_the_fee_on_itself(stripe_fee):
    floor = cost_floor(usd("12.99"))
    assert floor == usd("13.69")  # (12.99 + 0.30) / 0.971 = 13.687..., up to the cent
    fee = floor.amount * Decimal("0.029") + Decimal("0.30")
    assert floor.amount - fee >= Decimal("12.99")  # what is left after the fee still pays the provider


def test_a_capped_discount_leaves_the_card_fee_paid(stripe_fee):
    # 50 % off 14.49 would sell at 7.25; capped, it stops at 13.69, not at the 12.99 cost.
    assert off(promo(value=Decimal("50")), ask(price="14.49", cost="12.99")) == ["0.80"]


def test_without_a_fee_it_stops_at_the_cost(settings):
    settings.PAYMENT_FEE_PERCENT, settings.PAYMENT_FEE_FIXED = Decimal(0), Decimal(0)
    assert off(promo(value=Decimal("50")), ask(price="14.49", cost="12.99")) == ["1.50"]


@markup(percent="20")
def test_a_code_as_large_as_the_markup_is_refused_in_one_sentence(staff_client, costs, stripe_fee):
    costs("com", register={n: str(Decimal("12.99") * n) for n in range(1, 11)})
    html = add_promotion(staff_client, value="20").content.decode()
    assert "This promotion would sell 10 of today&#x27;s prices below their cost and card fee (e.g. .com" in html
    assert html.count("under its cost and card fee") == 1  # one example, not a list of all ten
    assert not Promotion.objects.exists()
