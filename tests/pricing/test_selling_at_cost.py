"""Selling at cost is a decision, not an accident: with no default markup and no markup rule, every admin page says
so (and `check --deploy` warns: tests/storefront/test_settings.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import override_settings

from pricing.models import PriceRule, RuleKind

pytestmark = pytest.mark.django_db
WARNING = 'id="selling-at-cost"'
AT_COST = {"PRICE_MARKUP_PERCENT": Decimal(0), "PRICE_MARKUP_FIXED": Decimal(0)}


@override_settings(**AT_COST)
@pytest.mark.parametrize("page", ["/admin/", "/admin/billing/payment/", "/admin/pricing/pricerule/"])
def test_every_admin_page_warns_while_the_store_sells_at_cost(admin_client, page):
    html = admin_client.get(page).content.decode()
    assert WARNING in html
    assert "every sale's margin is zero" in html


@override_settings(**AT_COST)
def test_a_markup_rule_ends_the_warning(admin_client):
    PriceRule.objects.create(kind=RuleKind.PERCENT, percent=Decimal("15"))
    assert WARNING not in admin_client.get("/admin/").content.decode()


@override_settings(**AT_COST)
def test_a_rule_that_adds_nothing_does_not(admin_client):
    PriceRule.objects.create(tld="com", kind=RuleKind.PERCENT, percent=Decimal("0"))
    assert WARNING in admin_client.get("/admin/").content.decode()


@override_settings(PRICE_MARKUP_PERCENT=Decimal(0), PRICE_MARKUP_FIXED=Decimal("1.50"))
def test_a_default_markup_ends_it_too(admin_client):
    assert WARNING not in admin_client.get("/admin/").content.decode()
