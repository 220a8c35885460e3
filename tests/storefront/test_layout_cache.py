"""The layout's parts are drawn once per process and kept (base.html's {% cache %}, settings' template_fragments):
what each visitor sees must still be their own, page after page. Each test starts with nothing kept
(tests/conftest.py), so its later pages are drawn from what its first ones kept."""

import re

import pytest
from django.test import override_settings


def _footer(body: str) -> str:
    return body[body.index('<footer class="site-footer">') :]


def _csrf_tokens(body: str) -> list[str]:
    return re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)


@pytest.mark.django_db
def test_two_customers_each_see_their_own_address_and_links(client, django_user_model):
    first = django_user_model.objects.create_user("ann@example.com", "ann@example.com", "x")
    second = django_user_model.objects.create_user("bob@example.com", "bob@example.com", "x")
    client.force_login(first)
    assert "ann@example.com" in _footer(client.get("/").content.decode())
    client.force_login(second)
    footer = _footer(client.get("/").content.decode())
    assert "bob@example.com" in footer
    assert "ann@example.com" not in footer
    client.logout()
    body = client.get("/").content.decode()
    assert "bob@example.com" not in body
    assert "Sign in" in body and "Sign out" not in body


@pytest.mark.django_db
def test_every_form_of_the_layout_carries_this_visitors_token_and_address(client, django_user_model, fake_priced):
    client.force_login(django_user_model.objects.create_user("ann@example.com", "ann@example.com", "x"))
    first = client.get("/search/?q=kestrel").content.decode()
    second = client.get("/search/?q=redwing").content.decode()
    # Sign out and the language switcher: each page has its own masked token, never one kept from another page.
    assert len(_csrf_tokens(first)) >= 2
    assert set(_csrf_tokens(first)).isdisjoint(_csrf_tokens(second))
    assert 'name="next" value="/search/?q=redwing"' in second
    assert 'value="redwing"' in second and "kestrel" not in second


@pytest.mark.django_db
def test_the_cart_count_and_the_current_page_follow_the_visitor(client, django_user_model):
    assert 'id="cart-count">0<' in client.get("/").content.decode()
    session = client.session
    line = {"duration": 1, "currency": "USD", "price": "12.99"}
    session["cart"] = {"one.com": line}
    session.save()
    assert 'id="cart-count">1<' in client.get("/").content.decode()
    client.force_login(django_user_model.objects.create_user("ann@example.com", "ann@example.com", "x"))
    home = client.get("/").content.decode()
    assert 'aria-current="page">Account<' not in home


@pytest.mark.django_db
def test_each_language_and_brand_is_drawn_in_its_own_words(client):
    english = client.get("/", headers={"accept-language": "en"}).content.decode()
    spanish = client.get("/", headers={"accept-language": "es"}).content.decode()
    assert "Terms of service" in english and "Terms of service" not in spanish
    assert '<html lang="es">' in spanish
    assert 'lang="es" selected' in spanish and 'lang="en" selected' in english
    with override_settings(STORE_NAME="Bluebird Domains", SUPPORT_EMAIL="help@bluebird.example"):
        branded = client.get("/", headers={"accept-language": "en"}).content.decode()
    assert '<span class="brand-name">Bluebird Domains</span>' in branded
    assert "mailto:help@bluebird.example" in branded
    assert "Bluebird Domains" not in client.get("/", headers={"accept-language": "en"}).content.decode()


@pytest.mark.django_db
@override_settings(RESELLER_SANDBOX=False, RESELLER_API_KEY="live_" + "a" * 12)
def test_the_test_banner_follows_the_key(client):
    assert "Test storefront" not in client.get("/").content.decode()
    with override_settings(RESELLER_API_KEY="nk_test_" + "a" * 12):
        assert "using a sandbox key" in client.get("/").content.decode()
