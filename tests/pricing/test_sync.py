"""The cost table's refresh: a full answer replaces it; anything else keeps the last one and tells staff.

What the table holds is read as the quotes' `cost`: the retail price on top of it is the rules' business
(test_retail_price.py)."""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError

from pricing.models import CostPrice, Operation, PriceRule, PriceSync, RuleKind, Tld
from pricing.money import Money
from pricing.quotes import price_text, retail_price
from pricing.sync import prices_sync
from storefront.gateway import RateLimited, TldPrices, Unauthorized
from tests.pricing.conftest import markup, price_list, tld_prices

pytestmark = pytest.mark.django_db


def usd(amount: str) -> Money:
    return Money(Decimal(amount), "USD")


def catalogue() -> list[TldPrices]:
    return [
        tld_prices("com", register={1: "12.99", 2: "27.98"}, renew={1: "14.99"}, restore={1: "170"}),
        tld_prices("net", register={1: "13.99"}, renew={1: "15.99"}),
        tld_prices("ai", register={2: "159.98"}, renew={1: "79.99"}),
    ]


@pytest.fixture
def synced(provider):
    provider.answer = price_list(*catalogue())
    assert prices_sync().ok
    return provider


def test_a_full_answer_fills_the_table(provider):
    provider.answer = price_list(*catalogue())

    result = prices_sync()

    assert result.ok
    assert result.tld_count == 3
    assert result.added == ["ai", "com", "net"]
    assert result.message.startswith("Prices of 3 TLDs fetched")
    assert retail_price(tld="com", operation=Operation.RESTORE, years=1).cost == usd("170")
    assert retail_price(tld="ai", operation=Operation.REGISTER, years=2).cost == usd("159.98")
    assert retail_price(tld="ai", operation=Operation.REGISTER, years=1) is None
    assert PriceSync.objects.get().ok


def test_a_second_sync_updates_prices_and_records_when_they_changed(synced):
    before = CostPrice.objects.get(tld__name="net", operation="register", years=1)
    synced.answer = price_list(*catalogue()[:2], tld_prices("ai", register={2: "165.00"}, renew={1: "82.50"}))

    result = prices_sync()

    assert result.ok and result.changed_count == 2
    assert retail_price(tld="ai", operation="register", years=2).cost == usd("165.00")
    after = CostPrice.objects.get(tld__name="net", operation="register", years=1)
    assert after.changed_at == before.changed_at  # unchanged price...
    assert after.fetched_at > before.fetched_at  # ...but confirmed again


@pytest.mark.parametrize(
    "error", [Unauthorized("Invalid API key", status=401), RateLimited(retry_after=30)], ids=["refused", "limited"]
)
def test_a_failed_call_keeps_the_last_table_and_tells_staff(synced, error, caplog):
    synced.answer = error

    result = prices_sync()

    assert not result.ok
    assert "could not be fetched" in result.message
    assert retail_price(tld="com", operation="register", years=1).cost == usd("12.99")
    assert Tld.objects.filter(sold=True).count() == 3
    last = PriceSync.objects.first()
    assert not last.ok and last.message == result.message
    assert any(r.levelname == "ERROR" and "price sync failed" in r.getMessage() for r in caplog.records)


def test_an_unreachable_provider(synced, provider_down):
    result = prices_sync()
    assert not result.ok
    assert retail_price(tld="net", operation="register", years=1) is not None


def test_an_empty_answer_keeps_the_last_table(synced):
    synced.answer = price_list()

    result = prices_sync()

    assert not result.ok
    assert result.message == "The provider's price list was empty."
    assert Tld.objects.filter(sold=True).count() == 3


def test_an_entry_without_register_prices_is_a_partial_answer(synced):
    broken = TldPrices(tld="net", register={}, renew={1: Decimal("15.99")}, transfer={}, restore={})
    synced.answer = price_list(catalogue()[0], broken, catalogue()[2])

    result = prices_sync()

    assert not result.ok
    assert ".net" in result.message
    assert retail_price(tld="net", operation="register", years=1).cost == usd("13.99")


