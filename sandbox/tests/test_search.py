"""GET /api/v1/domains/availability."""

import pytest

from sandbox.models import CatalogueTld

pytestmark = pytest.mark.django_db

RESULT_FIELDS = {"product_category", "domain_name", "sld", "tld", "available", "premium"}
AVAILABILITY = "/api/v1/domains/availability"


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
def test_bad_search_terms_are_422(api, params, message):
    response = api.get(AVAILABILITY, params)
    assert response.status_code == 422
    assert response.json() == {"message": message}


def test_search_terms_of_1_and_63_characters_are_fine(api):
    assert api.get(AVAILABILITY, {"search_term": "a"}).status_code == 200
    assert api.get(AVAILABILITY, {"search_term": "a" * 63}).status_code == 200


def test_a_bad_term_in_an_array_is_refused(api):
    response = api.get(AVAILABILITY, {"search_term[]": ["coffee", "bad_term"]})
    assert response.status_code == 422
