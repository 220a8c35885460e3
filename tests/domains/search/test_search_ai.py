"""MetaSearch's slow AI suggestions: asked for apart, after the results; nothing that buys or prices waits for them.

Against the built-in sandbox over HTTP. A hanging AI is played by a gateway whose AI calls fail as a timed-out
call does (the sandbox's latency faults slow every MetaSearch call alike), or by the sandbox hanging past a short
AI timeout where the timeout itself is what is tested.
"""

from __future__ import annotations

import re
import uuid
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from domains.orders.services import renew_pricing
from domains.search import services as search
from domains.search.services import PARTNER_TLDS_SECONDS, fallback_availability, partner_tlds
from pricing.money import Money
from storefront.gateway import (
    MetaSearch,
    MetaSearchMeta,
    MetaSearchResult,
    PriceList,
    Pricing,
    TldPrices,
    Unavailable,
    gateway,
)
from tests.fakes.gateway import FakeGateway

pytest_plugins = ["tests.domains.fixtures_orders"]

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def provider(seeded_partner):
    return seeded_partner


@pytest.fixture
def metasearch_calls(monkeypatch) -> list[dict[str, Any]]:
    """The keyword arguments of every MetaSearch call; each still goes to the sandbox."""
    calls: list[dict[str, Any]] = []
    real = FakeGateway.metasearch

    def spy(self, **kwargs):
        calls.append(kwargs)
        return real(self, **kwargs)

    monkeypatch.setattr(FakeGateway, "metasearch", spy)
    return calls


@pytest.fixture
def ai_hangs(monkeypatch) -> list[dict[str, Any]]:
    """MetaSearch answers at once without AI; asked for AI, it fails as a call past its timeout does.

    Returns the AI calls made, so a test can also show that nobody asked.
    """
    asked: list[dict[str, Any]] = []
    real = FakeGateway.metasearch

    def metasearch(self, **kwargs):
        if kwargs.get("aisuggest"):
            asked.append(kwargs)
            raise Unavailable(retryable=False)
        return real(self, **kwargs)

    monkeypatch.setattr(FakeGateway, "metasearch", metasearch)
    return asked


def suggestions(client, q: str):
    return client.get("/search/suggestions/", {"q": q}, headers=HTMX)


def ai_names(term: str) -> list[str]:
    """What the sandbox's AI suggests for `term` (asked directly, not through the storefront)."""
    answer = gateway().metasearch(search_term=term, autosuggest=True, aisuggest=True)
    return [row.domain_name for row in answer.ai_suggestions]


def rows(html: str) -> list[str]:
    return re.findall(r'<span class="result-domain">([^<]*)</span>', html)


# --- The results never ask for AI ---------------------------------------------------------------------------


def test_the_first_results_never_ask_for_ai(client, provider, metasearch_calls):
    page = client.get("/search/", {"q": "bluebird"}).content.decode()
    fragment = client.get("/search/", {"q": "bluebirds"}, headers=HTMX).content.decode()

    assert [call["search_term"] for call in metasearch_calls] == ["bluebird", "bluebirds"]
    for call in metasearch_calls:
        assert call["aisuggest"] is False
        assert call.get("read_timeout") is None  # search's own short timeout
    # Instead each shows a placeholder that asks for the ideas itself, and says it is looking.
    for html, term in ((page, "bluebird"), (fragment, "bluebirds")):
        assert "Ideas from AI" in html
        assert f'hx-get="/search/suggestions/?q={term}" hx-trigger="load delay:1s" hx-swap="outerHTML"' in html
        assert '<p id="ai-status" class="search-ai-status" aria-live="polite"' in html
        assert "Finding more ideas…" in html
    metasearch_calls.clear()
    shown = set(rows(page))
    assert "bluebird.com" in shown
    assert not shown & set(ai_names("bluebird"))


