"""/accounts/panel/: a fresh auto-login token, an immediate redirect, and the token kept nowhere."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection

from tests.limits import TEST_WINDOW

URL = "/accounts/panel/"


def _token(response) -> str:
    query = parse_qs(urlparse(response["Location"]).query)
    return query["token"][0]


def _everything_stored() -> str:
    """Every row of every table, and every cache entry, as one text to search."""
    texts: list[str] = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT * FROM "{table}"')  # table names from the database itself
            texts.extend(repr(row) for row in cursor.fetchall())
    texts.extend(repr(value) for value in getattr(cache, "_cache", {}).values())
    return "\n".join(texts)


@pytest.mark.django_db
def test_it_redirects_at_once_to_the_panel_with_a_fresh_token(client, customer, settings):
    client.force_login(customer.user)
    first = client.post(URL)
    second = client.post(URL)
    assert first.status_code == 302
    assert first["Location"].startswith(f"{settings.RESELLER_PANEL_URL}/auto-login?token=")
    assert len(_token(first)) >= 32
    assert _token(first) != _token(second)
    assert "no-store" in first["Cache-Control"]


@pytest.mark.django_db
def test_the_link_signs_the_customer_in_at_the_panel_once(client, sandbox_seeded, customer):
    # `customer` is signed up at the sandbox here (over HTTP): the panel's link is followed to the sandbox's panel.
    client.force_login(customer.user)
    location = client.post(URL)["Location"]
    panel = requests.get(location, timeout=10)
    assert panel.status_code == 200
    assert customer.email in panel.text
    assert requests.get(location, timeout=10).status_code != 200  # works once


@pytest.mark.django_db
def test_a_provider_failure_stays_on_the_site_with_a_message(client, customer, fake_gateway):
    client.force_login(customer.user)
    with fake_gateway.fault(error_rate=1.0, scope="customers"):
        response = client.post(URL, headers={"Referer": "http://testserver/orders/7/"})
    assert response["Location"] == "/orders/7/"
    assert "We could not open your control panel" in client.get("/account/").content.decode()


@pytest.mark.django_db
def test_the_token_is_in_no_table_no_cache_and_no_log(client, customer, caplog):
    caplog.set_level(logging.DEBUG)
    client.force_login(customer.user)
    token = _token(client.post(URL))
    assert token not in caplog.text
    assert all(token not in str(session.get_decoded()) for session in Session.objects.all())
    assert token not in _everything_stored()


@pytest.mark.django_db
def test_a_provider_error_shows_a_message_and_stays_on_the_site(client, seeded, make_local_customer):
    stranger = make_local_customer("unknown-at-provider@example.org")  # not a customer of the provider
    client.force_login(stranger.user)
    response = client.post(URL, headers={"Referer": "http://testserver/orders/42/"})
    assert response.status_code == 302
    assert response["Location"] == "/orders/42/"
    page = client.get("/account/").content.decode()  # any page shows the queued message
    assert "We could not open your control panel. The domain service has no record of this." in page
    assert "Invalid customer email" not in page  # the provider's text is for staff


@pytest.mark.django_db
def test_after_an_error_a_foreign_referer_is_not_followed(client, seeded, make_local_customer):
    stranger = make_local_customer("unknown-at-provider@example.org")
    client.force_login(stranger.user)
    response = client.post(URL, headers={"Referer": "https://evil.example/"})
    assert response["Location"] == "/orders/"


@pytest.mark.django_db
def test_anonymous_is_sent_to_sign_in_without_a_provider_call(client, provider_calls):
    response = client.post(URL, headers={"Referer": "http://testserver/orders/42/"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/orders/42/"
    assert provider_calls == []


@pytest.mark.django_db
def test_the_button_partial_posts_to_the_panel_with_csrf(rf, make_local_customer):
    from django.template.loader import render_to_string

    request = rf.get("/orders/1/")
    request.user = make_local_customer().user
    html = render_to_string("accounts/_panel_button.html", request=request)
    assert 'method="post" action="/accounts/panel/"' in html
    assert "csrfmiddlewaretoken" in html
    assert "Open control panel" in html


@pytest.mark.django_db
def test_the_button_opens_the_panel_in_a_new_tab_and_says_so(rf, make_local_customer):
    from django.template.loader import render_to_string

    request = rf.get("/orders/1/")
    request.user = make_local_customer().user
    html = render_to_string("accounts/_panel_button.html", request=request)
    # The storefront stays open behind the panel; noopener keeps the panel's page from scripting this tab.
    assert 'target="_blank"' in html and 'rel="noopener"' in html
    assert "opens in a new tab" in html


@pytest.mark.django_db
def test_hand_offs_are_rate_limited_per_customer(client, customer, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "panel": (1, TEST_WINDOW)}
    client.force_login(customer.user)
    assert client.post(URL).status_code == 302
    response = client.post(URL)
    assert response.status_code == 429
    assert "Please wait" in response.content.decode()
    assert "token=" not in response.get("Location", "")


@pytest.mark.django_db
@pytest.mark.parametrize("referer", ["http://testserver//evil.example/x", "http://testserver/\\evil.example/x"])
def test_after_an_error_a_double_slash_referer_stays_on_our_site(client, seeded, make_local_customer, referer):
    stranger = make_local_customer("unknown-at-provider@example.org")
    client.force_login(stranger.user)
    response = client.post(URL, headers={"Referer": referer})
    assert response["Location"] == "/evil.example/x"
