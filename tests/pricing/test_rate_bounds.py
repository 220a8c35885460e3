"""An absurd exchange rate (digits typed twice, a feed gone wrong) is refused where it is entered: it never reaches
Buy, where the price it makes no longer fits the money columns."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.test import override_settings

from pricing.models import Currency, ExchangeRate
from pricing.tasks import currency_rates_refresh
from tests.pricing.test_rate_feed import ECB, eur, feed  # noqa: F401  (fixtures)
from tests.storefront.scripted_server import Answer

pytestmark = pytest.mark.django_db


@override_settings(STORE_CURRENCY="EUR")
def test_the_admin_refuses_an_absurd_provider_rate(staff_client):
    page = staff_client.post(
        "/admin/pricing/exchangerate/add/", {"provider_currency": "USD", "store_currency": "EUR", "rate": "9200000"}
    ).content.decode()
    assert "Ensure this value is less than or equal to 100000" in page
    assert not ExchangeRate.objects.exists()


def test_the_admin_refuses_an_absurd_currency_rate(staff_client):
    page = staff_client.post(
        "/admin/pricing/currency/add/",
        {"code": "EUR", "enabled": "on", "rate": "920000000", "price_ending": "0.99"},
    ).content.decode()
    assert "Ensure this value is less than or equal to 100000" in page
    assert not Currency.objects.exists()


def test_the_database_refuses_one_written_past_the_admin():
    with pytest.raises(IntegrityError), transaction.atomic():
        Currency.objects.create(code="EUR", enabled=True, rate=Decimal("920000000"))
    with pytest.raises(IntegrityError), transaction.atomic():
        ExchangeRate.objects.create(store_currency="EUR", rate=Decimal("920000000"))


def test_an_absurd_feed_quote_keeps_the_last_rate(feed, eur):  # noqa: F811
    feed.script(Answer(body=ECB.replace(b'currency="USD" rate="1.0850"', b'currency="USD" rate="0.0000001"')))
    currency_rates_refresh.enqueue()
    eur.refresh_from_db()
    assert eur.rate == Decimal("0.900000")
