"""MetaSearch as the provider's demo describes it: the featured extension is the catalogue's, taken extensions are
left out unless typed, no TLD parameter, and AI suggestions that are slow on a cache miss."""

import time

import pytest
from django.core.cache import cache

from sandbox.faults import inject
from sandbox.models import CatalogueTld

pytestmark = pytest.mark.django_db

SEARCH = "/metasearch/v1/search"


def search(api, term, **params):
    response = api.get(SEARCH, {"search_term": term, **params})
    assert response.status_code == 200, response.content
    return response.json()


def names(body, kind=None):
    return [row["domain_name"] for row in body["results"] if kind is None or row["type"] == kind]


@pytest.mark.parametrize("term", ["coffee", "coffee.io", "coffee.shop", "coffee.museum"])
def test_the_hero_is_the_catalogues_featured_extension_whatever_was_typed(api, term):
    body = search(api, term)
    assert names(body, "hero") == ["coffee.com"]
    assert body["results"][0]["type"] == "hero"


def test_reordering_the_catalogue_changes_the_featured_extension(api, partner):
    CatalogueTld.objects.filter(partner=partner, tld="io").update(position=0)
    CatalogueTld.objects.filter(partner=partner).exclude(tld="io").update(position=5)
    assert names(search(api, "coffee"), "hero") == ["coffee.io"]
    assert names(search(api, "coffee.net"), "hero") == ["coffee.io"]


def test_the_typed_domain_is_the_one_exact_row_first_in_the_list(api):
    body = search(api, "coffee.shop")
    exact = [row for row in body["results"] if row["is_searched_exact"]]
    assert [row["domain_name"] for row in exact] == ["coffee.shop"]
    assert names(body)[:2] == ["coffee.com", "coffee.shop"]


def test_a_taken_extension_is_left_out_unless_typed(api, customer_id):
    registered = api.post(
        "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "coffee.net", "duration": 1}
    )
    assert registered.status_code == 200
    assert "coffee.net" not in names(search(api, "coffee"))
    assert "coffee.net" not in names(search(api, "coffee.org"))
    typed = search(api, "coffee.net")
    row = next(row for row in typed["results"] if row["domain_name"] == "coffee.net")
    assert (row["available"], row["pricing"], row["is_searched_exact"]) == (False, None, True)


def test_a_taken_featured_extension_leaves_no_hero_unless_typed(api):
    body = search(api, "example")  # example.com is taken in the demo catalogue
    assert "example.com" not in names(body)
    assert "hero" not in [row["type"] for row in body["results"]]
    assert names(body)[0] == "example.net"
    assert body["results_total"] == len(names(body, "result"))
    typed = search(api, "example.com")
    assert typed["results"][0]["domain_name"] == "example.com"
    assert (typed["results"][0]["type"], typed["results"][0]["is_searched_exact"]) == ("hero", True)


def test_a_premium_extension_is_still_shown_with_its_price(api):
    hero = search(api, "cars")["results"][0]
    assert hero["domain_name"] == "cars.com"
    assert hero["available"] is False
    assert hero["pricing"]["summary"].startswith("Premium")


def test_metasearch_takes_no_tld_parameter(api):
    plain = search(api, "coffee", autosuggest="true")
    for params in ({"tlds[]": ["io", "ai"]}, {"tlds": "io"}, {"tld": "ai"}, {"tld[]": "io"}):
        assert search(api, "coffee", autosuggest="true", **params)["results"] == plain["results"]


def test_ai_suggestions_are_slow_on_a_cache_miss(api):
    cache.clear()
    with inject(ai_latency_ms=300):
        started = time.perf_counter()
        body = search(api, "lattecraft", aisuggest="true")
        assert time.perf_counter() - started >= 0.3
    assert "ai_suggestion" in [row["type"] for row in body["results"]]


def test_ai_latency_only_with_aisuggest_and_only_on_a_miss(api, monkeypatch):
    cache.clear()
    slept = []
    monkeypatch.setattr("sandbox.views.metasearch.time.sleep", slept.append)
    with inject(ai_latency_ms=9000):
        search(api, "espresso")
        search(api, "espresso", autosuggest="true", aisuggest="false")
        assert slept == []
        search(api, "espresso", aisuggest="true")
        assert slept == [9.0]
        search(api, "espresso", aisuggest="1")  # the provider has it cached now
        search(api, "espresso.io", aisuggest="true")  # the same name on another extension
        assert slept == [9.0]
        search(api, "ristretto", aisuggest="true")
        assert slept == [9.0, 9.0]


def test_no_ai_latency_by_default(api, monkeypatch):
    cache.clear()
    slept = []
    monkeypatch.setattr("sandbox.views.metasearch.time.sleep", slept.append)
    search(api, "mocha", aisuggest="true")
    with inject(latency_ms=0, scope="metasearch"):
        search(api, "macchiato", aisuggest="true")
    assert slept == []
