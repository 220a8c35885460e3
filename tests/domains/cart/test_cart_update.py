"""`/cart/update/` (POST domain_name, duration): the term of a line, 1 to 10 years and at least the TLD's minimum."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.domains.conftest import cart_of, line, put_in_cart

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def test_it_changes_the_term_and_the_total(client, fake_priced):
    put_in_cart(client, line("brand.com"))
    response = client.post("/cart/update/", {"domain_name": "brand.com", "duration": "3"})
    assert response.status_code == 302
    assert response.url == "/cart/"
    assert cart_of(client)["brand.com"]["duration"] == 3
    # A new quote for the new term: its cost, 12.99 + 2 * 14.99, plus 1.50 for each of the 3 years.
    assert cart_of(client)["brand.com"]["price"] == "47.47"
    assert "$47.47" in client.get("/cart/").content.decode()


def test_it_refuses_a_term_the_tld_is_not_sold_for(client, fake_priced):
    put_in_cart(client, line("brand.com", duration=2, price=Decimal("30.98")))
    response = client.post("/cart/update/", {"domain_name": "brand.com", "duration": "4"})
    assert response.status_code == 400
    assert "Domains ending in .com are sold for 1, 2, 3, 5 or 10 years." in response.content.decode()
    assert cart_of(client)["brand.com"]["duration"] == 2


@pytest.mark.parametrize(
    ("duration", "message"),
    [
        ("0", "Choose at least 1 year."),
        ("11", "Domains can be registered for at most 10 years."),
        ("two", "Choose a number of years from 1 to 10."),
        ("", "Choose how many years."),
    ],
)
def test_it_refuses_terms_outside_one_to_ten_years(client, duration, message):
    put_in_cart(client, line("brand.com", duration=2))
    response = client.post("/cart/update/", {"domain_name": "brand.com", "duration": duration})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert cart_of(client)["brand.com"]["duration"] == 2


def test_it_refuses_a_term_below_the_tlds_minimum(client):
    put_in_cart(client, line("brand.ai", duration=2, min_term=2, terms=(2, 3, 5, 10), price=Decimal("162.98")))
    response = client.post("/cart/update/", {"domain_name": "brand.ai", "duration": "1"})
    assert response.status_code == 400
    assert "Domains ending in .ai need at least 2 years." in response.content.decode()
    assert cart_of(client)["brand.ai"]["duration"] == 2


def test_htmx_gets_the_cart_fragment_with_the_new_total(client, fake_priced):
    put_in_cart(client, line("brand.com"))
    response = client.post("/cart/update/", {"domain_name": "brand.com", "duration": "2"}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert '<section id="cart"' in html
    assert "<html" not in html
    assert "$30.98" in html  # 12.99 + 14.99 for two years, plus 1.50 a year


def test_htmx_shows_the_error_next_to_the_line(client):
    put_in_cart(client, line("brand.com"))
    response = client.post("/cart/update/", {"domain_name": "brand.com", "duration": "12"}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200  # htmx swaps only successful answers
    assert 'aria-invalid="true"' in html
    assert "at most 10 years" in html


def test_a_domain_not_in_the_cart_is_reported(client):
    response = client.post("/cart/update/", {"domain_name": "ghost.com", "duration": "2"}, follow=True)
    assert "not in your cart" in response.content.decode()
    assert cart_of(client) == {}


def test_it_only_accepts_post(client):
    assert client.get("/cart/update/").status_code == 405