def test_the_results_show_while_ai_would_hang(client, provider, ai_hangs):
    html = client.get("/search/", {"q": "bluebird"}, headers=HTMX).content.decode()
    assert "bluebird.com" in rows(html)
    assert "$14.49 first year, then $16.49/yr" in html  # .com's retail price
    assert "Finding more ideas…" in html
    assert ai_hangs == []


# --- The suggestions URL --------------------------------------------------------------------------------------


def test_the_suggestions_ask_for_ai_with_the_long_timeout_and_show_its_rows(client, provider, metasearch_calls):
    response = suggestions(client, "Bluebird")
    assert response.status_code == 200
    html = response.content.decode()

    assert len(metasearch_calls) == 1
    call = metasearch_calls[0]
    assert (call["search_term"], call["aisuggest"]) == ("bluebird", True)
    assert call["read_timeout"] == settings.RESELLER_AI_READ_TIMEOUT > settings.RESELLER_SEARCH_READ_TIMEOUT

    expected = ai_names("bluebird")
    assert expected and rows(html) == expected
    assert "<html" not in html
    for name in expected:
        assert f'<button type="submit" name="domain_name" value="{name}"' in html
    assert re.search(r'class="price">\$\d+\.\d\d', html)
    # The status line is updated apart, for a screen reader to hear.
    status = f'<span id="ai-status" hx-swap-oob="innerHTML"><span class="visually-hidden">{len(expected)} more ideas'
    assert status in html
    assert "Finding more ideas" not in html


def test_the_suggestions_are_cached_apart_from_the_results(client, provider, metasearch_calls):
    suggestions(client, "bluebird")
    suggestions(client, "bluebird")
    client.get("/search/", {"q": "bluebird"}, headers=HTMX)
    assert [(c["search_term"], c["aisuggest"]) for c in metasearch_calls] == [("bluebird", True), ("bluebird", False)]


def test_once_cached_the_results_show_the_ideas_at_once(client, provider):
    ideas = rows(suggestions(client, "bluebird").content.decode())
    html = client.get("/search/", {"q": "bluebird"}).content.decode()
    assert "data-ai-suggestions" not in html
    assert "Finding more ideas" not in html
    ai_block = html[html.index("Ideas from AI") : html.index("</section>", html.index("Ideas from AI"))]
    assert rows(ai_block) == ideas


def test_suggestions_are_escaped(client, provider, monkeypatch):
    hostile = '"><script>alert(1)</script>.com'
    answer = MetaSearch(
        results=[
            MetaSearchResult(
                domain_name=hostile,
                sld="x",
                tld="com",
                available=True,
                type="ai_suggestion",
                is_searched_exact=False,
                pricing=Pricing("USD", Decimal("1"), Decimal("1"), "year", False, "<b>$1</b>"),
            )
        ],
        results_total=0,
        results_hidden=0,
        meta=MetaSearchMeta(search_term="x", typed_tld=None, autosuggest=True, aisuggest=True),
        message=None,
    )
    monkeypatch.setattr(FakeGateway, "metasearch", lambda self, **kwargs: answer)
    html = suggestions(client, "x").content.decode()
    assert "<script>" not in html and "<b>" not in html
    assert "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;.com" in html
    # The provider's own price text is never shown, escaped or not: the row shows our retail price.
    assert "&lt;b&gt;" not in html
    assert "$14.49 first year, then $16.49/yr" in html  # .com's cost, 12.99 then 14.99, plus 1.50 a year


@override_settings(RESELLER_SEARCH_READ_TIMEOUT=0.2)
def test_the_suggestions_wait_longer_than_a_search_does(client, provider):
    # Slower than search's own timeout (shortened here so the test waits under a second), within the AI's (25 s).
    with gateway().fault(latency_ms=int(settings.RESELLER_SEARCH_READ_TIMEOUT * 1000) + 500, scope="metasearch"):
        html = suggestions(client, "bluebird").content.decode()
    assert rows(html) and "unavailable" not in html


