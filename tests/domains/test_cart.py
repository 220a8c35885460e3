"""The cart page `/cart/`: lines with first-year, renewal and term totals; the cart survives signing in."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from domains.cart import Cart
from tests.domains.conftest import cart_of, line, put_in_cart

pytestmark = pytest.mark.django_db


def test_it_shows_an_empty_cart(client):
    response = client.get("/cart/")
    assert response.status_code == 200
    assert "Your cart is empty" in response.content.decode()


def test_it_shows_first_year_renewal_and_the_total_for_the_term(client):
    put_in_cart(client, line("brand.com", duration=3))
    html = client.get("/cart/").content.decode()
    assert "brand.com" in html
    assert "$12.99" in html  # first year
    assert "$14.99/yr" in html  # renewal
    assert "Total for 3 years" in html
    assert "$42.97" in html  # 12.99 + 2 * 14.99


def test_a_free_first_year_shows_as_free_and_costs_nothing(client):
    put_in_cart(
        client,
        line("brand.shop", duration=2, register=Decimal("29.99"), renew=Decimal("29.99"), is_free_first_year=True),
    )
    html = client.get("/cart/").content.decode()
    assert ">Free<" in html
    assert "Total for 2 years" in html
    assert "$29.99</dd>" in html  # only the renewal year is paid


def test_a_one_year_free_first_year_line_costs_nothing(client):
    put_in_cart(client, line("brand.shop", register=Decimal("0.00"), renew=Decimal("29.99"), is_free_first_year=True))
    html = client.get("/cart/").content.decode()
    assert "<dt>Total for 1 year</dt><dd>Free</dd>" in html
    assert "<strong>$0.00</strong>" in html


def test_the_cart_total_adds_up_every_line(client):
    put_in_cart(
        client,
        line("brand.com", duration=2),  # 12.99 + 14.99
        line("brand.shop", duration=1, register=Decimal("29.99"), renew=Decimal("29.99"), is_free_first_year=True),
        line("brand.xyz", duration=1, register=Decimal("2.99"), renew=Decimal("12.99")),
    )
    html = client.get("/cart/").content.decode()
    assert "<strong>$30.97</strong>" in html


def test_totals_use_decimal_arithmetic(client):
    put_in_cart(client, line("a.com", duration=10, register=Decimal("0.10"), renew=Decimal("0.20")))
    cart = Cart(client.session)
    assert cart.totals() == {"USD": Decimal("1.90")}


def test_every_duration_field_has_a_label_and_the_page_has_csrf(client):
    put_in_cart(client, line("brand.com"))
    html = client.get("/cart/").content.decode()
    assert '<label for="duration-1">' in html
    assert 'id="duration-1"' in html
    assert "csrfmiddlewaretoken" in html


def test_terms_below_the_minimum_cannot_be_chosen(client):
    put_in_cart(client, line("brand.ai", duration=2, min_term=2, register=Decimal("79.99"), renew=Decimal("79.99")))
    html = client.get("/cart/").content.decode()
    assert '<option value="1" disabled>' in html
    assert ".ai needs at least 2 years" in html


def test_it_ignores_lines_it_cannot_read(client):
    session = client.session
    session["cart"] = {"ok.com": line("ok.com").as_session(), "bad.com": {"register": "not money"}, "x": "junk"}
    session.save()
    response = client.get("/cart/")
    assert response.status_code == 200
    assert "ok.com" in response.content.decode()
    assert "bad.com" not in response.content.decode()


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


def test_the_header_counts_the_lines(client):
    put_in_cart(client, line("a.com"), line("b.com"))
    html = client.get("/cart/").content.decode()
    assert '<span class="badge" id="cart-count">2</span>' in html
