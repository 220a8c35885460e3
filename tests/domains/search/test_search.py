"""The search page `/search/?q=` and its htmx fragment, against the built-in sandbox over HTTP."""

from __future__ import annotations

import re

import pytest
from django.test import Client, override_settings

from storefront.gateway import RateLimited, Unauthorized, gateway
from tests.limits import TEST_WINDOW
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def provider(seeded_partner):
    return seeded_partner


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
    # Only the provider-backed request waits for a pause (search.js's search-pause); search.js draws the typed
    # name's rows on each key.
    assert 'hx-trigger="search-pause, search"' in html
    # Typing replaces the address; search.js pushes it on submit (tests/browser/test_journey_search_typed.py).
    assert 'hx-replace-url="true"' in html
    assert "hx-push-url" not in html.split('id="q"', 1)[1].split(">", 1)[0]
    assert 'hx-sync="this:replace"' in html
    assert 'hx-target="#search-results"' in html
    # The results change on every key: not a live region. One polite region says the settled answer once.
    assert '<div id="search-results" class="search-results">' in html
    assert (
        '<p id="search-announce" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">' in html
    )
    # A visible loading state in the results area while a search is in flight.
    assert 'hx-indicator="closest form, #search-loading"' in html
    assert '<div id="search-loading" class="search-loading" role="status">' in html
    # A full domain fits the box: a 63-character label plus its extension, or a pasted address.
    assert 'maxlength="2000"' in html


@pytest.mark.django_db
def test_an_empty_search_says_what_to_type_without_asking_the_provider(client, metasearch_calls):
    for response in (page(client, "   "), fragment(client, "")):
        assert response.status_code == 200
        html = response.content.decode()
        assert "Type a name to search for, like bluebird, or a full domain like bluebird.com." in html
        assert "result-row" not in html
    assert metasearch_calls == []


@pytest.mark.django_db
def test_the_search_page_without_a_search_says_nothing_yet(client, metasearch_calls):
    html = client.get("/search/").content.decode()
    assert 'id="search-results"' in html
    assert "Type a name to search for" not in html
    assert metasearch_calls == []


def test_a_bare_word_shows_the_featured_result_the_list_and_a_block_for_ai_ideas(client, provider):
    response = page(client, "bluebird")
    assert response.status_code == 200
    html = response.content.decode()
    hero = section(html, 'aria-label="Featured result"')
    assert "bluebird.com" in hero
    assert "$14.49 first year, then $16.49/yr" in hero  # .com's cost, 12.99 then 14.99, plus 1.50 a year
    assert 'Add <span class="visually-hidden">bluebird.com</span> to cart' in hero
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


# A percentage passes .shop's free first year on, so its row shows the badge (a fixed amount per year would not).
@markup(percent="10")
def test_a_full_domain_marks_the_exact_row_as_the_customers(client, provider):
    for response in (page(client, "Bluebird.Shop"), fragment(client, "bluebird.shop")):
        html = response.content.decode()
        mine = row_of(html, "bluebird.shop")
        assert "Your search" in mine
        assert "First year free" in mine
        assert "Free for the first year, then $32.99/yr" in mine  # 29.99 + 10 %
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


def test_add_to_cart_posts_the_domain_with_the_pages_csrf_token(client, provider):
    for address in ("/", "/search/?q=bluebird"):
        html = client.get(address).content.decode()
        cart_form = html[html.index('<form class="search-cart-form"') :]
        cart_form = cart_form[: cart_form.index("</form>")]
        assert 'action="/cart/add/" method="post"' in cart_form
        assert 'name="csrfmiddlewaretoken"' in cart_form
        # What a typed search's fragment replaces is inside the form.
        assert '<div id="search-results"' in cart_form
    # Each button posts its own domain, as a plain form and with htmx.
    row = row_of(cart_form, "bluebird.com")
    assert '<button type="submit" name="domain_name" value="bluebird.com"' in row
    assert 'hx-post="/cart/add/"' in row
    # The fragment is rows only: a form or token of its own would nest a form in the page's.
    response = fragment(client, "bluebird")
    html = response.content.decode()
    assert "<form" not in html and "csrfmiddlewaretoken" not in html
    assert "csrftoken" not in response.cookies  # nor is the page's token renewed by each keystroke
    assert '<button type="submit" name="domain_name" value="bluebird.com"' in row_of(html, "bluebird.com")


