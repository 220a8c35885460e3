"""The daily price sync is a scheduled job; when it fails, or leaves a rule below cost, ADMINS get an email."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core import mail
from django.test import override_settings

from pricing.models import CostPrice, PriceRule, PriceSync
from pricing.tasks import sync_prices
from storefront.background.scheduler import jobs
from tests.pricing.conftest import price_list, tld_prices

pytestmark = pytest.mark.django_db

ADMINS = [("Ops", "ops@example.com")]


def test_the_sync_is_scheduled_daily():
    job = next(job for job in jobs() if job.task is sync_prices)
    assert job.cron.split()[2:] == ["*", "*", "*"] and "*" not in job.cron.split()[:2]


@override_settings(ADMINS=ADMINS)
def test_a_failed_sync_mails_the_admins_and_keeps_the_table(provider_down):
    sync_prices.enqueue()

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ops@example.com"]
    assert "Price sync failed" in message.subject
    assert "The last cost table keeps pricing the store" in message.body
    assert "/admin/pricing/pricesync/" in message.body
    assert PriceSync.objects.get().ok is False


@override_settings(ADMINS=ADMINS)
def test_a_good_sync_mails_nobody(provider):
    provider.answer = price_list(tld_prices("com", register={1: "12.99"}))

    sync_prices.enqueue()

    assert mail.outbox == []
    assert CostPrice.objects.get(tld__name="com", operation="register").amount == Decimal("12.99")


@override_settings(ADMINS=ADMINS)
def test_a_rule_left_below_cost_is_mailed(provider):
    provider.answer = price_list(tld_prices("com", register={1: "9.00"}))
    sync_prices.enqueue()
    PriceRule.objects.create(tld="com", operation="", kind="fixed_price", amount=Decimal("10.00"))
    provider.answer = price_list(tld_prices("com", register={1: "12.99"}))

    sync_prices.enqueue()

    assert len(mail.outbox) == 1
    assert "below cost" in mail.outbox[0].subject
    assert ".com" in mail.outbox[0].body