def test_an_answer_missing_most_tlds_is_refused_unless_staff_accept_it(synced):
    synced.answer = price_list(catalogue()[0])

    refused = prices_sync()
    assert not refused.ok
    assert "leaves out 2 of the 3 TLDs" in refused.message
    assert retail_price(tld="net", operation="register", years=1) is not None

    accepted = prices_sync(accept_drops=True)
    assert accepted.ok
    assert accepted.dropped == ["ai", "net"]


def test_a_dropped_tld_stops_being_sold_and_keeps_its_history(synced):
    synced.answer = price_list(*catalogue()[:2])

    result = prices_sync()

    assert result.ok and result.dropped == ["ai"]
    assert "No longer sold (the provider dropped them): .ai." in result.message
    assert retail_price(tld="ai", operation="register", years=2) is None
    ai = Tld.objects.get(name="ai")
    assert not ai.sold and ai.dropped_at is not None
    assert ai.costs.count() == 2  # history kept

    synced.answer = price_list(*catalogue())
    assert prices_sync().ok
    assert retail_price(tld="ai", operation="register", years=2) is not None


def test_a_term_no_longer_quoted_stops_being_sold(synced):
    synced.answer = price_list(tld_prices("com", register={1: "12.99"}, renew={1: "14.99"}), *catalogue()[1:])

    assert prices_sync().ok

    assert retail_price(tld="com", operation="register", years=2) is None
    assert CostPrice.objects.filter(tld__name="com", operation="register", years=2, current=False).exists()


def test_a_rule_put_below_cost_by_new_prices_is_reported(synced):
    PriceRule.objects.create(tld="com", operation="register", kind=RuleKind.FIXED_PRICE, amount=Decimal("13.99"))
    synced.answer = price_list(tld_prices("com", register={1: "14.50"}, renew={1: "14.99"}), *catalogue()[1:])

    result = prices_sync()

    assert result.ok
    assert len(result.warnings) == 1 and "below its cost of $14.50" in result.warnings[0]


def test_the_command_reports_and_fails_loudly(synced, capsys):
    call_command("sync_prices")
    assert "Prices of 3 TLDs fetched, 0 changed." in capsys.readouterr().out

    synced.answer = price_list()
    with pytest.raises(CommandError, match="empty"):
        call_command("sync_prices")


@markup()  # the price lines below are the sandbox's costs as they read without markup
def test_end_to_end_against_the_sandbox(sandbox_url, sandbox_partner):
    result = prices_sync()

    assert result.ok, result.message
    assert result.tld_count == 10
    com = retail_price(tld="com", operation=Operation.REGISTER, years=1)
    assert com.cost == usd("12.99")
    assert retail_price(tld="com", operation=Operation.RENEW, years=1).cost == usd("14.99")
    # The sandbox's .ai has a two-year minimum; its .shop a free first year.
    assert retail_price(tld="ai", operation=Operation.REGISTER, years=1) is None
    assert retail_price(tld="shop", operation=Operation.REGISTER, years=1).cost == usd("0")
    assert price_text(tld="shop") == "Free for the first year, then $29.99/yr"
    assert price_text(tld="ai") == "2-year minimum: $159.98 for the first 2 years, then $79.99/yr"


def test_a_sync_that_collides_with_another_changes_nothing(synced, monkeypatch):
    def collide(rows, **options):
        raise IntegrityError("UNIQUE constraint failed: pricing_costprice.tld_id, pricing_costprice.operation")

    synced.answer = price_list(
        tld_prices("com", register={1: "20.00"}, renew={1: "20.00"}),
        *catalogue()[1:],
        tld_prices("org", register={1: "11.99"}),
    )
    # Another sync added .org's new term first: the insert collides after the existing rows were updated.
    monkeypatch.setattr(CostPrice.objects, "bulk_create", collide)

    result = prices_sync()

    assert not result.ok
    assert "at the same time" in result.message
    # All or nothing: .com's new price, written before the collision, was rolled back.
    assert retail_price(tld="com", operation="register", years=1).cost == usd("12.99")
