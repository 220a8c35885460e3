"""Staff set rules and the rate, and see the cost table with its age and the state of the last sync."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import override_settings
from django.utils import timezone

from pricing.models import CostPrice, ExchangeRate, PriceRule, PriceSync, Tld
from pricing.quotes import retail_price
from tests.pricing.conftest import markup, price_list, tld_prices

pytestmark = pytest.mark.django_db

RULES = "/admin/pricing/pricerule/"
COSTS = "/admin/pricing/costprice/"


def add_rule(client, **fields):
    data = {"tld": "", "operation": "", "kind": "percent", "percent": "0", "amount": "0", "note": "", **fields}
    return client.post(f"{RULES}add/", data)


def test_a_rule_that_sells_below_cost_is_refused(staff_client, costs):
    costs("com", register={1: "12.99", 2: "27.98"}, renew={1: "14.99"})

    response = add_rule(staff_client, tld=".COM", operation="register", kind="fixed_price", amount="13.50")

    assert response.status_code == 200
    assert "This rule would sell .com register for 2 years at $27.00, below its cost of $27.98." in (
        response.content.decode()
    )
    assert not PriceRule.objects.exists()


def test_a_negative_percentage_below_cost_is_refused(staff_client, costs):
    costs("com", register={1: "12.99"}, renew={1: "14.99"})
    response = add_rule(staff_client, kind="percent", percent="-5")
    assert "below its cost of $12.99" in response.content.decode()
    assert not PriceRule.objects.exists()


def test_a_rule_at_or_above_cost_is_saved_and_prices_at_once(staff_client, costs):
    costs("com", register={1: "12.99", 2: "27.98"}, renew={1: "14.99"})

    response = add_rule(staff_client, tld=".com", operation="register", kind="fixed_price", amount="13.99")

    assert response.status_code == 302
    rule = PriceRule.objects.get()
    assert rule.tld == "com"
    assert retail_price(tld="com", operation="register", years=2).retail.amount == Decimal("27.98")


def test_a_rule_is_judged_only_where_it_applies(staff_client, costs):
    # A cheap rule for every TLD is fine when the one expensive TLD has its own rule.
    costs("com", register={1: "12.99"}, renew={1: "12.99"})
    costs("io", register={1: "39.99"}, renew={1: "49.99"})
    PriceRule.objects.create(tld="io", kind="fixed_price", amount=Decimal("59.99"))

    response = add_rule(staff_client, kind="fixed_price", amount="14.99")

    assert response.status_code == 302
    assert retail_price(tld="io", operation="renew", years=1).retail.amount == Decimal("59.99")


def test_the_cost_table_shows_its_age_and_the_failed_last_sync(staff_client, costs):
    costs("com", register={1: "12.99"})
    CostPrice.objects.update(fetched_at=timezone.now() - dt.timedelta(days=3))
    started = timezone.now() - dt.timedelta(days=3)
    PriceSync.objects.create(started_at=started, finished_at=started, ok=True, tld_count=1)
    PriceSync.objects.create(
        started_at=timezone.now(), finished_at=timezone.now(), ok=False, message="The provider's price list was empty."
    )

    page = staff_client.get(COSTS).content.decode()

    assert "3\xa0days ago" in page
    assert "failed and the previous table is in use: The provider&#x27;s price list was empty." in page
    assert "last confirmed by the provider 3\xa0days ago" in page
    assert "Refresh prices from the provider" in page


def test_the_refresh_button_runs_a_sync(staff_client, provider):
    provider.answer = price_list(tld_prices("com", register={1: "12.99"}, renew={1: "14.99"}))

    response = staff_client.post(f"{COSTS}sync/", follow=True)

    assert "Prices of 1 TLDs fetched, 2 changed. New: .com." in response.content.decode()
    assert retail_price(tld="com", operation="renew", years=1) is not None


def test_a_failed_refresh_says_so(staff_client, provider_down):
    response = staff_client.post(f"{COSTS}sync/", follow=True)
    assert "Price sync failed; the previous table stays in use." in response.content.decode()


def test_the_refresh_needs_the_permission(client, provider):
    clerk = get_user_model().objects.create_user("clerk@example.com", "clerk@example.com", "x", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_costprice"))
    client.force_login(clerk)

    client.post(f"{COSTS}sync/")

    assert provider.calls == 0


@markup()
@override_settings(STORE_CURRENCY="EUR")
def test_staff_are_told_to_set_the_rate_and_can_set_it(staff_client, costs):
    costs("com", register={1: "10.00"})
    page = staff_client.get(COSTS).content.decode()
    assert "set the USD to EUR rate" in page

    response = staff_client.post(
        "/admin/pricing/exchangerate/add/", {"provider_currency": "usd", "store_currency": "eur", "rate": "0.9"}
    )

    assert response.status_code == 302
    assert ExchangeRate.objects.get().store_currency == "EUR"
    assert retail_price(tld="com", operation="register", years=1).retail.amount == Decimal("9.00")
    assert "set the USD to EUR rate" not in staff_client.get(COSTS).content.decode()


def test_a_second_rule_for_the_same_tld_and_operation_gets_a_message(staff_client, costs):
    costs("com", register={1: "12.99"}, renew={1: "14.99"})
    PriceRule.objects.create(tld="com", kind="percent", percent=Decimal("10"))

    response = add_rule(staff_client, tld=".com", kind="percent", percent="20")

    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert PriceRule.objects.count() == 1


def test_staff_see_which_tlds_are_sold_and_their_costs(staff_client, costs):
    com = costs("com", register={1: "12.99"})
    costs("biz", sold=False, register={1: "9.99"})

    everything = staff_client.get("/admin/pricing/tld/").content.decode()
    listing = staff_client.get("/admin/pricing/tld/?sold__exact=0").content.decode()
    detail = staff_client.get(f"/admin/pricing/tld/{com.pk}/change/").content.decode()

    assert ">.biz<" in everything and ">.com<" in everything
    assert ">.biz<" in listing and ">.com<" not in listing
    assert "12.99" in detail


@markup(percent="20")
def test_the_cost_table_shows_the_retail_price_and_margin(staff_client, costs, django_assert_max_num_queries):
    costs("com", register={1: "12.99"}, renew={1: "14.99"})
    costs("biz", sold=False, register={1: "9.99"})
    for n in range(30):
        costs(f"t{n}", register={1: "10.00"})

    with django_assert_max_num_queries(20):  # 33 rows priced from one price book, not queries per row
        assert staff_client.get(COSTS).status_code == 200
    page = staff_client.get(f"{COSTS}?q=com&operation__exact=register").content.decode()

    assert '<td class="field-retail">$15.59</td>' in page
    assert '<td class="field-margin">$2.60</td>' in page
    everything = staff_client.get(f"{COSTS}?q=biz").content.decode()
    assert '<td class="field-retail">not for sale</td>' in everything


def test_staff_see_a_tlds_restrictions_and_whether_privacy_is_offered(staff_client, costs):
    us = costs("us", register={1: "8.50"})
    Tld.objects.filter(pk=us.pk).update(restrictions="nexus_category: US nexus category", privacy_available=False)
    costs("com", register={1: "12.99"})

    listing = staff_client.get("/admin/pricing/tld/?privacy_available__exact=0").content.decode()

    assert ">.us<" in listing and ">.com<" not in listing
    assert "nexus_category: US nexus category" in listing