def test_a_name_of_hyphens_says_why_it_cannot_be_a_domain(client, provider, metasearch_calls):
    for response in (page(client, "---"), fragment(client, "---")):
        assert response.status_code == 200
        html = response.content.decode()
        assert "A domain cannot start or end with a hyphen" in html
        assert "result-row" not in html
    assert metasearch_calls == []


def test_characters_that_cannot_be_in_a_domain_are_named_not_dropped(client, provider, metasearch_calls):
    for response in (page(client, "xq$$##!!zz"), fragment(client, "xq$$##!!zz")):
        assert response.status_code == 200
        html = response.content.decode()
        assert "We can't search for “xq$$##!!zz”." in html
        assert "A domain cannot contain “$”, “#” or “!”." in html
        assert "xqzz" not in html
        assert "sanitisation" not in html
        assert "result-row" not in html
    assert metasearch_calls == []


def test_a_label_longer_than_63_characters_is_refused_before_searching(client, metasearch_calls):
    long_term = "a" * 64
    html = page(client, long_term).content.decode()
    assert "The name before the extension can be at most 63 characters; this one has 64." in html
    assert f'value="{long_term}"' in html
    assert metasearch_calls == []


def test_a_long_full_domain_is_searched_whole_not_cut_to_63_characters(client, provider, metasearch_calls):
    name = "b" * 60 + ".com"
    html = fragment(client, name).content.decode()
    # MetaSearch takes 63 characters: the label is asked, and the typed domain is found among its extensions.
    assert metasearch_calls == ["b" * 60]
    assert "Your search" in row_of(html, name)
    assert html.count("Your search") == 1
    assert f"Results for <strong>{name}</strong>" in html


def test_an_address_is_searched_as_its_domain(client, provider, metasearch_calls):
    for typed in ("https://coffee.com/", "HTTP://www.Coffee.com/menu?x=1#top", "www.coffee.com"):
        html = fragment(client, typed).content.decode()
        assert "Results for <strong>coffee.com</strong>" in html
        mine = row_of(html, "coffee.com")
        assert "Your search" in mine
        assert html.count("Your search") == 1
        assert "httpscoffee" not in html
        assert "www.com" not in html
    assert set(metasearch_calls) == {"coffee.com"}


def test_an_extension_that_is_not_sold_is_said_plainly(client, provider, metasearch_calls):
    for response in (page(client, "coffee.co.uk"), fragment(client, "coffee.co.uk")):
        html = response.content.decode()
        assert "We don't sell .co.uk domains." in html
        assert "Here is “coffee” with the extensions we do sell." in html
        # The featured coffee.com is not what was typed, so nothing claims to be "Your search".
        assert "Your search" not in html
        assert row_of(html, "coffee.com")
    assert metasearch_calls == ["coffee"]


def test_a_refused_partner_key_says_search_is_not_available(client, provider):
    with provider.outage(error=Unauthorized("Invalid partner token", status=401)):
        for response in (page(client, "bluebird"), fragment(client, "bluebird")):
            assert response.status_code == 200
            html = response.content.decode()
            assert "not available right now, so we could not search for domains" in html
            assert "test_wrong" not in html
            assert "Invalid partner token" not in html


def test_metasearch_down_falls_back_to_availability_with_our_prices(client, provider, fake_gateway):
    with fake_gateway.fault(availability_down=True, scope="metasearch"):
        responses = [page(client, "bluebird.io"), fragment(client, "bluebird.io")]
    for response in responses:
        assert response.status_code == 200
        html = response.content.decode()
        assert "Showing the name you typed only." in html
        mine = row_of(html, "bluebird.io")
        assert "Your search" in mine
        # Priced from our table, no MetaSearch needed: .io's cost, 39.99 then 49.99, plus 1.50 a year.
        assert "$41.49 first year, then $51.49/yr" in mine
        assert html.index("bluebird.io") < html.index("bluebird.com")
        assert "Taken" in row_of(html, "bluebird.com") or "Available" in row_of(html, "bluebird.com")


