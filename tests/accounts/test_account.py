"""/account/: the customer's contact (as written and as on the domains' records, with the way to change it), the way to
change the password; signing out."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

URL = "/account/"


def test_it_shows_the_contact_in_both_forms_and_links_to_change_it(client, make_local_customer):
    customer = make_local_customer(
        "ada@example.org", name="Ada Lovelace", company="Analytical Engines Ltd", city="Zürich"
    )
    client.force_login(customer.user)
    response = client.get(URL)
    assert response.status_code == 200
    page = " ".join(response.content.decode().split())
    for shown in ("Ada Lovelace", "Analytical Engines Ltd", "ada@example.org", "12 St James&#x27;s Square"):
        assert shown in page
    assert "United Kingdom" in page and "+44 2079460000" in page
    assert "registrant contact" in page
    assert "On your domains' records:" in page and "Zürich" in page
    assert "Ada Lovelace, Analytical Engines Ltd, 12 St James&#x27;s Square, Zurich</span>" in page
    # Changed on its own page, not here.
    assert 'name="name"' not in page and 'href="/account/contact/"' in page


def test_it_links_to_change_the_password(client, make_local_customer):
    client.force_login(make_local_customer().user)
    assert 'href="/accounts/password/change/"' in client.get(URL).content.decode()


def test_it_shows_no_placeholder_sections(client, make_local_customer):
    client.force_login(make_local_customer().user)
    page = client.get(URL).content.decode()
    assert "coming" not in page.lower()
    # The Billing section is the real one: it leads to the receipts and credit notes.
    assert 'href="/account/billing/"' in page
    assert client.get("/account/billing/").status_code == 200


def test_the_security_section_offers_two_factor_email_export_and_deletion(client, make_local_customer):
    client.force_login(make_local_customer().user)
    page = client.get(URL).content.decode()
    assert "Two-factor sign-in: <strong>off</strong>" in page
    for link in (
        'href="/accounts/2fa/"',
        'href="/accounts/email/"',
        'href="/accounts/export/"',
        'href="/accounts/delete/"',
    ):
        assert link in page


def test_a_staff_sign_in_without_a_customer_record_gets_the_page(client):
    staff = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#12345")
    client.force_login(staff)
    page = client.get(URL).content.decode()
    assert "staff@example.org" in page and "no customer contact" in page


def test_the_header_links_to_the_account_page_when_signed_in(client, make_local_customer):
    assert 'href="/account/"' not in client.get("/").content.decode()
    client.force_login(make_local_customer().user)
    assert 'href="/account/"' in client.get("/").content.decode()


def test_signing_out_says_so_on_the_home_page(client, make_local_customer):
    client.force_login(make_local_customer().user)
    response = client.post("/accounts/logout/", follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert "You are signed out." in response.content.decode()
    assert "_auth_user_id" not in client.session
