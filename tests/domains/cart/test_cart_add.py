"""`/cart/add/` (POST domain_name): price and availability from MetaSearch, against the sandbox over HTTP."""

from __future__ import annotations

import uuid

import pytest

from domains.cart.basket import MAX_LINES
from storefront.gateway import Unavailable
from tests.domains.conftest import cart_of, line, put_in_cart
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def fresh(tld: str = "com") -> str:
    return f"fresh{uuid.uuid4().hex[:10]}.{tld}"


def test_it_adds_an_available_domain_with_its_prices(client, seeded_partner):
    name = fresh()
    response = client.post("/cart/add/", {"domain_name": name})
    assert response.status_code == 302
    assert response.url == "/cart/"
    assert cart_of(client)[name] == {
        "duration": 1,
        "currency": "USD",
        "price": "14.49",
        "renew": "16.49",
        "terms": [1, 2, 3, 5, 10],
        "min_term": 1,
        "text": "$14.49 first year, then $16.49/yr",
    }


def test_htmx_gets_a_short_status_and_the_new_cart_count(client, seeded_partner):
    put_in_cart(client, line("already.com"))
    response = client.post("/cart/add/", {"domain_name": fresh()}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "In your cart ✓" in html
    assert 'href="/cart/"' in html
    assert '<span class="badge" id="cart-count" hx-swap-oob="true">2</span>' in html


def test_the_new_cart_count_leaves_out_a_line_that_does_not_read(client, seeded_partner):
    put_in_cart(client, line("already.com"))
    session = client.session
    session["cart"] = {**session["cart"], "old.com": {"register": "12.99", "currency": "USD"}}
    session.save()
    response = client.post("/cart/add/", {"domain_name": fresh()}, headers=HTMX)
    assert '<span class="badge" id="cart-count" hx-swap-oob="true">2</span>' in response.content.decode()
    assert len(client.get("/cart/").context["lines"]) == 2


def test_a_line_that_does_not_read_is_not_already_in_the_cart(client, seeded_partner):
    name = fresh()
    session = client.session
    session["cart"] = {name: {"register": "12.99", "currency": "USD"}}
    session.save()
    client.post("/cart/add/", {"domain_name": name})
    assert cart_of(client)[name]["price"] == "14.49"  # quoted afresh, not refused as "already in your cart"
    assert name in client.get("/cart/").content.decode()


# A percentage passes a free first year on; the suite's default, a fixed amount per year, would charge that year.
@markup(percent="10")
def test_a_free_first_year_costs_nothing(client, seeded_partner):
    name = fresh("shop")
    client.post("/cart/add/", {"domain_name": name})
    assert cart_of(client)[name]["price"] == "0.00"
    assert cart_of(client)[name]["text"] == "Free for the first year, then $32.99/yr"  # 29.99 + 10 %


def test_the_minimum_term_in_the_price_list_sets_the_line_minimum(client, seeded_partner):
    name = fresh("ai")
    client.post("/cart/add/", {"domain_name": name})
    assert cart_of(client)[name]["min_term"] == 2
    assert cart_of(client)[name]["duration"] == 2


def test_it_refuses_a_taken_domain(client, seeded_partner):
    response = client.post("/cart/add/", {"domain_name": "example.com"}, headers=HTMX)
    assert "example.com is already taken." in response.content.decode()
    assert cart_of(client) == {}


def test_it_refuses_a_premium_domain(client, seeded_partner):
    response = client.post("/cart/add/", {"domain_name": "cars.com"}, follow=True)
    assert "cars.com is a premium name and cannot be bought here." in response.content.decode()
    assert cart_of(client) == {}


def test_it_refuses_a_malformed_name_without_asking_the_provider(client, provider_calls):
    response = client.post("/cart/add/", {"domain_name": "not a domain"}, headers=HTMX)
    assert "does not look like a domain name" in response.content.decode()
    assert provider_calls == []


def test_adding_twice_keeps_one_line(client, seeded_partner):
    name = fresh()
    client.post("/cart/add/", {"domain_name": name})
    client.post("/cart/update/", {"domain_name": name, "duration": "3"})
    client.post("/cart/add/", {"domain_name": name.upper()})
    assert list(cart_of(client)) == [name]
    assert cart_of(client)[name]["duration"] == 3


def test_the_cart_has_a_size_limit(client, provider_calls):
    put_in_cart(client, *[line(f"d{i}.com") for i in range(MAX_LINES)])
    response = client.post("/cart/add/", {"domain_name": "one-more.com"}, follow=True)
    assert f"Your cart holds up to {MAX_LINES} domains" in response.content.decode()
    assert provider_calls == []


def test_it_goes_back_to_the_page_it_came_from(client, seeded_partner):
    response = client.post("/cart/add/", {"domain_name": fresh()}, headers={"Referer": "http://testserver/search/?q=x"})
    assert response.url == "http://testserver/search/?q=x"
    response = client.post("/cart/add/", {"domain_name": fresh()}, headers={"Referer": "https://evil.example/"})
    assert response.url == "/cart/"


def test_a_provider_failure_is_shown_not_raised(client, seeded_partner):
    with seeded_partner.outage(error=Unavailable("ConnectionError")):
        response = client.post("/cart/add/", {"domain_name": fresh()}, headers=HTMX)
    assert response.status_code == 200
    assert "unavailable right now" in response.content.decode()
    assert cart_of(client) == {}


def test_it_only_accepts_post(client):
    assert client.get("/cart/add/").status_code == 405