def test_a_taken_name_in_the_fallback_offers_nothing_to_buy(client, provider, fake_gateway):
    with fake_gateway.fault(availability_down=True, scope="metasearch"):
        html = fragment(client, "example.com").content.decode()
    assert "Taken" in row_of(html, "example.com")
    assert 'name="domain_name"' not in row_of(html, "example.com")
    assert 'name="domain_name" value="example.net"' in row_of(html, "example.net")


def test_with_every_search_down_it_says_so(client, provider, fake_gateway):
    with fake_gateway.fault(availability_down=True):
        for response in (page(client, "bluebird"), fragment(client, "bluebird")):
            assert response.status_code == 200
            html = response.content.decode()
            assert "not available right now, so we could not search for domains" in html
            assert "result-row" not in html


def test_a_metasearch_timeout_falls_back_to_availability(client, provider, fake_gateway):
    with override_settings(RESELLER_SEARCH_READ_TIMEOUT=0.5, RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with fake_gateway.fault(hang_seconds=1.5, scope="metasearch"):
            html = fragment(client, "bluebird").content.decode()
    gateway.cache_clear()
    assert "Showing the name you typed only." in html
    assert "Available" in row_of(html, "bluebird.com")


def test_rate_limiting_asks_the_customer_to_wait(client, provider, fake_gateway):
    with override_settings(RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with fake_gateway.fault(rate_limited=True):
            html = fragment(client, "bluebird").content.decode()
    gateway.cache_clear()
    assert str(RateLimited.default_message) in html
    assert "result-row" not in html


def test_a_repeated_search_is_answered_from_the_cache(client, provider, metasearch_calls):
    first = fragment(client, "bluebird").content.decode()
    second = page(client, " BLUEBIRD ").content.decode()
    assert metasearch_calls == ["bluebird"]
    assert row_of(first, "bluebird.com") and row_of(second, "bluebird.com")


def test_searches_are_rate_limited_per_address_with_a_message_in_place(client, provider, metasearch_calls, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "search": (2, TEST_WINDOW)}
    fragment(client, "bluebird")
    fragment(client, "bluebirds")
    response = fragment(client, "bluebirdz")
    assert response.status_code == 429
    html = response.content.decode()
    assert "Please wait" in html
    assert "<html" not in html  # in place of the results, not a whole page
    assert metasearch_calls == ["bluebird", "bluebirds"]


def test_an_answer_is_drawn_once_for_everyone_and_again_for_a_visitor_with_it_in_the_cart(
    client, provider, monkeypatch
):
    from domains.search import views

    drawn: list[str] = []
    real = views.render_to_string

    def counting(template_name, context=None, *args, **kwargs):
        if template_name == "domains/_search_listing.html":
            drawn.append(template_name)
        return real(template_name, context, *args, **kwargs)

    monkeypatch.setattr(views, "render_to_string", counting)
    first = fragment(client, "bluebird").content.decode()
    again = fragment(client, "bluebird").content.decode()
    assert len(drawn) == 1
    assert row_of(first, "bluebird.com") == row_of(again, "bluebird.com")

    client.post("/cart/add/", {"domain_name": "bluebird.com"})
    in_cart = fragment(client, "bluebird").content.decode()
    assert len(drawn) == 2  # this visitor has one of the names: their own drawing
    assert "In your cart" in row_of(in_cart, "bluebird.com")
    assert "In your cart" not in row_of(fragment(Client(), "bluebird").content.decode(), "bluebird.com")
    assert len(drawn) == 2  # another visitor, with an empty cart, gets the first drawing


def test_a_taken_exact_domain_offers_to_ask_for_transferring_it_in(client, provider):
    """The provider cannot take a domain in yet: the searched name, taken, links to the page that counts the ask."""
    mine = row_of(page(client, "example.com").content.decode(), "example.com")
    assert 'href="/wanted/transfer_in/?domain=example.com"' in mine
    assert "/wanted/" not in row_of(page(client, "example.com").content.decode(), "example.net")
