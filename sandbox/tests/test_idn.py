"""Internationalised names (`café.com`, whose A-label is `xn--caf-dma.com`) in availability, MetaSearch and register.

The provider's docs say nothing about them. What they do say decides the Unicode form: availability takes
"alphanumeric characters or hyphens", MetaSearch "sanitises" its term, register takes a domain name. The A-label
is an ordinary name of letters, digits and hyphens, so it is searched, priced and registered like any other.
"""

import pytest

from sandbox.models import DomainOrder

pytestmark = pytest.mark.django_db

AVAILABILITY = "/api/v1/domains/availability"
SEARCH = "/metasearch/v1/search"
REGISTER = "/api/v1/domains/register"


def register(api, customer_id, name):
    return api.post(REGISTER, {"customer_id": customer_id, "domain_name": name, "duration": 1})


def decoded(label: str) -> str:
    assert label.startswith("xn--"), label
    return label[4:].encode("ascii").decode("punycode")


def test_availability_refuses_the_unicode_form_and_checks_the_a_label(api):
    refused = api.get(AVAILABILITY, {"search_term": "café"})
    assert refused.status_code == 422
    assert refused.json() == {"message": "The search term field format is invalid."}
    [row] = api.get(AVAILABILITY, {"search_term": "xn--caf-dma"}).json()["results"]
    assert (row["domain_name"], row["sld"], row["available"]) == ("xn--caf-dma.com", "xn--caf-dma", True)


def test_register_takes_the_a_label_and_refuses_the_unicode_form(api, customer_id):
    assert register(api, customer_id, "café.com").json() == {"status": "ERROR", "message": "Unable to register domain"}
    assert DomainOrder.objects.get(status="Failed").domain_name == "café.com"  # kept for staff, as every refusal
    registered = register(api, customer_id, "XN--CAF-DMA.com")
    assert registered.status_code == 200
    assert DomainOrder.objects.get(order_id=registered.json()["order_id"]).domain_name == "xn--caf-dma.com"
    [row] = api.get(AVAILABILITY, {"search_term": "xn--caf-dma"}).json()["results"]
    assert row["available"] is False
    assert register(api, customer_id, "xn--caf-dma.com").json()["message"] == "Unable to register domain"


def test_metasearch_searches_the_a_label_as_typed(api, customer_id):
    body = api.get(SEARCH, {"search_term": "xn--caf-dma.net"}).json()
    assert body["meta"]["search_term"] == "xn--caf-dma.net"
    [exact] = [row for row in body["results"] if row["is_searched_exact"]]
    assert (exact["domain_name"], exact["available"], exact["pricing"]["summary"]) == (
        "xn--caf-dma.net",
        True,
        "$13.99 first year, then $15.99/yr",
    )
    register(api, customer_id, "xn--caf-dma.net")
    taken = api.get(SEARCH, {"search_term": "xn--caf-dma.net"}).json()
    [exact] = [row for row in taken["results"] if row["is_searched_exact"]]
    assert (exact["available"], exact["pricing"]) == (False, None)


def test_metasearch_sanitises_the_unicode_form_like_any_other_character(api):
    # Undocumented either way; the sandbox's sanitising keeps a-z, 0-9, hyphens and dots only, so `é` goes the
    # way of `!` and the term says so: a client must send the A-label for the name it means.
    body = api.get(SEARCH, {"search_term": "café.com"}).json()
    assert body["meta"]["search_term"] == "caf.com"
    assert body["results"][0]["domain_name"] == "caf.com"


def test_suggestions_for_an_a_label_are_words_around_it_not_letters_glued_to_its_punycode(api):
    body = api.get(SEARCH, {"search_term": "xn--caf-dma", "autosuggest": "true", "aisuggest": "true"}).json()
    coined = [row["sld"] for row in body["results"] if row["sld"] != "xn--caf-dma"]
    assert len(coined) >= 10
    for label in coined:
        assert "café" in decoded(label) and label == "xn--" + decoded(label).encode("punycode").decode()
    assert "xn--cafhq-dsa" in coined  # café + hq


def test_an_xn_label_that_is_not_punycode_is_searched_but_not_varied(api):
    body = api.get(SEARCH, {"search_term": "xn--zz", "autosuggest": "true", "aisuggest": "true"}).json()
    assert {row["sld"] for row in body["results"]} == {"xn--zz"}
