"""`GET /api/v1/pricing` in both documented shapes read into the same PriceList; a register refusal for a TLD's
restrictions typed as such; MetaSearch's second documented host ("SuperSonic") as a configured URL."""

from decimal import Decimal

import pytest

from storefront.gateway import PriceList, RegistrationRefused, ResellerGateway, TldRestricted, Unavailable, gateway
from tests.storefront.scripted_server import Answer, ScriptedServer
from tests.storefront.test_gateway_contract import CUSTOMER

OPENAPI_SHAPE = {
    "dotcom": {
        "register": {"1": 11.99, "2": 23.98},
        "renew": {"1": 14.99, "2": 29.98},
        "transfer": {"1": 11.99},
        "restore": {"1": 170.0},
    },
    "privacy_protection": 4.99,
}
CATALOGUE_SHAPE = {
    "tlds": [
        {
            "tld": ".com",
            "registration_price": 11.99,
            "renewal_price": 14.99,
            "transfer_price": 11.99,
            "currency": "USD",
            "min_period": 1,
            "max_period": 2,
            "privacy_available": True,
            "restrictions": None,
        },
        {
            "tld": ".us",
            "registration_price": 8.5,
            "renewal_price": 9.0,
            "transfer_price": 9.0,
            "currency": "USD",
            "min_period": 1,
            "max_period": 3,
            "privacy_available": False,
            "restrictions": {"nexus_category": "US nexus category", "purpose": "Application purpose"},
        },
    ]
}


@pytest.fixture
def server():
    with ScriptedServer().running() as running:
        yield running


@pytest.fixture
def client(server):
    return ResellerGateway(
        base_url=server.url,
        metasearch_url=server.url + "/ms",
        api_key="test_prices-key",
        connect_timeout=0.5,
        read_timeout=1.0,
        get_retries=0,
    )


def _prices(client, server, body) -> PriceList:
    server.script(Answer(status=200, body=body))
    return client.pricing()


def test_both_shapes_give_the_same_cost_table_for_the_same_prices(client, server):
    openapi = _prices(client, server, OPENAPI_SHAPE).tlds["com"]
    catalogue = _prices(client, server, CATALOGUE_SHAPE).tlds["com"]
    assert (catalogue.register, catalogue.renew) == (openapi.register, openapi.renew)
    assert catalogue.register == {1: Decimal("11.99"), 2: Decimal("23.98")}
    assert catalogue.transfer == {1: Decimal("11.99")}


def test_the_catalogue_prices_every_term_its_periods_allow(client, server):
    us = _prices(client, server, CATALOGUE_SHAPE).tlds["us"]
    assert us.register == {1: Decimal("8.5"), 2: Decimal("17.0"), 3: Decimal("25.5")}
    assert us.renew == {1: Decimal("9.0"), 2: Decimal("18.0"), 3: Decimal("27.0")}
    assert us.min_term == 1


def test_a_minimum_period_starts_the_terms_there(client, server):
    body = {"tlds": [{**CATALOGUE_SHAPE["tlds"][0], "tld": ".ai", "min_period": 2, "max_period": 3}]}
    ai = _prices(client, server, body).tlds["ai"]
    assert sorted(ai.register) == [2, 3]
    assert ai.min_term == 2


def test_the_catalogue_says_privacy_and_restrictions_per_tld_and_quotes_no_privacy_price(client, server):
    prices = _prices(client, server, CATALOGUE_SHAPE)
    assert (prices.tlds["com"].privacy_available, prices.tlds["com"].restrictions) == (True, "")
    assert prices.tlds["us"].privacy_available is False
    assert prices.tlds["us"].restrictions == "nexus_category: US nexus category; purpose: Application purpose"
    assert prices.privacy_protection is None
    assert prices.currency == "USD"


def test_the_openapi_map_says_nothing_of_privacy_per_tld(client, server):
    prices = _prices(client, server, OPENAPI_SHAPE)
    assert prices.tlds["com"].privacy_available is None
    assert prices.privacy_protection == Decimal("4.99")


@pytest.mark.parametrize(
    "row",
    [
        {"tld": ".com", "registration_price": "eleven", "min_period": 1, "max_period": 1},
        {"tld": ".com", "registration_price": 11, "min_period": 3, "max_period": 2},
        {"registration_price": 11, "min_period": 1, "max_period": 1},
        "com",
    ],
)
def test_an_unreadable_catalogue_is_unavailable_not_a_crash(client, server, row):
    server.script(Answer(status=200, body={"tlds": [row]}))
    with pytest.raises(Unavailable):
        client.pricing()


def test_a_catalogue_in_two_currencies_is_refused(client, server):
    body = {"tlds": [CATALOGUE_SHAPE["tlds"][0], {**CATALOGUE_SHAPE["tlds"][1], "currency": "EUR"}]}
    server.script(Answer(status=200, body=body))
    with pytest.raises(Unavailable):
        client.pricing()


@pytest.mark.parametrize(
    "body",
    [
        {"status": "ERROR", "message": "Missing fields", "errors": {"nexus_category": ["Required for .us."]}},
        {"message": "Registration requirements not met", "missing_fields": ["nexus_category"]},
    ],
)
def test_a_registration_refused_for_the_tlds_requirements_names_them(client, server, body):
    server.script(Answer(status=422, body=body))
    with pytest.raises(TldRestricted) as caught:
        client.domain_register(customer_id=1, domain_name="shop.us", duration=1)
    assert caught.value.missing == ["nexus_category"]
    assert "nexus category" in str(caught.value.message)
    assert "You have not been charged." in str(caught.value.message)


def test_the_documented_register_refusal_is_not_a_restriction(client, server):
    server.script(Answer(status=422, body={"status": "ERROR", "message": "Unable to register domain"}))
    with pytest.raises(RegistrationRefused):
        client.domain_register(customer_id=1, domain_name="shop.com", duration=1)


@pytest.mark.parametrize("configured", ["https://supersonic.namify.host", "https://supersonic.namify.host/v1/search/"])
def test_supersonic_works_as_the_metasearch_url(settings, configured):
    settings.RESELLER_METASEARCH_URL = configured
    assert gateway().metasearch_url == "https://supersonic.namify.host"
    assert gateway().search.base_url == "https://supersonic.namify.host"


def test_the_catalogue_shape_from_the_sandbox_reads_like_the_map(sandbox_url, sandbox_partner, sandbox_control):
    openapi = gateway().pricing()
    sandbox_control.update("Partner", {"name": sandbox_partner}, price_list_shape="catalogue")
    catalogue = gateway().pricing()
    assert set(catalogue.tlds) == set(openapi.tlds)
    assert catalogue.tlds["com"].register[1] == openapi.tlds["com"].register[1] == Decimal("12.99")
    assert catalogue.tlds["ai"].min_term == openapi.tlds["ai"].min_term == 2
    assert catalogue.tlds["com"].privacy_available is True


def test_the_sandboxs_restriction_refusal_is_read_as_one(sandbox_url, sandbox_partner, sandbox_control):
    sandbox_control.update(
        "CatalogueTld", {"partner": sandbox_partner, "tld": "io"}, restrictions={"nexus_category": "US nexus"}
    )
    customer_id = gateway().customer_signup(**CUSTOMER).customer_id
    with pytest.raises(TldRestricted) as caught:
        gateway().domain_register(customer_id=customer_id, domain_name="restricted-name.io", duration=1)
    assert caught.value.missing == ["nexus_category"]
    assert caught.value.status == 422
