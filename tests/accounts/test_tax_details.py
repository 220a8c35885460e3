"""The customer's tax details (/account/tax/): a business VAT number checked for format and check digits, and online
by VIES only where the store enables it; VIES away never blocks anything."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.models import Activity
from tests.storefront.scripted_server import Answer, ScriptedServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(customer) -> Client:
    customer.country = "FR"
    customer.save()
    client = Client()
    client.force_login(customer.user)
    return client


@pytest.fixture
def vies(settings):
    server = ScriptedServer()
    with server.running():
        settings.TAX_VIES_CHECK = True
        settings.TAX_VIES_URL = server.url
        yield server


def test_a_valid_number_is_saved_in_its_compact_form(signed_in, customer):
    response = signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "fr 40 303 265 045"})
    assert response.status_code == 302
    customer.refresh_from_db()
    assert (customer.is_business, customer.tax_number, customer.tax_number_check) == (True, "FR40303265045", "")
    assert Activity.objects.filter(customer=customer, action="tax_details_changed").exists()
    page = signed_in.get("/account/tax/").content.decode()
    assert "Your tax details were saved." in page and "FR40303265045" in page


def test_a_number_with_wrong_check_digits_is_refused_with_what_was_typed_kept(signed_in, customer):
    response = signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "FR41303265045"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "This is not a valid VAT or GST number for France" in page
    assert 'value="FR41303265045"' in page and "checked" in page  # nothing typed is lost
    customer.refresh_from_db()
    assert (customer.is_business, customer.tax_number) == (False, "")


def test_another_countrys_number_is_refused_and_a_business_needs_one(signed_in):
    page = signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "DE136695976"}).content.decode()
    assert "This is not a valid VAT or GST number for France" in page
    page = signed_in.post("/account/tax/", {"is_business": "on", "tax_number": ""}).content.decode()
    assert "Enter your business&#x27;s VAT or GST number." in page


def test_unticking_business_forgets_the_number(signed_in, customer):
    customer.is_business, customer.tax_number = True, "FR40303265045"
    customer.save()
    signed_in.post("/account/tax/", {"tax_number": "FR40303265045"})
    customer.refresh_from_db()
    assert (customer.is_business, customer.tax_number) == (False, "")


def test_without_the_online_check_only_the_format_is_checked(signed_in, customer, settings):
    assert settings.TAX_VIES_CHECK is False  # the suite's setting (production checks: tests/billing/test_tax_vies.py)
    signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "FR40303265045"})
    customer.refresh_from_db()
    assert customer.tax_number_check == ""


def test_vies_confirms_a_number(signed_in, customer, vies):
    vies.script(Answer(body={"valid": True, "userError": "VALID", "countryCode": "FR", "vatNumber": "40303265045"}))
    signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "FR40303265045"})
    customer.refresh_from_db()
    assert (customer.tax_number, customer.tax_number_check) == ("FR40303265045", "valid")
    [seen] = vies.seen
    assert seen.path == "/check-vat-number"
    assert json.loads(seen.body) == {"countryCode": "FR", "vatNumber": "40303265045"}


def test_vies_refusing_a_number_is_said_on_the_form(signed_in, customer, vies):
    vies.script(Answer(body={"valid": False, "userError": "INVALID"}))
    response = signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "FR40303265045"})
    assert "The EU&#x27;s VAT register (VIES) says this number is not registered." in response.content.decode()
    customer.refresh_from_db()
    assert customer.tax_number == ""


@pytest.mark.parametrize(
    "answer",
    [Answer(status=503, body="down"), Answer(body={"valid": False, "userError": "MS_UNAVAILABLE"}), Answer(drop=True)],
)
def test_vies_away_records_not_checked_and_says_so(signed_in, customer, vies, answer):
    vies.script(answer)
    response = signed_in.post("/account/tax/", {"is_business": "on", "tax_number": "FR40303265045"}, follow=True)
    assert "did not answer, so your number is recorded as not checked yet" in response.content.decode()
    customer.refresh_from_db()
    assert (customer.tax_number, customer.tax_number_check) == ("FR40303265045", "not_checked")
    # Not confirmed: no reverse charge on it (VAT is charged, and refunded once VIES confirms the number).
    assert (customer.business_tax_number, customer.tax_number_unconfirmed) == ("", "FR40303265045")
    assert "VAT is charged until your number is confirmed, and refunded then." in response.content.decode()


def test_the_page_needs_a_sign_in():
    assert Client().get("/account/tax/").status_code == 302


def test_the_buyer_reference_and_the_wish_for_e_invoices_are_saved_and_shown(signed_in, customer):
    page = signed_in.get("/account/tax/").content.decode()
    assert 'name="buyer_reference"' in page and 'name="wants_einvoices"' in page
    response = signed_in.post("/account/tax/", {"buyer_reference": " PO-4711 ", "wants_einvoices": "on"})
    assert response.status_code == 302
    customer.refresh_from_db()
    assert (customer.is_business, customer.buyer_reference, customer.wants_einvoices) == (False, "PO-4711", True)
    assert 'value="PO-4711"' in signed_in.get("/account/tax/").content.decode()


def test_the_buyer_reference_is_marked_optional_once(signed_in):
    # The shared field template adds "(optional)" to every field that is not required; a label that says it too
    # read "(optional) (optional)".
    page = signed_in.get("/account/tax/").content.decode()
    label = re.search(r'<label for="id_buyer_reference">(.*?)</label>', page, re.S)
    assert label is not None
    assert label.group(1).count("(optional)") == 1, label.group(1)
