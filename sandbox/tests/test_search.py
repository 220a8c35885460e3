"""GET /api/v1/domains/availability, /api/v1/domains/suggestions and /domain-suggestions."""

import re

import pytest

from sandbox.models import CatalogueTld

pytestmark = pytest.mark.django_db

RESULT_FIELDS = {"product_category", "domain_name", "sld", "tld", "available", "premium"}
AVAILABILITY = "/api/v1/domains/availability"
SUGGESTIONS = "/api/v1/domains/suggestions"
PRICED = "/domain-suggestions"


def test_availability_checks_one_term_across_the_asked_tlds(api):
    response = api.get(AVAILABILITY, {"search_term": "coffee", "tlds[]": ["com", "io"]})
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["domain_name"] for r in results] == ["coffee.com", "coffee.io"]
    for row in results:
        assert set(row) == RESULT_FIELDS
        assert row["product_category"] == "domain_registration"
        assert row["sld"] == "coffee"
        assert row["available"] is True
        assert row["premium"] is False


def test_availability_takes_an_array_of_terms(api):
    response = api.get(AVAILABILITY, {"search_term[]": ["coffee", "tea"], "tlds[]": ["net"]})
    assert [r["domain_name"] for r in response.json()["results"]] == ["coffee.net", "tea.net"]


def test_unknown_tlds_are_ignored_and_none_left_falls_back_to_the_first_allowed(api):
    response = api.get(AVAILABILITY, {"search_term": "coffee", "tlds[]": ["museum", "net"]})
    assert [r["tld"] for r in response.json()["results"]] == ["net"]
    response = api.get(AVAILABILITY, {"search_term": "coffee", "tlds[]": ["museum"]})
    assert [r["domain_name"] for r in response.json()["results"]] == ["coffee.com"]
    response = api.get(AVAILABILITY, {"search_term": "coffee"})
    assert [r["domain_name"] for r in response.json()["results"]] == ["coffee.com"]


def test_the_fallback_follows_the_partners_order(api, partner):
    CatalogueTld.objects.filter(partner=partner, tld="xyz").update(position=0)
    CatalogueTld.objects.filter(partner=partner, tld="com").update(position=5)
    response = api.get(AVAILABILITY, {"search_term": "coffee"})
    assert response.json()["results"][0]["domain_name"] == "coffee.xyz"


def test_taken_and_premium_rules(api):
    response = api.get(
        AVAILABILITY,
        {"search_term[]": ["example", "takenthing", "premiumthing", "cars", "free"], "tlds[]": ["com", "net"]},
    )
    rows = {r["domain_name"]: (r["available"], r["premium"]) for r in response.json()["results"]}
    assert rows["example.com"] == (False, False)  # listed as taken in the catalogue
    assert rows["example.net"] == (True, False)  # ...on .com only
    assert rows["takenthing.com"] == (False, False)
    assert rows["takenthing.net"] == (False, False)
    assert rows["premiumthing.net"] == (False, True)
    assert rows["cars.com"] == (False, True)  # listed premium
    assert rows["cars.net"] == (True, False)
    assert rows["free.com"] == (True, False)


def test_other_partners_catalogue_rules_do_not_apply(other_api):
    response = other_api.get(AVAILABILITY, {"search_term": "example", "tlds[]": ["com"]})
    assert response.json()["results"][0]["available"] is True


@pytest.mark.parametrize("path", [AVAILABILITY, SUGGESTIONS, PRICED])
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "The search term field is required."),
        ({"search_term": ""}, "The search term field is required."),
        ({"search_term": "coffee.com"}, "The search term field format is invalid."),
        ({"search_term": "-coffee"}, "The search term field format is invalid."),
        ({"search_term": "coffee-"}, "The search term field format is invalid."),
        ({"search_term": "cof fee"}, "The search term field format is invalid."),
        ({"search_term": "café"}, "The search term field format is invalid."),
        ({"search_term": "a" * 64}, "The search term field must not be greater than 63 characters."),
    ],
)
def test_bad_search_terms_are_422(api, path, params, message):
    response = api.get(path, params)
    assert response.status_code == 422
    assert response.json() == {"message": message}


