"""Names as customers write them: kept in any script, sent to the provider in English letters (anyascii), shown before
it is sent ("On your domains' records") and correctable, every provider rule held for what is sent."""

from __future__ import annotations

from typing import cast

import pytest
from django.core import mail

from accounts.forms import ContactForm
from accounts.models import Customer
from accounts.signup.spelling import ascii_form
from storefront.gateway import gateway
from tests.fakes.gateway import FakeGateway

from .conftest import VALID

CONTACT = {key: value for key, value in VALID.items() if key not in ("email", "password", "password2")}


@pytest.mark.parametrize(
    ("written", "sent"),
    [
        ("José Muñoz", "Jose Munoz"),
        ("Zoë", "Zoe"),
        ("Zürich", "Zurich"),
        ("Hauptstraße 1", "Hauptstrasse 1"),
        ("Łódź", "Lodz"),
        ("Москва", "Moskva"),
        ("北京", "BeiJing"),
        ("O\u2019Brien  &\u00a0Sons", "O'Brien & Sons"),
        ("Ada Lovelace", "Ada Lovelace"),
    ],
)
def test_ascii_form_spells_any_script_in_english_letters(written, sent):
    assert ascii_form(written) == sent


def _form(**changes) -> ContactForm:
    form = ContactForm({**CONTACT, **changes})
    form.is_valid()
    return form


@pytest.mark.django_db
def test_the_written_form_is_kept_and_the_provider_gets_its_english_spelling():
    form = _form(name="José Muñoz", company="Société Générale", address="Calle Mayor 5, 3º", city="Zürich")
    assert form.errors == {}
    details = form.details()
    assert (details["name"], details["name_ascii"]) == ("José Muñoz", "Jose Munoz")
    assert (details["company"], details["company_ascii"]) == ("Société Générale", "Societe Generale")
    assert (details["address_ascii"], details["city_ascii"]) == ("Calle Mayor 5, 3o", "Zurich")


@pytest.mark.django_db
def test_the_customer_may_correct_the_spelling_and_an_empty_company_stays_empty():
    form = _form(name="Jürgen Groß", name_ascii="Juergen Gross", company="", company_ascii="Ignored Ltd")
    assert form.errors == {}
    assert (form.details()["name_ascii"], form.details()["company_ascii"]) == ("Juergen Gross", "")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "code"),
    [
        ({"name_ascii": "Jürgen"}, "name_ascii", "non_ascii"),
        ({"city_ascii": "c" * 256}, "city_ascii", "max_length"),
        ({"city": "\u5317" * 200}, "city_ascii", "spelling_too_long"),
        ({"name": "\u200b"}, "name_ascii", "spelling_needed"),  # nothing to spell: the customer must write it
        ({"address": "Calle\x00 Mayor"}, "address", "unprintable"),
    ],
)
def test_what_is_sent_keeps_the_providers_rules(changes, field, code):
    form = _form(**changes)
    assert code in [error.code for error in form.errors.as_data().get(field, [])]


@pytest.mark.django_db
def test_the_preview_shows_what_the_records_will_read_before_anything_is_valid():
    form = ContactForm(
        {"name": "José Muñoz", "address": "Plaza España 1", "city": "Zaragoza", "city_ascii": "Saragossa"}
    )
    assert form.records_preview() == ["Jose Munoz", "Plaza Espana 1", "Saragossa"]


@pytest.mark.django_db
def test_the_preview_fragment_follows_what_is_typed(client):
    response = client.get("/accounts/signup/spelling/", {"name": "Zoë Brontë", "city": "Zürich"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "On your domains' records:" in page and "Zoe Bronte, Zurich" in page
    empty = client.get("/accounts/signup/spelling/").content.decode()
    assert "Fill in your name and address" in empty


@pytest.mark.django_db
def test_the_signup_page_shows_the_spelling_before_it_is_sent(client):
    page = client.post("/accounts/signup/", {**VALID, "name": "José Muñoz", "password2": "other"}).content.decode()
    assert "On your domains' records:" in page and "Jose Munoz" in page
    assert 'value="José Muñoz"' in page  # what was typed stays as typed


@pytest.mark.django_db
def test_jose_signs_up_with_his_name_and_the_provider_gets_its_english_spelling(client, seeded):
    spain = {"country": "ES", "state": "Andalucia", "country_code": "34", "phone": "612345678"}
    written = {"name": "José Muñoz", "address": "Calle de Alcalá 7", "city": "Cádiz"}
    response = client.post("/accounts/signup/", {**VALID, **spain, **written})
    assert response.status_code == 302, response.context["form"].errors
    customer = Customer.objects.get()
    assert (customer.name, customer.address, customer.city) == ("José Muñoz", "Calle de Alcalá 7", "Cádiz")
    assert (customer.name_ascii, customer.address_ascii, customer.city_ascii) == (
        "Jose Munoz", "Calle de Alcala 7", "Cadiz",
    )  # fmt: skip
    (message,) = [m for m in mail.outbox if "confirm" in m.subject.lower()]
    link = str(message.body).split("/accounts/confirm-email/")[1].split()[0]
    client.post(f"/accounts/confirm-email/{link}")
    (at_provider,) = cast(FakeGateway, gateway()).customers(VALID["email"])
    assert at_provider.details["name"] == "Jose Munoz"
    assert (at_provider.details["address"], at_provider.details["city"]) == ("Calle de Alcala 7", "Cadiz")
    assert all(value.isascii() for value in at_provider.details.values())
