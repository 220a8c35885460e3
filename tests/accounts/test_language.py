"""The customer's language: chosen at signup or with the language form, kept until they choose another. A visit
from a browser in another language shows their chosen one and never changes what their later emails are in."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.translation import get_language

from accounts.language import customer_language
from accounts.models import Customer
from tests.accounts.conftest import VALID

pytestmark = pytest.mark.django_db


def test_signup_keeps_the_language_the_customer_signed_up_in(client):
    client.post(reverse("signup"), VALID, HTTP_ACCEPT_LANGUAGE="es")
    assert Customer.objects.get(user__email="ada@example.org").language == "es"


def test_a_visit_from_a_browser_in_another_language_changes_nothing(client, customer):
    customer.language = "es"
    customer.save(update_fields=["language"])
    client.force_login(customer.user)

    response = client.get(reverse("account"), HTTP_ACCEPT_LANGUAGE="en")

    assert response["Content-Language"] == "es"  # the page is in the customer's language
    customer.refresh_from_db()
    assert customer.language == "es"
    with customer_language(customer):  # so the worker's later emails are too
        assert get_language() == "es"


def test_the_language_form_stores_a_signed_in_customers_choice(client, customer):
    customer.language = "es"
    customer.save(update_fields=["language"])
    client.force_login(customer.user)

    client.post(reverse("set_language"), {"language": "en", "next": "/account/"}, HTTP_ACCEPT_LANGUAGE="es")
    customer.refresh_from_db()
    assert customer.language == "en"
    response = client.get(reverse("account"), HTTP_ACCEPT_LANGUAGE="es")
    assert response["Content-Language"] == "en"


def test_a_language_the_site_does_not_speak_is_not_stored(client, customer):
    customer.language = "es"
    customer.save(update_fields=["language"])
    client.force_login(customer.user)
    client.post(reverse("set_language"), {"language": "xx", "next": "/account/"})
    customer.refresh_from_db()
    assert customer.language == "es"


def test_signing_in_shows_the_stored_language_whatever_the_browser_says(client, customer):
    customer.language = "es"
    customer.save(update_fields=["language"])
    client.force_login(customer.user)
    assert client.get(reverse("orders"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")["Content-Language"] == "es"