@pytest.mark.parametrize("path", [AVAILABILITY, SUGGESTIONS, PRICED])
def test_search_terms_of_1_and_63_characters_are_fine(api, path):
    assert api.get(path, {"search_term": "a"}).status_code == 200
    assert api.get(path, {"search_term": "a" * 63}).status_code == 200


def test_a_bad_term_in_an_array_is_refused(api):
    response = api.get(AVAILABILITY, {"search_term[]": ["coffee", "bad_term"]})
    assert response.status_code == 422


def test_suggestions_are_available_variations(api):
    response = api.get(SUGGESTIONS, {"search_term": "coffee", "tld": "net"})
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) >= 5
    names = [r["sld"] for r in results]
    assert "coffee" not in names
    assert {"cafe", "getcoffee", "coffeehub"} <= set(names)  # a synonym, a prefix, a suffix
    for row in results:
        assert set(row) == RESULT_FIELDS
        assert row["tld"] == "net"
        assert row["available"] is True


def test_suggestions_take_tld_arrays_and_fall_back(api):
    response = api.get(SUGGESTIONS, {"search_term": "coffee", "tld[]": ["io", "dev"]})
    assert {r["tld"] for r in response.json()["results"]} == {"io", "dev"}
    response = api.get(SUGGESTIONS, {"search_term": "coffee", "tld": ["io", "dev"]})
    assert {r["tld"] for r in response.json()["results"]} == {"io", "dev"}
    response = api.get(SUGGESTIONS, {"search_term": "coffee", "tld": "museum"})
    assert {r["tld"] for r in response.json()["results"]} == {"com"}


def test_suggestions_leave_out_taken_names_and_flag_premium_ones(api):
    response = api.get(SUGGESTIONS, {"search_term": "premiumcar", "tld": "com"})
    rows = {r["sld"]: r for r in response.json()["results"]}
    assert rows["premiumcarhub"]["premium"] is True
    assert rows["premiumcarhub"]["available"] is False
    assert rows["getpremiumcar"]["available"] is True
    response = api.get(SUGGESTIONS, {"search_term": "taken", "tld": "com"})
    slds = [r["sld"] for r in response.json()["results"]]
    assert slds and not any(sld.startswith("taken") for sld in slds)


def test_priced_suggestions_shape(api):
    response = api.get(PRICED, {"search_term": "coffee", "tlds[]": ["com", "ai"]})
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0]["domain"] == "coffee.com"
    for row in results:
        assert set(row) == {"product_category", "domain", "status", "pricing", "type", "renews_on"}
        assert row["product_category"] == "domain_registration"
        assert row["status"] == "available"
        assert row["type"] == "standard"
        assert re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, \d{4}", row["renews_on"])
        assert set(row["pricing"]) == {"register", "privacy", "renew", "slashed"}
    com = results[0]["pricing"]
    assert com["register"]["1"] == 12.99
    assert com["register"]["2"] == pytest.approx(12.99 + 14.99)
    assert com["privacy"]["1"] == 4.99
    assert com["renew"] == 14.99
    assert com["slashed"] == 17.99
    ai = next(row for row in results if row["domain"].endswith(".ai"))
    assert "1" not in ai["pricing"]["register"]  # two-year minimum
    assert ai["pricing"]["register"]["2"] == pytest.approx(159.98)


def test_priced_suggestions_price_a_free_first_year(api):
    response = api.get(PRICED, {"search_term": "coffee", "tlds": ["shop"]})
    pricing = response.json()["results"][0]["pricing"]
    assert pricing["register"]["1"] == 0
    assert pricing["register"]["2"] == 29.99


def test_priced_suggestions_show_only_available_names(api):
    response = api.get(PRICED, {"search_term": "example", "tlds[]": ["com"]})
    domains = [row["domain"] for row in response.json()["results"]]
    assert "example.com" not in domains
    assert domains
