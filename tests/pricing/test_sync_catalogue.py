"""The sync from the TLD catalogue's shape: per-TLD privacy and restrictions kept on the Tld, the costs as the map's."""

from dataclasses import replace
from decimal import Decimal

import pytest

from pricing.models import Operation, Tld
from pricing.quotes import privacy_quote, retail_price, tld_restrictions
from pricing.sync import prices_sync
from storefront.gateway import PriceList
from tests.pricing.conftest import markup, tld_prices

pytestmark = pytest.mark.django_db


def _catalogue(*, us_privacy: bool | None, us_restrictions: str, privacy: str | None = "4.99") -> PriceList:
    com = replace(tld_prices("com", register={1: "11.99"}), privacy_available=True)
    us = replace(
        tld_prices("us", register={1: "8.50", 2: "17.00"}),
        privacy_available=us_privacy,
        restrictions=us_restrictions,
    )
    return PriceList(
        currency="USD", tlds={"com": com, "us": us}, privacy_protection=Decimal(privacy) if privacy else None
    )


@markup()
def test_the_catalogues_privacy_and_restrictions_are_kept_per_tld(provider):
    provider.answer = _catalogue(us_privacy=False, us_restrictions="nexus_category: US nexus category")
    assert prices_sync().ok

    us = Tld.objects.get(name="us")
    assert (us.privacy_available, us.restrictions) == (False, "nexus_category: US nexus category")
    assert retail_price(tld="us", operation=Operation.REGISTER, years=2).cost.amount == Decimal("17.00")
    assert tld_restrictions(tlds=["com", ".us"]) == {"us": "nexus_category: US nexus category"}
    # Privacy is priced where the catalogue offers it, and nowhere it says it has none.
    assert privacy_quote(tld="com", years=1) is not None
    assert privacy_quote(tld="us", years=1) is None


def test_a_later_answer_that_lifts_a_restriction_clears_it(provider):
    provider.answer = _catalogue(us_privacy=False, us_restrictions="nexus_category")
    assert prices_sync().ok
    provider.answer = _catalogue(us_privacy=None, us_restrictions="")
    assert prices_sync().ok

    us = Tld.objects.get(name="us")
    assert (us.privacy_available, us.restrictions) == (None, "")
    assert tld_restrictions(tlds=["us"]) == {}
    assert privacy_quote(tld="us", years=1) is not None


def test_end_to_end_from_the_sandbox_in_the_catalogue_shape(sandbox_url, sandbox_partner, sandbox_control):
    sandbox_control.update("Partner", {"name": sandbox_partner}, price_list_shape="catalogue")
    sandbox_control.update(
        "CatalogueTld", {"partner": sandbox_partner, "tld": "io"}, restrictions={"nexus_category": "US nexus"}
    )

    result = prices_sync()

    assert result.ok, result.message
    assert result.tld_count == 10
    assert retail_price(tld="com", operation=Operation.REGISTER, years=1) is not None
    assert retail_price(tld="ai", operation=Operation.REGISTER, years=1) is None  # its two-year minimum
    assert Tld.objects.get(name="io").restrictions == "nexus_category: US nexus"
    # The catalogue quotes no privacy price, so privacy is not sold after this sync.
    assert privacy_quote(tld="com", years=1) is None
