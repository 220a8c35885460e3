"""Password reset by email: the link arrives, works once, and the new password follows the provider's rules."""

from __future__ import annotations

import re

import pytest
from django.core import mail

pytestmark = pytest.mark.django_db


def _request_link(client, email="ada@example.org") -> str:
    response = client.post("/accounts/password/reset/", {"email": email})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/reset/done/"
    assert len(mail.outbox) == 1
    found = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", str(mail.outbox[0].body))
    assert found, mail.outbox[0].body
    return found.group(1)


def test_the_form_is_the_sites_page(client):
    page = client.get("/accounts/password/reset/").content.decode()
    assert "Reset your password" in page
    assert '<label for="id_email">' in page
    assert "csrfmiddlewaretoken" in page


def test_it_emails_a_link_that_sets_a_new_password(client, make_local_customer):
    make_local_customer("ada@example.org")
    link = _request_link(client)
    assert mail.outbox[0].subject == "[Domain Store] Password Reset Email"
    assert mail.outbox[0].to == ["ada@example.org"]
    form_url = client.get(link)["Location"]  # allauth swaps the key for a session marker
    page = client.get(form_url).content.decode()
    assert "Choose a new password" in page
    done = client.post(form_url, {"password1": "Fresh#Start42", "password2": "Fresh#Start42"})
    assert done["Location"] == "/accounts/password/reset/key/done/"
    signed_in = client.post("/accounts/login/", {"login": "ada@example.org", "password": "Fresh#Start42"})
    assert signed_in.status_code == 302


def test_a_used_link_is_refused(client, make_local_customer):
    make_local_customer("ada@example.org")
    link = _request_link(client)
    form_url = client.get(link)["Location"]
    client.post(form_url, {"password1": "Fresh#Start42", "password2": "Fresh#Start42"})
    assert "This link is no longer valid" in client.get(link, follow=True).content.decode()


def test_the_new_password_must_follow_the_providers_rules(client, make_local_customer):
    make_local_customer("ada@example.org")
    form_url = client.get(_request_link(client))["Location"]
    response = client.post(form_url, {"password1": "freshstart", "password2": "freshstart"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Include at least one uppercase letter (A-Z)." in page
    assert "Include at least one digit (0-9)." in page


def test_an_unknown_email_gets_the_same_answer_and_no_mail(client):
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response["Location"] == "/accounts/password/reset/done/"
    assert mail.outbox == []
