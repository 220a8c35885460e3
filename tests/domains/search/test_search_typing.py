"""Search that keeps up with typing (issue 41): the page carries the price list search.js draws the typed name's
rows from on each key, with no provider call; the settled answer carries the one sentence a screen reader hears.
The drawing itself, and its timing, are tested in the browser (tests/browser/test_journey_search_typed.py)."""

from __future__ import annotations

import json
import re

import pytest

from tests.domains.search.test_search import HTMX, row_of
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db


def price_list(html: str) -> list[dict[str, object]]:
    found = re.search(r'<script id="search-price-list" type="application/json">(.*?)</script>', html, flags=re.S)
    assert found, "the page carries no price list"
    return json.loads(found.group(1))


@markup(percent="10")
def test_the_pages_carry_each_sold_extensions_price_without_asking_the_provider(
    client, seeded_partner, metasearch_calls
):
    for address in ("/", "/search/"):
        listed = price_list(client.get(address).content.decode())
        tlds = [entry["tld"] for entry in listed]
        assert tlds[0] == "com"  # the extension most customers look for first leads
        assert set(tlds) == {"com", "net", "org", "io", "co", "dev", "shop", "ai", "app", "xyz"}
        by_tld = {entry["tld"]: entry for entry in listed}
        assert by_tld["shop"] == {"tld": "shop", "price": "Free for the first year, then $32.99/yr", "free": True}
        assert by_tld["com"]["free"] is False
    assert metasearch_calls == []


@markup(percent="10")
def test_the_price_drawn_before_the_answer_is_the_price_the_answer_shows(client, seeded_partner):
    listed = {entry["tld"]: entry["price"] for entry in price_list(client.get("/").content.decode())}
    html = client.get("/search/", {"q": "bluebird"}, headers=HTMX).content.decode()
    for tld in ("com", "net", "shop"):
        assert f'<span class="price">{listed[tld]}</span>' in row_of(html, f"bluebird.{tld}")


def test_the_settled_answer_says_how_many_domains_and_how_many_can_be_bought(client, seeded_partner):
    html = client.get("/search/", {"q": "bluebird"}, headers=HTMX).content.decode()
    rows = re.findall(r'<li class="result-row.*?</li>', html, flags=re.S)
    buyable = [row for row in rows if "Add <span" in row]
    assert rows and buyable
    sentence = f"{len(rows)} domains found, {len(buyable)} available to buy."
    assert f'<p class="search-announcement" hidden data-search-announce>{sentence}</p>' in html
    # Once per answer: the rows themselves are not a live region.
    assert html.count("data-search-announce") == 1
    assert "aria-live" not in html.split('id="ai-heading"', 1)[0]
