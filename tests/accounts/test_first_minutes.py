"""The first minutes after signup, in the store's words: the verification email, the confirmation page, one banner,
and the customer back where they were going; the activity log tells a new account's confirmation as no change."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.core import mail

from accounts.models import Activity
from tests.accounts.conftest import VALID

pytestmark = pytest.mark.django_db


def _signup(client, language: str = "en", **changes):
    return client.post("/accounts/signup/", {**VALID, **changes}, HTTP_ACCEPT_LANGUAGE=language)


def _message():
    (message,) = [m for m in mail.outbox if m.to == [VALID["email"]]]
    return message


def _link() -> str:
    found = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", str(_message().body))
    assert found
    return found.group(1)


def test_the_verification_email_is_the_stores_own(client, seeded, settings):
    _signup(client)
    message = _message()
    assert message.subject == f"[{settings.STORE_NAME}] Confirm your email address"
    assert f"Welcome to {settings.STORE_NAME}!" in message.body
    assert "Open this link to confirm your email address, ada@example.org." in message.body
    assert "has given your email address" not in message.body and "go to" not in message.body
    assert "Hello from" not in message.body and "Thank you for using" not in message.body


def test_the_verification_email_speaks_the_customers_language(client, seeded):
    _signup(client, language="es")
    message = _message()
    assert "Confirm your email address" not in message.subject
    assert "Abre este enlace para confirmar tu dirección de email" in message.body
    assert "Open this link" not in message.body and "usted" not in message.body.lower()


def test_the_confirmation_page_names_the_address_once(client, seeded):
    _signup(client)
    page = client.get(_link()).content.decode()
    card = page[page.index('<div class="card">') :]
    card = card[: card.index("</form>")]
    assert card.count("ada@example.org") == 1
    assert "for user" not in page
    assert "Confirm <strong>ada@example.org</strong> as the email address of your account." in card


def test_confirming_lands_at_the_checkout_with_the_cart_under_one_banner(client, seeded):
    session = client.session
    session["cart"] = {"ada-lovelace.com": {"duration": 1}}
    session.save()
    signed_up = _signup(client)  # from the header: no `next`, but a cart in this browser
    assert list(get_messages(signed_up.wsgi_request)) == []  # the page after it says it all
    response = client.post(_link())
    assert response["Location"] == "/checkout/"
    banners = [str(message) for message in get_messages(response.wsgi_request)]
    assert banners == ["Your email is confirmed and your account is ready to buy domains."]


def test_confirming_without_a_cart_lands_on_the_search_not_an_empty_checkout(client, seeded):
    _signup(client)
    assert client.post(_link())["Location"] == "/"


def test_a_new_accounts_confirmation_is_not_logged_as_an_email_change(client, seeded):
    _signup(client)
    client.post(_link())
    assert not Activity.objects.filter(action="email_changed").exists()
    assert Activity.objects.filter(action="signup").exists()


def test_the_sign_in_banner_says_tu_in_spanish(client, make_local_customer):
    customer = make_local_customer("ada@example.org", language="es")
    response = client.post(
        "/accounts/login/", {"login": "ada@example.org", "password": VALID["password"]}, HTTP_ACCEPT_LANGUAGE="es"
    )
    banners = [str(message) for message in get_messages(response.wsgi_request)]
    assert banners == ["Has iniciado sesión."], customer


def test_allauths_other_emails_end_with_the_stores_signature_not_its_greeting(client, make_local_customer, settings):
    make_local_customer("ada@example.org")
    client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    (message,) = mail.outbox
    assert "Hello from" not in message.body and "Thank you for using" not in message.body
    assert f"--\n{settings.STORE_NAME}" in message.body
