"""`/cart/remove/` (POST domain_name)."""

from __future__ import annotations

import pytest

from tests.domains.conftest import cart_of, line, put_in_cart

pytestmark = pytest.mark.django_db


def test_it_removes_the_line(client):
    put_in_cart(client, line("a.com"), line("b.com"))
    response = client.post("/cart/remove/", {"domain_name": "a.com"}, follow=True)
    assert list(cart_of(client)) == ["b.com"]
    assert "a.com was removed from your cart." in response.content.decode()


def test_htmx_gets_the_cart_fragment_and_the_new_count(client):
    put_in_cart(client, line("a.com"), line("b.com"))
    response = client.post("/cart/remove/", {"domain_name": "b.com"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert '<section id="cart"' in html
    assert '<span class="badge" id="cart-count" hx-swap-oob="true">1</span>' in html
    assert "b.com was removed" in html


def test_removing_the_last_line_leaves_an_empty_cart(client):
    put_in_cart(client, line("a.com"))
    client.post("/cart/remove/", {"domain_name": "A.com "})
    assert cart_of(client) == {}
    assert "Your cart is empty" in client.get("/cart/").content.decode()


def test_removing_something_not_in_the_cart_changes_nothing(client):
    put_in_cart(client, line("a.com"))
    response = client.post("/cart/remove/", {"domain_name": "ghost.com"})
    assert response.status_code == 302
    assert list(cart_of(client)) == ["a.com"]


def test_it_only_accepts_post(client):
    assert client.get("/cart/remove/").status_code == 405
