"""The cart page `/cart/`: lines with our price text, renewal and term totals; the cart survives signing in."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from domains.cart.basket import Cart
from pricing.money import Money
from tests.domains.conftest import cart_of, line, put_in_cart

pytestmark = pytest.mark.django_db


def test_it_shows_an_empty_cart(client):
    response = client.get("/cart/")
    assert response.status_code == 200
    assert "Your cart is empty" in response.content.decode()


def test_it_shows_the_price_text_renewal_and_the_total_for_the_term(client):
    put_in_cart(client, line("brand.com", duration=3, price=Decimal("47.47")))
    html = client.get("/cart/").content.decode()
    assert "brand.com" in html
    assert "$14.49 first year, then $16.49/yr" in html
    assert "$16.49/yr" in html  # renewal
    assert "<dt>Total for 3 years</dt><dd>$47.47</dd>" in html  # the quoted total, as shown when it was added


def test_a_line_that_costs_nothing_shows_as_free(client):
    put_in_cart(client, line("brand.shop", price=Decimal("0.00"), renew=Decimal("29.99")))
    html = client.get("/cart/").content.decode()
    assert "<dt>Total for 1 year</dt><dd>Free</dd>" in html
    assert "<strong>$0.00</strong>" in html


def test_the_cart_total_adds_up_every_line(client):
    put_in_cart(
        client,
        line("brand.com", duration=2, price=Decimal("30.98")),
        line("brand.shop", duration=1, price=Decimal("1.50"), renew=Decimal("31.49")),
        line("brand.xyz", duration=1, price=Decimal("4.49"), renew=Decimal("14.49")),
    )
    html = client.get("/cart/").content.decode()
    assert "<strong>$36.97</strong>" in html


def test_totals_use_decimal_arithmetic(client):
    put_in_cart(client, line("a.com", price=Decimal("0.10")), line("b.com", price=Decimal("0.20")))
    cart = Cart(client.session)
    assert cart.totals() == [Money(Decimal("0.30"), "USD")]


def test_every_duration_field_has_a_label_and_the_page_has_csrf(client):
    put_in_cart(client, line("brand.com"))
    html = client.get("/cart/").content.decode()
    assert '<label for="duration-1">' in html
    assert 'id="duration-1"' in html
    assert "csrfmiddlewaretoken" in html


def test_only_the_terms_sold_from_the_minimum_can_be_chosen(client):
    put_in_cart(client, line("brand.ai", duration=2, min_term=2, terms=(2, 3, 5, 10), price=Decimal("162.98")))
    html = client.get("/cart/").content.decode()
    assert '<option value="1"' not in html
    assert '<option value="4"' not in html  # not priced for four years
    assert '<option value="2" selected>' in html
    assert ".ai needs at least 2 years" in html


def test_it_ignores_lines_it_cannot_read(client):
    session = client.session
    session["cart"] = {
        "ok.com": line("ok.com").as_session(),
        "bad.com": {"price": "not money", "currency": "USD"},
        "old.com": {"register": "12.99", "currency": "USD"},
        "x": "junk",
    }
    session.save()
    response = client.get("/cart/")
    assert response.status_code == 200
    assert "ok.com" in response.content.decode()
    assert "bad.com" not in response.content.decode()
    assert "old.com" not in response.content.decode()  # a line from before retail prices: its figure was the provider's


def test_the_cart_survives_signing_in(client):
    user = get_user_model().objects.create_user(
        username="ada@example.org", email="ada@example.org", password="Pass#word12"
    )
    put_in_cart(client, line("brand.com", duration=2))
    response = client.post("/accounts/login/", {"login": "ada@example.org", "password": "Pass#word12"})
    assert response.status_code == 302
    assert response.wsgi_request.user == user
    assert cart_of(client)["brand.com"]["duration"] == 2
    assert "brand.com" in client.get("/cart/").content.decode()


def test_the_header_counts_the_lines_the_cart_page_shows(client):
    # A line that no longer reads (here one kept from before retail prices) is not shown, so it is not counted.
    put_in_cart(client, line("shown.com"))
    session = client.session
    session["cart"] = {**session["cart"], "old.com": {"register": "12.99", "currency": "USD"}}
    session.save()

    cart_page = client.get("/cart/")
    home = client.get("/").content.decode()

    assert len(cart_page.context["lines"]) == 1
    assert '<span class="badge" id="cart-count">1</span>' in home
    assert '<span class="badge" id="cart-count">1</span>' in cart_page.content.decode()


def test_the_header_counts_the_lines(client):
    put_in_cart(client, line("a.com"), line("b.com"))
    html = client.get("/cart/").content.decode()
    assert '<span class="badge" id="cart-count">2</span>' in html
