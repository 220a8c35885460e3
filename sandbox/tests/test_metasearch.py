"""GET {metasearch_url}/v1/search."""

import pytest

from sandbox.models import ApiKey, CatalogueTld

from .conftest import ApiClient, without_request_id

pytestmark = pytest.mark.django_db

SEARCH = "/metasearch/v1/search"
ROW_FIELDS = {"domain_name", "sld", "tld", "available", "type", "is_searched_exact", "pricing"}
PRICING_FIELDS = {"currency", "register", "renew", "period", "is_free_first_year", "summary"}


def search(api, term, **flags):
    return api.get(SEARCH, {"search_term": term, **flags})


def test_a_bare_label_puts_the_first_allowed_tld_first(api, partner):
    response = search(api, "coffee")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"results", "results_total", "results_hidden", "meta"}
    hero, *listed = body["results"]
    assert hero["type"] == "hero"
    assert hero["domain_name"] == "coffee.com"
    assert hero["is_searched_exact"] is False  # nothing exact was typed
    tlds = [t.tld for t in partner.catalogue.all()]
    assert [row["domain_name"] for row in listed] == [f"coffee.{tld}" for tld in tlds[1:]]
    assert all(row["type"] == "result" for row in listed)
    assert body["results_total"] == len(listed)
    assert body["results_hidden"] == 0
    assert body["meta"] == {"search_term": "coffee", "typed_tld": None, "autosuggest": False, "aisuggest": False}
    for row in body["results"]:
        assert set(row) == ROW_FIELDS
        assert set(row["pricing"]) == PRICING_FIELDS


def test_a_full_domain_is_the_exact_row_under_the_catalogues_hero(api):
    body = search(api, "coffee.io").json()
    hero, exact = body["results"][:2]
    assert (hero["domain_name"], hero["type"], hero["is_searched_exact"]) == ("coffee.com", "hero", False)
    assert (exact["domain_name"], exact["type"], exact["is_searched_exact"]) == ("coffee.io", "result", True)
    assert sum(row["is_searched_exact"] for row in body["results"]) == 1
    assert [row["domain_name"] for row in body["results"]].count("coffee.io") == 1
    assert body["meta"]["typed_tld"] == "io"


def test_exact_row_is_marked_when_taken_too(api):
    hero = search(api, "example.com").json()["results"][0]
    assert hero["domain_name"] == "example.com"
    assert hero["is_searched_exact"] is True
    assert hero["available"] is False
    assert hero["pricing"] is None


def test_a_tld_outside_the_catalogue_falls_back_to_the_first(api):
    body = search(api, "coffee.museum").json()
    assert body["results"][0]["domain_name"] == "coffee.com"
    assert not any(row["is_searched_exact"] for row in body["results"])
    assert body["meta"]["typed_tld"] == "museum"


def test_the_term_is_sanitised(api):
    body = search(api, "  My Coffee_Shop!.COM ").json()
    assert body["meta"]["search_term"] == "mycoffeeshop.com"
    assert body["results"][0]["domain_name"] == "mycoffeeshop.com"


@pytest.mark.parametrize("term", ["", "   ", "!!!", "ÄÖÜ"])
def test_nothing_left_after_sanitising_is_400(api, term):
    response = search(api, term)
    assert response.status_code == 400
    assert response.json() == {"error": "search_term is required and must not be empty after sanitisation"}


def test_missing_term_is_the_same_error(api):
    response = api.get(SEARCH)
    assert response.status_code == 400
    assert "error" in response.json()


def test_at_most_63_characters(api):
    assert search(api, "a" * 63).status_code == 200
    response = search(api, "a" * 64)
    assert response.status_code == 400
    assert response.json()["error"]


def test_no_results_carry_a_message(api):
    response = search(api, "---")
    assert response.status_code == 200
    body = response.json()
    assert body["results"] == []
    assert body["results_total"] == 0
    assert body["message"] == "No domains found for this search"


def test_a_partner_without_tlds_finds_nothing(api, partner):
    CatalogueTld.objects.filter(partner=partner).delete()
    body = search(api, "coffee").json()
    assert body["results"] == []
    assert body["message"]


