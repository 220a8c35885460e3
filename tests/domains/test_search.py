"""The search page `/search/?q=` and its htmx fragment, against the built-in sandbox over HTTP."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from storefront.gateway import RateLimited, ResellerGateway, gateway

pytestmark = pytest.mark.django_db(transaction=True)

HTMX = {"HX-Request": "true"}


@pytest.fixture
def provider(priced, sandbox_partner):
    return priced


@pytest.fixture
def metasearch_calls(monkeypatch) -> list[str]:
    """Counts MetaSearch calls made by the gateway; each still goes to the sandbox."""
    calls: list[str] = []
    real = ResellerGateway.metasearch

    def counting(self, *, search_term: str, **kwargs):
        calls.append(search_term)
        return real(self, search_term=search_term, **kwargs)

    monkeypatch.setattr(ResellerGateway, "metasearch", counting)
    return calls


def fragment(client, q: str):
    return client.get("/search/", {"q": q}, headers=HTMX)


def page(client, q: str):
    return client.get("/search/", {"q": q})


def row_of(html: str, domain: str) -> str:
    """The HTML of the result row for `domain`."""
    for row in re.findall(r'<li class="result-row.*?</li>', html, flags=re.S):
        if f'<span class="result-domain">{domain}</span>' in row:
            return row
    raise AssertionError(f"no row for {domain}")


def section(html: str, heading: str) -> str:
    start = html.index(heading)
    return html[start : html.index("</section>", start)]


def test_it_shows_the_search_box_on_the_home_page(client):
    html = client.get("/").content.decode()
    assert '<form class="search-form" action="/search/" method="get"' in html
    assert '<label for="q"' in html
    assert 'hx-get="/search/"' in html
    assert 'hx-trigger="input changed delay:300ms, search"' in html
    assert 'hx-push-url="true"' in html
    assert 'hx-sync="this:replace"' in html
    assert 'hx-target="#search-results"' in html
    assert 'id="search-results"' in html


@pytest.mark.django_db
def test_an_empty_search_shows_the_page_without_asking_the_provider(client, metasearch_calls):
    response = page(client, "   ")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="search-results"' in html
    assert "result-row" not in html
    assert metasearch_calls == []


def test_a_bare_word_shows_the_featured_result_the_list_and_a_block_for_ai_ideas(client, provider):
    response = page(client, "bluebird")
    assert response.status_code == 200
    html = response.content.decode()
    hero = section(html, 'aria-label="Featured result"')
    assert "bluebird.com" in hero
    assert "$12.99 first year, then $14.99/yr" in hero
    assert 'Add <span class="visually-hidden">bluebird.com </span>to cart' in hero
    listed = section(html, "More domains")
    assert "bluebird.net" in listed
    # The ideas load after the results (test_search_ai.py).
    assert "Ideas from AI" in html
    assert "Finding more ideas…" in html
    # Nothing typed with an extension, so no row claims to be the customer's exact search.
    assert "Your search" not in html
    # The full page keeps what was typed in the box.
    assert 'value="bluebird"' in html


def test_the_fragment_is_only_the_results(client, provider):
    response = fragment(client, "bluebird")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert '<form class="search-form"' not in html
    assert "bluebird.com" in html
    assert "Ideas from AI" in html
    assert "HX-Request" in response["Vary"]


def test_the_page_and_the_fragment_vary_on_the_htmx_header(client, provider):
    assert "HX-Request" in page(client, "bluebird")["Vary"]
    assert "HX-Request" in page(client, "")["Vary"]


def test_going_back_in_history_gets_the_whole_page(client, provider):
    for extra in ({"HX-History-Restore-Request": "true"}, {"HX-Boosted": "true"}):
        response = client.get("/search/", {"q": "bluebird"}, headers={**HTMX, **extra})
        html = response.content.decode()
        assert "<html" in html
        assert "bluebird.com" in html


def test_a_full_domain_marks_the_exact_row_as_the_customers(client, provider):
    for response in (page(client, "Bluebird.Shop"), fragment(client, "bluebird.shop")):
        html = response.content.decode()
        mine = row_of(html, "bluebird.shop")
        assert "Your search" in mine
        assert "First year free" in mine
        assert "Free for the first year, then $29.99/yr" in mine
        assert 'name="domain_name" value="bluebird.shop"' in mine
        assert "Add <span" in mine
        assert html.count("Your search") == 1
        assert "Your search" not in row_of(html, "bluebird.com")


def test_a_taken_exact_domain_is_marked_and_offers_nothing_to_buy(client, provider):
    for response in (page(client, "example.com"), fragment(client, "example.com")):
        html = response.content.decode()
        mine = row_of(html, "example.com")
        assert "Your search" in mine
        assert "Taken" in mine
        assert "Add <span" not in mine
        assert 'name="domain_name"' not in mine
        # Other extensions of the name are still offered.
        assert 'value="example.net"' in row_of(html, "example.net")


def test_a_premium_name_shows_its_price_and_cannot_be_bought(client, provider):
    for response in (page(client, "cars.com"), fragment(client, "cars.com")):
        html = response.content.decode()
        mine = row_of(html, "cars.com")
        assert "Premium" in mine and "Not sold here" in mine
        assert "$25,000.00" not in mine  # the provider's premium price and text are never shown
        assert 'name="domain_name"' not in mine
        assert "Add <span" not in mine


def test_first_ten_results_are_listed_and_the_rest_behind_show_more(client, provider):
    html = fragment(client, "bluebird").content.decode()
    listed = section(html, "More domains")
    visible, hidden = listed.split("<details", 1)
    assert visible.count('class="result-row') == 10
    count = int(re.search(r"Show (\d+) more", hidden).group(1))
    assert count > 0
    assert hidden.count('class="result-row') == count


def test_add_to_cart_posts_the_domain_with_a_csrf_token(client, provider):
    for response in (page(client, "bluebird"), fragment(client, "bluebird")):
        html = response.content.decode()
        cart_form = html[html.index('<form class="search-cart-form"') :]
        cart_form = cart_form[: cart_form.index("</form>")]
        assert 'action="/cart/add/" method="post"' in cart_form
        assert 'name="csrfmiddlewaretoken"' in cart_form
        # Each button posts its own domain, as a plain form and with htmx.
        row = row_of(cart_form, "bluebird.com")
        assert '<button type="submit" name="domain_name" value="bluebird.com"' in row
        assert 'hx-post="/cart/add/"' in row


def test_an_empty_result_shows_the_providers_message(client, provider):
    for response in (page(client, "---"), fragment(client, "---")):
        assert response.status_code == 200
        html = response.content.decode()
        assert "No domains found for this search" in html
        assert "result-row" not in html


def test_a_term_that_sanitises_to_nothing_says_why(client, provider):
    for response in (page(client, "!!!"), fragment(client, "!!!")):
        assert response.status_code == 200
        html = response.content.decode()
        assert "We can't search for “!!!”." in html
        assert "Please type a domain name: letters, digits and hyphens" in html  # the gateway's sentence
        assert "result-row" not in html


def test_a_search_that_is_too_long_is_refused_on_the_form(client, metasearch_calls):
    long_term = "a" * 64
    html = page(client, long_term).content.decode()
    assert "A search can be at most 63 characters" in html
    assert f'value="{long_term}"' in html
    assert metasearch_calls == []


def test_a_refused_partner_key_says_search_is_not_available(client, provider):
    with override_settings(RESELLER_API_KEY="test_wrong"):
        for response in (page(client, "bluebird"), fragment(client, "bluebird")):
            assert response.status_code == 200
            html = response.content.decode()
            assert "not available right now, so we could not search for domains" in html
            assert "test_wrong" not in html
            assert "Invalid partner token" not in html


def test_metasearch_down_falls_back_to_availability_with_our_prices(client, provider, sandbox_control):
    with sandbox_control.fault(availability_down=True, scope="metasearch"):
        responses = [page(client, "bluebird.io"), fragment(client, "bluebird.io")]
    for response in responses:
        assert response.status_code == 200
        html = response.content.decode()
        assert "Showing the name you typed only." in html
        mine = row_of(html, "bluebird.io")
        assert "Your search" in mine
        assert "$39.99 first year, then $49.99/yr" in mine  # priced from our table, no MetaSearch needed
        assert html.index("bluebird.io") < html.index("bluebird.com")
        assert "Taken" in row_of(html, "bluebird.com") or "Available" in row_of(html, "bluebird.com")


def test_a_taken_name_in_the_fallback_offers_nothing_to_buy(client, provider, sandbox_control):
    with sandbox_control.fault(availability_down=True, scope="metasearch"):
        html = fragment(client, "example.com").content.decode()
    assert "Taken" in row_of(html, "example.com")
    assert 'name="domain_name"' not in row_of(html, "example.com")
    assert 'name="domain_name" value="example.net"' in row_of(html, "example.net")


def test_with_every_search_down_it_says_so(client, provider, sandbox_control):
    with sandbox_control.fault(availability_down=True):
        for response in (page(client, "bluebird"), fragment(client, "bluebird")):
            assert response.status_code == 200
            html = response.content.decode()
            assert "not available right now, so we could not search for domains" in html
            assert "result-row" not in html


def test_a_metasearch_timeout_falls_back_to_availability(client, provider, sandbox_control):
    with override_settings(RESELLER_SEARCH_READ_TIMEOUT=0.5, RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with sandbox_control.fault(hang_seconds=1.5, scope="metasearch"):
            html = fragment(client, "bluebird").content.decode()
    gateway.cache_clear()
    assert "Showing the name you typed only." in html
    assert "Available" in row_of(html, "bluebird.com")


def test_rate_limiting_asks_the_customer_to_wait(client, provider, sandbox_control):
    with override_settings(RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with sandbox_control.fault(rate_limited=True):
            html = fragment(client, "bluebird").content.decode()
    gateway.cache_clear()
    assert RateLimited.default_message in html
    assert "result-row" not in html


def test_a_repeated_search_is_answered_from_the_cache(client, provider, metasearch_calls):
    first = fragment(client, "bluebird").content.decode()
    second = page(client, " BLUEBIRD ").content.decode()
    assert metasearch_calls == ["bluebird"]
    assert row_of(first, "bluebird.com") and row_of(second, "bluebird.com")


def test_searches_are_rate_limited_per_address_with_a_message_in_place(client, provider, metasearch_calls, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "search": (2, 60)}
    fragment(client, "bluebird")
    fragment(client, "bluebirds")
    response = fragment(client, "bluebirdz")
    assert response.status_code == 429
    html = response.content.decode()
    assert "Please wait" in html
    assert "<html" not in html  # in place of the results, not a whole page
    assert metasearch_calls == ["bluebird", "bluebirds"]
