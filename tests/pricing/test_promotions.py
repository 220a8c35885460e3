"""Promotion codes: what a code takes off each line (percentage, fixed, first year or renewal, per TLD), its date
window, its limits (taken once, under concurrency), the cost guard (capped at cost unless a loss leader within its
cap), a use given back, and the admin's warning at entry."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from pricing.models import Operation, Promotion, PromotionKind, PromotionRedemption, PromotionScope
from pricing.money import Money
from pricing.promotions import (
    LineAsk,
    LineDiscount,
    PromotionRefused,
    line_asks_priced,
    promotion_discounts,
    promotion_find,
    redemptions_release,
    redemptions_take,
)
from tests.pricing.conftest import markup, promotion_make

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def usd(amount: str) -> Money:
    return Money(Decimal(amount), "USD")


def promo(**fields) -> Promotion:
    return promotion_make(**fields)


def ask(name: str = "a.com", *, price: str = "15.00", cost: str | None = "10.00", op: str = "register") -> LineAsk:
    return LineAsk(name, name.rpartition(".")[2], op, usd(price), usd(cost) if cost is not None else None)


def off(promotion: Promotion, *lines: LineAsk, customer: int = 1) -> list[str]:
    return [str(d.discount.amount) for d in promotion_discounts(promotion, lines, customer_id=customer)]


def take(promotion: Promotion, *lines: LineAsk, customer: int = 1, checkout: uuid.UUID | None = None) -> uuid.UUID:
    checkout = checkout or uuid.uuid4()
    discounts = promotion_discounts(promotion, lines, customer_id=customer, exclude_checkout=checkout)
    redemptions_take(promotion_id=promotion.pk, customer_id=customer, checkout_id=checkout, lines=discounts)
    return checkout


def test_a_percentage_comes_off_each_line_rounded_to_the_cent():
    assert off(promo(value=Decimal("20")), ask("a.com"), ask("b.com", price="15.99")) == ["3.00", "3.20"]


def test_a_fixed_amount_comes_off_each_line_once_whatever_its_term():
    assert off(
        promo(kind=PromotionKind.FIXED, value=Decimal("4")), ask(price="15.00"), ask("b.com", price="30.00")
    ) == [
        "4.00",
        "4.00",
    ]


def test_first_year_renewal_or_both():
    register, renew = ask("a.com"), ask("b.com", op="renew")
    assert off(promo(code="NEW"), register, renew) == ["3.00", "0"]
    assert off(promo(code="BACK", applies_to=PromotionScope.RENEW), register, renew) == ["0", "3.00"]
    assert off(promo(code="ALL", applies_to=PromotionScope.BOTH), register, renew) == ["3.00", "3.00"]


def test_only_the_tlds_named():
    assert off(promo(tlds="io, net"), ask("a.com"), ask("b.io")) == ["0", "3.00"]
    with pytest.raises(PromotionRefused) as refused:
        off(promo(code="IOONLY", tlds="io"), ask("a.com"))
    assert refused.value.code == "not_these"
    assert "not for the domains in your order" in refused.value.message


def test_the_date_window_and_the_active_flag():
    promo(code="SOON", starts_at=NOW + dt.timedelta(days=2))
    promo(code="OVER", starts_at=NOW - dt.timedelta(days=9), ends_at=NOW - dt.timedelta(days=1))
    promo(code="OFF", active=False)
    promo(code="OPEN", ends_at=NOW + dt.timedelta(days=1))
    expected = {"soon": "not_yet", "over": "expired", "off": "unknown", "nope": "unknown"}
    for code, why in expected.items():
        with pytest.raises(PromotionRefused) as refused:
            promotion_find(code)  # typed in any case, with spaces
        assert refused.value.code == why
    assert promotion_find("  open ").code == "OPEN"


def test_never_below_cost_the_discount_is_capped_at_the_margin():
    [line] = promotion_discounts(promo(value=Decimal("50")), [ask(price="15.00", cost="10.00")], customer_id=1)
    assert (line.discount, line.charged, line.capped, line.below_cost) == (usd("5.00"), usd("10.00"), True, False)
    # A cost that is not known: no discount at all, never a sale blind.
    [blind] = promotion_discounts(promo(code="BLIND"), [ask(cost=None)], customer_id=1)
    assert blind.discount.is_zero


def test_a_loss_leader_sells_below_cost_only_up_to_its_cap():
    leader = promo(value=Decimal("100"), loss_leader=True, loss_leader_cap=1)
    first, second = promotion_discounts(leader, [ask("a.com"), ask("b.com")], customer_id=1)
    assert (first.charged, first.below_cost) == (usd("0.00"), True)
    assert (second.charged, second.below_cost, second.capped) == (usd("10.00"), False, True)  # the cap is used up
    take(leader, ask("a.com"))
    # Another customer later: the one loss-making line is taken, so theirs is capped at cost.
    [later] = promotion_discounts(leader, [ask("c.com")], customer_id=2)
    assert (later.charged, later.below_cost) == (usd("10.00"), False)


def test_the_total_limit_counts_lines_and_is_used_up():
    limited = promo(max_redemptions=2)
    assert off(limited, ask("a.com"), ask("b.com"), ask("c.com")) == ["3.00", "3.00", "0"]
    take(limited, ask("a.com"), ask("b.com"))
    with pytest.raises(PromotionRefused) as refused:
        off(limited, ask("d.com"), customer=2)
    assert refused.value.code == "used_up"
    assert "has been used up" in refused.value.message


def test_the_per_customer_limit():
    once = promo(max_per_customer=1)
    take(once, ask("a.com"), customer=1)
    with pytest.raises(PromotionRefused):
        off(once, ask("b.com"), customer=1)
    assert off(once, ask("b.com"), customer=2) == ["3.00"]


def test_taking_the_same_checkout_twice_counts_once():
    limited = promo(max_redemptions=1)
    checkout = take(limited, ask("a.com"))
    take(limited, ask("a.com"), checkout=checkout)  # a double click, a second tab
    assert PromotionRedemption.objects.filter(promotion=limited).count() == 1


def test_a_use_taken_since_the_review_refuses_the_buy():
    limited = promo(max_redemptions=1)
    reviewed = promotion_discounts(limited, [ask("a.com")], customer_id=1)
    take(limited, ask("b.com"), customer=2)  # someone else bought with the last use meanwhile
    with pytest.raises(PromotionRefused) as refused:
        redemptions_take(promotion_id=limited.pk, customer_id=1, checkout_id=uuid.uuid4(), lines=reviewed)
    assert refused.value.code == "used_up"
    assert "since you reviewed your order" in refused.value.message
    assert PromotionRedemption.objects.filter(promotion=limited).count() == 1


def test_a_line_not_delivered_gives_its_use_back():
    limited = promo(max_redemptions=1)
    checkout = take(limited, ask("a.com"))
    assert redemptions_release(checkout_id=checkout, references=["a.com"]) == 1
    assert off(limited, ask("b.com"), customer=2) == ["3.00"]
    take(limited, ask("b.com"), customer=2)
    # The first checkout bought again (its Buy retried) takes a use again only if one is left: none is.
    again = [LineDiscount("a.com", Operation.REGISTER, usd("15.00"), usd("3.00"))]
    with pytest.raises(PromotionRefused):
        redemptions_take(promotion_id=limited.pk, customer_id=1, checkout_id=checkout, lines=again)


@markup(fixed="1.50")
def test_lines_are_priced_with_todays_cost_from_the_price_book(costs):
    costs("com", register={1: "12.99", 2: "25.98"})
    [line] = line_asks_priced([("a.com", "com", 2, usd("28.98"))], operation=Operation.REGISTER)
    assert line.cost == usd("25.98")


@pytest.mark.django_db(transaction=True)
def test_two_buyers_racing_for_the_last_use_get_it_once():
    limited = promo(max_redemptions=1)
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def buy(customer: int) -> None:
        try:
            # Both reviewed while one use was left.
            discounts = promotion_discounts(limited, [ask(f"c{customer}.com")], customer_id=customer)
            start.wait()
            redemptions_take(promotion_id=limited.pk, customer_id=customer, checkout_id=uuid.uuid4(), lines=discounts)
            outcomes.append("taken")
        except PromotionRefused:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=buy, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused", "taken"]
    assert PromotionRedemption.objects.filter(promotion=limited, released_at=None).count() == 1


# --- The admin: the cost guard at entry ----------------------------------------------------------------------------


def add_promotion(client, **fields):
    data = {
        "code": "launch",
        "kind": "percent",
        "value": "50",
        "applies_to": "register",
        "tlds": "com",
        "starts_at_0": NOW.strftime("%Y-%m-%d"),
        "starts_at_1": "00:00:00",
        "active": "on",
        # The redemptions inline's (empty) formset, as the admin's page posts it.
        "redemptions-TOTAL_FORMS": "0",
        "redemptions-INITIAL_FORMS": "0",
    }
    data.update(fields)
    return client.post("/admin/pricing/promotion/add/", data)


@markup(fixed="1.50")
def test_the_admin_names_where_a_promotion_would_sell_below_cost(staff_client, costs):
    costs("com", register={1: "12.99", 2: "25.98"}, renew={1: "12.99"})
    response = add_promotion(staff_client)
    assert response.status_code == 200
    html = response.content.decode()
    # One sentence: how many prices (the two first-year terms, not the renewal), an example, and what to do.
    assert "would sell 2 of today&#x27;s prices below their cost and card fee (e.g. .com register 1y" in html
    assert "tick &#x27;Cap at cost&#x27;" in html
    assert ".com renew" not in html  # first years only
    assert not Promotion.objects.exists()


@markup(fixed="1.50")
def test_the_admin_saves_it_capped_at_cost_or_as_a_loss_leader_with_a_cap(staff_client, costs):
    costs("com", register={1: "12.99"})
    assert add_promotion(staff_client, capped_ok="on").status_code == 302
    assert Promotion.objects.get().code == "LAUNCH"
    leader = add_promotion(staff_client, code="free1", value="100", loss_leader="on")
    assert "A loss leader needs a cap" in leader.content.decode()
    assert (
        add_promotion(staff_client, code="free1", value="100", loss_leader="on", loss_leader_cap="10").status_code
        == 302
    )
    page = staff_client.get(f"/admin/pricing/promotion/{Promotion.objects.get(code='FREE1').pk}/change/")
    assert "sold at a loss up to the cap" in page.content.decode()


@markup(fixed="1.50")
def test_a_promotion_within_the_margin_saves_without_a_word(staff_client, costs):
    costs("com", register={1: "12.99"})
    assert add_promotion(staff_client, kind="fixed", value="1.00").status_code == 302


def test_a_fixed_amount_set_in_the_store_currency_comes_off_in_the_lines_currency():
    from pricing.currencies import currency_table_forget
    from pricing.models import Currency

    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.90"), price_ending=Decimal("0.99"))
    Currency.objects.create(code="JPY", enabled=True, rate=Decimal("151.37"), price_ending=Decimal(0))
    currency_table_forget()
    fixed = promo(kind=PromotionKind.FIXED, value=Decimal("4"))
    eur = LineAsk("a.com", "com", "register", Money(Decimal("15.99"), "EUR"), Money(Decimal("9.00"), "EUR"))
    jpy = LineAsk("b.com", "com", "register", Money(Decimal("2500"), "JPY"), Money(Decimal("1500"), "JPY"))
    # $4 at 0.90 is 3.60 EUR; at 151.37 it is 605 yen (whole units), never 4 of either.
    assert off(fixed, eur, jpy) == ["3.60", "605"]
    percent = promo(code="TENJPY", value=Decimal("10"))
    assert off(percent, LineAsk("c.com", "com", "register", Money(Decimal("2555"), "JPY"), None)) == ["0"]
    odd = LineAsk("c.com", "com", "register", Money(Decimal("2555"), "JPY"), Money(Decimal("1000"), "JPY"))
    assert off(percent, odd) == ["256"]  # 255.5 yen rounds to whole yen