def test_an_ai_timeout_says_suggestions_are_unavailable(client, provider):
    with override_settings(RESELLER_AI_READ_TIMEOUT=0.5, RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with gateway().fault(hang_seconds=1.5, scope="metasearch"):
            response = suggestions(client, "bluebird")
    gateway.cache_clear()
    assert response.status_code == 200
    html = response.content.decode()
    assert "Suggestions are unavailable right now." in html
    assert rows(html) == []
    # Not remembered: the next results page asks again rather than showing the failure.
    assert 'hx-get="/search/suggestions/?q=bluebird"' in client.get("/search/", {"q": "bluebird"}).content.decode()


def test_with_every_ai_slot_of_the_process_busy_the_block_gives_up_at_once(client, provider, metasearch_calls):
    held = [search._ai_slots.acquire(blocking=False) for _ in range(search._AI_CALLS_PER_PROCESS)]
    try:
        html = suggestions(client, "bluebird").content.decode()
    finally:
        for _ in filter(None, held):
            search._ai_slots.release()
    assert all(held)
    assert "Suggestions are unavailable right now." in html
    assert metasearch_calls == []
    # A free slot again: the next block asks.
    assert rows(suggestions(client, "bluebird").content.decode())


def test_an_ai_error_says_suggestions_are_unavailable_and_nothing_more(client, provider):
    with gateway().fault(error_rate=1.0, scope="metasearch"):
        html = suggestions(client, "bluebird").content.decode()
    assert "Suggestions are unavailable right now." in html
    assert rows(html) == []
    assert "Internal server error" not in html


def test_no_ideas_says_so(client, provider, monkeypatch):
    real = FakeGateway.metasearch
    monkeypatch.setattr(FakeGateway, "metasearch", lambda self, **kwargs: real(self, **{**kwargs, "aisuggest": False}))
    html = suggestions(client, "bluebird").content.decode()
    assert "No more ideas for this name." in html
    assert rows(html) == []


def test_the_suggestions_address_opened_directly_leads_to_the_results_page(client, provider, metasearch_calls):
    response = client.get("/search/suggestions/", {"q": "blue bird"})
    assert response.status_code == 302
    assert response.url == "/search/?q=blue+bird"
    assert metasearch_calls == []


def test_a_blank_or_too_long_term_asks_nothing(client, provider, metasearch_calls):
    for q in ("", "a" * 64):
        response = suggestions(client, q)
        assert response.status_code == 200
        assert "No more ideas" in response.content.decode()
    assert metasearch_calls == []


# --- Nothing that buys or prices waits for AI -------------------------------------------------------------------


def test_add_to_cart_works_while_ai_would_hang(client, provider, ai_hangs):
    name = f"ai{uuid.uuid4().hex[:10]}.com"
    response = client.post(reverse("cart_add"), {"domain_name": name}, headers=HTMX)
    assert response.status_code == 200
    assert "In your cart" in response.content.decode()
    assert client.session["cart"][name]["price"] == "14.49"
    assert ai_hangs == []


def test_the_checkout_review_works_while_ai_would_hang(client, provider, customer, ai_hangs):
    client.force_login(customer.user)
    name = f"aireview{uuid.uuid4().hex[:8]}.com"
    client.post(reverse("cart_add"), {"domain_name": name})
    html = client.get("/checkout/").content.decode()
    assert name in html
    assert 'name="checkout_id"' in html
    assert ai_hangs == []


def test_the_renewal_price_works_while_ai_would_hang(provider, customer, provider_orders, signed_in, ai_hangs):
    order = provider_orders.register(customer, f"renewai{uuid.uuid4().hex[:8]}.com")
    assert renew_pricing(domain_name=order.domain_name).retail == Money(Decimal("16.49"), "USD")
    body = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert "Renewal price: $16.49 per year." in body
    assert ai_hangs == []


# --- The fallback asks for the partner's own TLDs ---------------------------------------------------------------


@pytest.fixture
def availability_calls(monkeypatch) -> list[list[str]]:
    """The TLDs of every availability call; each still goes to the sandbox."""
    calls: list[list[str]] = []
    real = FakeGateway.domain_availability

    def spy(self, *, search_terms, tlds=()):
        calls.append(list(tlds))
        return real(self, search_terms=search_terms, tlds=tlds)

    monkeypatch.setattr(FakeGateway, "domain_availability", spy)
    return calls


@pytest.fixture
def pricing_calls(monkeypatch) -> list[str]:
    calls: list[str] = []
    real = FakeGateway.pricing

    def spy(self):
        calls.append("pricing")
        return real(self)

    monkeypatch.setattr(FakeGateway, "pricing", spy)
    return calls


def test_the_fallback_asks_exactly_for_the_price_lists_tlds(provider, availability_calls, pricing_calls):
    sold = list(gateway().pricing().tlds)
    pricing_calls.clear()
    fallback_availability("bluebird")
    fallback_availability("bluebird.org")
    assert availability_calls == [sold, ["org", *[tld for tld in sold if tld != "org"]]]
    # The price list is read once and kept.
    assert pricing_calls == ["pricing"]


def test_the_fallback_follows_a_partner_that_sells_other_tlds(provider, availability_calls, monkeypatch):
    prices = {
        tld: TldPrices(tld=tld, register={1: Decimal("5")}, renew={}, transfer={}, restore={})
        for tld in ("store", "com")
    }
    monkeypatch.setattr(
        FakeGateway, "pricing", lambda self: PriceList(currency="USD", tlds=prices, privacy_protection=None)
    )
    rows = fallback_availability("bluebird.xyz")
    # .xyz is not sold: it is not asked for, as the provider would ignore it anyway.
    assert availability_calls == [["store", "com"]]
    assert {row.tld for row in rows} <= {"store", "com"}


def test_the_partners_tlds_are_cached_for_an_hour(provider, pricing_calls, monkeypatch):
    stored: list[int] = []
    real_set = cache.set

    def recording_set(key, value, timeout=None, *args, **kwargs):
        if ":partner-tlds:" in key:
            stored.append(timeout)
        return real_set(key, value, timeout, *args, **kwargs)

    monkeypatch.setattr(cache, "set", recording_set)
    first = partner_tlds()
    assert partner_tlds() == first
    assert pricing_calls == ["pricing"]
    assert stored == [PARTNER_TLDS_SECONDS] == [3600]


def test_without_metasearch_or_price_list_search_says_it_is_unavailable(
    client, provider, availability_calls, monkeypatch
):
    def no_prices(self):
        raise Unavailable()

    monkeypatch.setattr(FakeGateway, "pricing", no_prices)
    with gateway().fault(availability_down=True, scope="metasearch"):
        html = client.get("/search/", {"q": "bluebird"}, headers=HTMX).content.decode()
    assert "not available right now, so we could not search for domains" in html
    assert "result-row" not in html
    assert availability_calls == []


def test_an_empty_price_list_is_not_guessed_at(client, provider, availability_calls, monkeypatch):
    monkeypatch.setattr(
        FakeGateway, "pricing", lambda self: PriceList(currency="USD", tlds={}, privacy_protection=None)
    )
    with gateway().fault(availability_down=True, scope="metasearch"):
        html = client.get("/search/", {"q": "bluebird"}, headers=HTMX).content.decode()
    assert "not available right now, so we could not search for domains" in html
    assert availability_calls == []


def test_the_fallback_page_asks_for_no_ai(client, provider, metasearch_calls):
    with gateway().fault(availability_down=True, scope="metasearch"):
        html = client.get("/search/", {"q": "bluebird"}).content.decode()
    assert "Showing the name you typed only." in html
    assert "Ideas from AI" not in html
    assert all(call["aisuggest"] is False for call in metasearch_calls)
