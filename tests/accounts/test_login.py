"""/accounts/login/ and /accounts/logout/: email sign-in, throttling per account and per address."""

from __future__ import annotations

import pytest
from django.contrib.auth import forms as auth_forms
from django.test import override_settings

from accounts import throttle

pytestmark = pytest.mark.django_db

URL = "/accounts/login/"
PASSWORD = "Engine#1843x"


def _login(client, email, password=PASSWORD, **extra):
    return client.post(URL, {"username": email, "password": password, **extra.pop("data", {})}, **extra)


@pytest.fixture
def authenticate_calls(monkeypatch) -> list[str]:
    calls: list[str] = []
    original = auth_forms.authenticate

    def spy(request=None, **credentials):
        calls.append(credentials.get("username", ""))
        return original(request, **credentials)

    monkeypatch.setattr(auth_forms, "authenticate", spy)
    return calls


def test_the_page_asks_for_email_and_links_password_reset_and_signup(client):
    page = client.get(URL, {"next": "/checkout/"}).content.decode()
    assert '<label for="id_username">Email</label>' in page
    assert 'type="email"' in page
    assert 'href="/accounts/password/reset/"' in page and "Forgot your password?" in page
    assert 'href="/accounts/signup/?next=%2Fcheckout%2F"' in page
    assert "csrfmiddlewaretoken" in page


def test_it_signs_in_with_the_email_in_any_case_and_goes_to_next(client, make_customer):
    customer = make_customer("ada@example.org")
    response = _login(client, "  ADA@Example.org ", data={"next": "/checkout/"})
    assert response.status_code == 302
    assert response["Location"] == "/checkout/"
    assert int(client.session["_auth_user_id"]) == customer.user.pk


def test_without_next_it_goes_to_the_orders(client, make_customer):
    make_customer("ada@example.org")
    assert _login(client, "ada@example.org")["Location"] == "/orders/"


def test_the_cart_survives_sign_in(client, make_customer):
    make_customer("ada@example.org")
    session = client.session
    session["cart"] = {"ada.com": {"duration": 2}}
    session.save()
    _login(client, "ada@example.org")
    assert client.session["cart"] == {"ada.com": {"duration": 2}}
    assert "_auth_user_id" in client.session


def test_a_wrong_password_says_so_and_keeps_the_email(client, make_customer):
    make_customer("ada@example.org")
    response = _login(client, "ada@example.org", "Wrong#12345")
    assert response.status_code == 200
    page = response.content.decode()
    assert "That email and password do not match an account." in page
    assert 'value="ada@example.org"' in page
    assert "_auth_user_id" not in client.session


def test_it_locks_an_account_after_five_failures_without_checking_the_password(
    client, make_customer, authenticate_calls
):
    make_customer("ada@example.org")
    for _ in range(throttle.PER_ACCOUNT):
        _login(client, "ada@example.org", "Wrong#12345")
    authenticate_calls.clear()
    response = _login(client, "Ada@example.org", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed sign-in attempts. Try again in 15 minutes." in response.content.decode()
    assert authenticate_calls == []
    assert "_auth_user_id" not in client.session


def test_the_lock_ends_after_the_window(client, make_customer, monkeypatch):
    make_customer("ada@example.org")
    for _ in range(throttle.PER_ACCOUNT):
        _login(client, "ada@example.org", "Wrong#12345")
    now = throttle._now()
    monkeypatch.setattr(throttle, "_now", lambda: now + 14 * 60 + 1)
    assert "Try again in 1 minute." in _login(client, "ada@example.org").content.decode()
    monkeypatch.setattr(throttle, "_now", lambda: now + throttle.WINDOW + 1)
    assert _login(client, "ada@example.org").status_code == 302


def test_an_account_lock_does_not_affect_other_accounts(client, make_customer):
    make_customer("ada@example.org")
    make_customer("grace@example.org")
    for _ in range(throttle.PER_ACCOUNT):
        _login(client, "ada@example.org", "Wrong#12345")
    assert _login(client, "grace@example.org").status_code == 302


def test_a_success_forgives_earlier_failures_of_the_account(client, make_customer):
    make_customer("ada@example.org")
    for _ in range(throttle.PER_ACCOUNT - 1):
        _login(client, "ada@example.org", "Wrong#12345")
    assert _login(client, "ada@example.org").status_code == 302
    client.post("/accounts/logout/")
    for _ in range(throttle.PER_ACCOUNT - 1):
        _login(client, "ada@example.org", "Wrong#12345")
    assert _login(client, "ada@example.org").status_code == 302


def test_it_locks_an_address_after_twenty_failures_on_any_accounts(client, make_customer, authenticate_calls):
    make_customer("ada@example.org")
    for n in range(throttle.PER_ADDRESS):
        _login(client, f"guess{n}@example.org", "Wrong#12345", REMOTE_ADDR="203.0.113.7")
    authenticate_calls.clear()
    locked = _login(client, "ada@example.org", REMOTE_ADDR="203.0.113.7")
    assert locked.status_code == 429
    assert "Too many failed sign-in attempts" in locked.content.decode()
    assert authenticate_calls == []
    assert _login(client, "ada@example.org", REMOTE_ADDR="198.51.100.9").status_code == 302


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_a_trusted_proxy_the_address_comes_from_x_forwarded_for(client, make_customer):
    make_customer("ada@example.org")
    for n in range(throttle.PER_ADDRESS):
        # The client forged the first entry; the proxy appended the real address last.
        _login(
            client,
            f"guess{n}@example.org",
            "Wrong#12345",
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 203.0.113.7",
        )
    assert (
        _login(client, "ada@example.org", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 429
    )
    assert (
        _login(client, "ada@example.org", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.8").status_code == 302
    )


def test_an_unconfirmed_signup_cannot_sign_in_and_is_told_why(client, make_customer):
    customer = make_customer("ada@example.org", customer_id=None)
    customer.customer_id = None
    customer.save()
    customer.user.is_active = False
    customer.user.save()
    response = _login(client, "ada@example.org")
    assert response.status_code == 200
    assert "Your account is waiting for confirmation from the domain registry." in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_logout_is_a_post_and_goes_home(client, make_customer):
    make_customer("ada@example.org")
    _login(client, "ada@example.org")
    assert client.get("/accounts/logout/").status_code == 405
    assert "_auth_user_id" in client.session
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert "_auth_user_id" not in client.session
