"""The rate feed (ECB daily XML) updates the currencies marked "from the feed"; a failure keeps the last rate and,
once a rate is stale, mails staff once."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from pricing.models import Currency
from pricing.tasks import currency_rates_refresh
from storefront.background.scheduler import jobs
from tests.storefront.scripted_server import Answer, ScriptedServer

pytestmark = pytest.mark.django_db

ADMINS = [("Ops", "ops@example.com")]

ECB = b"""<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <Cube><Cube time="2026-11-24">
    <Cube currency="USD" rate="1.0850"/>
    <Cube currency="JPY" rate="163.12"/>
    <Cube currency="GBP" rate="0.8321"/>
  </Cube></Cube>
</gesmes:Envelope>"""


@pytest.fixture
def feed():
    with ScriptedServer().running() as server:
        with override_settings(CURRENCY_FEED_URL=server.url + "/eurofxref-daily.xml", ADMINS=ADMINS):
            yield server


@pytest.fixture
def eur():
    set_at = timezone.now() - dt.timedelta(hours=1)
    return Currency.objects.create(
        code="EUR", enabled=True, rate=Decimal("0.900000"), rate_from_feed=True, rate_set_at=set_at, rate_set_by="ann"
    )


def test_the_feed_is_scheduled():
    assert any(job.task is currency_rates_refresh for job in jobs())


def test_the_feed_updates_the_rates_against_the_store_currency(feed, eur):
    jpy = Currency.objects.create(code="JPY", enabled=True, rate=Decimal(150), rate_from_feed=True)
    by_hand = Currency.objects.create(code="GBP", enabled=True, rate=Decimal("0.80"), rate_from_feed=False)
    feed.script(Answer(body=ECB))

    currency_rates_refresh.enqueue()

    eur.refresh_from_db()
    jpy.refresh_from_db()
    by_hand.refresh_from_db()
    assert eur.rate == Decimal("0.921659")  # 1 / 1.0850 euros per dollar (the store sells in USD)
    assert jpy.rate == Decimal("150.341014")  # 163.12 / 1.0850
    assert eur.rate_set_by == "rate feed" and eur.rate_set_at > timezone.now() - dt.timedelta(minutes=1)
    assert by_hand.rate == Decimal("0.80")  # staff's own rate is left alone
    assert feed.seen[0].path == "/eurofxref-daily.xml"
    assert mail.outbox == []


@pytest.mark.parametrize(
    "answer",
    [
        Answer(status=503),
        Answer(body=b"<html>maintenance</html>"),
        Answer(drop=True),
        Answer(body=ECB + b"<!--" + b"x" * 2_000_000 + b"-->"),  # larger than any rate list: refused, not parsed
        Answer(status=302, headers={"Location": "http://127.0.0.1:9/elsewhere.xml"}),  # never followed elsewhere
    ],
)
def test_a_failed_feed_keeps_the_last_rate_and_mails_nobody_while_it_is_fresh(feed, eur, answer):
    feed.default = answer

    currency_rates_refresh.enqueue()

    eur.refresh_from_db()
    assert eur.rate == Decimal("0.900000")
    assert mail.outbox == []


@override_settings(CURRENCY_RATE_STALE_HOURS=48)
def test_a_stale_rate_is_mailed_to_staff_once(feed, eur):
    Currency.objects.filter(pk=eur.pk).update(rate_set_at=timezone.now() - dt.timedelta(hours=49))
    feed.default = Answer(status=500)

    currency_rates_refresh.enqueue()
    currency_rates_refresh.enqueue()

    eur.refresh_from_db()
    assert eur.rate == Decimal("0.900000")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert "Currency rates are stale" in message.subject
    assert "EUR: 1 USD = 0.900000 EUR" in message.body and "HTTP 500" in message.body
    assert "/admin/pricing/currency/" in message.body

    feed.default = Answer(body=ECB)  # the feed is back: the rate is fresh, and a later stale spell is news again
    currency_rates_refresh.enqueue()
    eur.refresh_from_db()
    assert eur.rate == Decimal("0.921659") and eur.stale_alerted_at is None


def test_without_a_feed_url_nothing_is_asked(eur):
    with override_settings(CURRENCY_FEED_URL=""):
        assert currency_rates_refresh.call() == "no rate feed set"
