"""/accounts/password/change/ (allauth, our template): customers change their password, within the provider's rules."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

URL = "/accounts/password/change/"


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_it_changes_the_password_and_keeps_the_customer_signed_in(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    page = client.get(URL).content.decode()
    assert "Change your password" in page and '<label for="id_oldpassword">' in page
    response = client.post(
        URL, {"oldpassword": "Engine#1843x", "password1": "Brand#New123", "password2": "Brand#New123"}
    )
    assert response["Location"] == "/accounts/password/change/"
    assert "Password successfully changed." in client.get(response["Location"]).content.decode()
    customer.user.refresh_from_db()
    assert customer.user.check_password("Brand#New123")
    assert "_auth_user_id" in client.session


def test_the_new_password_must_follow_the_providers_rules(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    response = client.post(
        URL, {"oldpassword": "Engine#1843x", "password1": "Brand-New-123", "password2": "Brand-New-123"}
    )
    assert response.status_code == 200
    assert "Use only letters, digits and these symbols" in response.content.decode()
    customer.user.refresh_from_db()
    assert customer.user.check_password("Engine#1843x")


def test_a_wrong_old_password_is_refused(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    response = client.post(
        URL, {"oldpassword": "Wrong#12345", "password1": "Brand#New123", "password2": "Brand#New123"}
    )
    assert response.status_code == 200
    assert "Please type your current password." in response.content.decode()