def test_autosuggest_adds_available_variations_and_counts_the_hidden(api):
    body = search(api, "coffee", autosuggest="true").json()
    listed = [row for row in body["results"] if row["type"] == "result"]
    assert body["results_total"] == len(listed)
    assert len(listed) > 10
    assert body["results_hidden"] == len(listed) - 10
    variations = [row for row in listed if row["sld"] != "coffee"]
    assert len(variations) >= 12
    assert all(row["available"] and row["pricing"] for row in variations)
    assert body["meta"]["autosuggest"] is True


def test_autosuggest_leaves_out_taken_variations(api):
    body = search(api, "taken", autosuggest="1").json()
    variations = [row for row in body["results"] if row["type"] == "result" and row["sld"] != "taken"]
    assert variations
    assert not any(row["sld"].startswith("taken") for row in variations)


def test_aisuggest_appends_a_trailing_block(api):
    body = search(api, "coffee", aisuggest="true").json()
    kinds = [row["type"] for row in body["results"]]
    assert kinds[0] == "hero"
    ai_start = kinds.index("ai_suggestion")
    assert set(kinds[ai_start:]) == {"ai_suggestion"}
    assert "ai_suggestion" not in kinds[:ai_start]
    assert body["results_total"] == kinds.count("result")  # AI rows are not in the results list
    assert body["meta"]["aisuggest"] is True
    assert all(row["available"] for row in body["results"][ai_start:])


@pytest.mark.parametrize(("value", "expected"), [("false", False), ("0", False), ("true", True), ("1", True)])
def test_boolean_flags(api, value, expected):
    body = search(api, "coffee", autosuggest=value, aisuggest=value).json()
    assert body["meta"]["autosuggest"] is expected
    assert body["meta"]["aisuggest"] is expected
    assert ("ai_suggestion" in [row["type"] for row in body["results"]]) is expected


def test_a_bad_flag_is_400(api):
    response = search(api, "coffee", autosuggest="maybe")
    assert response.status_code == 400
    assert "error" in response.json()


def test_pricing_summaries(api):
    rows = {row["tld"]: row["pricing"] for row in search(api, "coffee").json()["results"]}
    assert rows["dev"]["summary"] == "$15.99/yr"
    assert rows["com"]["summary"] == "$12.99 first year, then $14.99/yr"
    assert rows["shop"] == {
        "currency": "USD",
        "register": 0,
        "renew": 29.99,
        "period": "year",
        "is_free_first_year": True,
        "summary": "Free for the first year, then $29.99/yr",
    }
    assert rows["ai"]["summary"] == "$79.99/yr (2-year minimum)"
    assert rows["com"]["currency"] == "USD"
    assert rows["com"]["period"] == "year"


def test_taken_rows_have_null_pricing_and_premium_rows_a_premium_price(api):
    hero = search(api, "takenname.com").json()["results"][0]
    assert hero["available"] is False
    assert hero["pricing"] is None
    premium = search(api, "cars.com").json()["results"][0]
    assert premium["available"] is False
    assert premium["pricing"]["summary"].startswith("Premium")
    assert premium["pricing"]["register"] == 25000
    label_premium = search(api, "premiumfoo").json()["results"][0]
    assert label_premium["available"] is False
    assert label_premium["pricing"]["summary"].startswith("Premium")


def test_metasearch_answers_invalid_partner_token(partner, client):
    response = without_request_id(client.get(SEARCH, {"search_term": "coffee"}))
    assert response.status_code == 401
    assert response.json() == {"error": "Invalid partner token"}
    revoked, plaintext = ApiKey.issue(partner=partner)
    revoked.revoke()
    response = ApiClient(plaintext).get(SEARCH, {"search_term": "coffee"})
    assert response.status_code == 401
    assert response.json() == {"error": "Invalid partner token"}


def test_metasearch_environment_mismatch(api):
    response = ApiClient(api.key, root="/live").get(SEARCH, {"search_term": "coffee"})
    assert response.status_code == 403
    assert response.json() == {"error": "environment_mismatch"}
