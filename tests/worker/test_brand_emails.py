"""Emails carry the brand: the store's name as the sender's display name, and a signature with the support
contact and the legal entity."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import override_settings

from domains.checkout.emails import checkout_email_queue
from domains.models import Registration
from storefront.apps import _sync_site

pytestmark = pytest.mark.django_db

ACME = {
    "STORE_NAME": "Acme Domains",
    "STORE_LEGAL_NAME": "Acme Domains Ltd",
    "STORE_LEGAL_ADDRESS": "1 Main Street\nSpringfield",
    "SUPPORT_EMAIL": "help@acme.example",
}


@override_settings(**ACME)
def test_the_checkout_email_is_sent_and_signed_by_the_store(offline_customer):
    checkout_id = uuid.uuid4()
    Registration.objects.create(
        customer=offline_customer,
        domain_name="signed.com",
        duration=1,
        status=Registration.Status.REGISTERED,
        checkout_id=checkout_id,
    )
    checkout_email_queue(checkout_id=checkout_id)

    (message,) = mail.outbox
    assert message.from_email == "Acme Domains <noreply@localhost>"
    assert message.body.rstrip().endswith(
        "--\nAcme Domains\nSupport: help@acme.example\nAcme Domains Ltd\n1 Main Street\nSpringfield"
    )
    html = message.alternatives[0][0]
    assert '<a href="mailto:help@acme.example">help@acme.example</a>' in html
    assert "Acme Domains Ltd<br>1 Main Street<br>Springfield" in html
    assert "Domain Store" not in message.body + html


@override_settings(DEFAULT_FROM_EMAIL="Acme Billing <billing@acme.example>", STORE_NAME="Acme Domains")
def test_a_sender_with_its_own_name_is_kept(offline_customer):
    checkout_id = uuid.uuid4()
    Registration.objects.create(
        customer=offline_customer,
        domain_name="own.com",
        duration=1,
        status=Registration.Status.REGISTERED,
        checkout_id=checkout_id,
    )
    checkout_email_queue(checkout_id=checkout_id)
    assert mail.outbox[0].from_email == "Acme Billing <billing@acme.example>"


@override_settings(**ACME)
def test_account_emails_carry_the_store_name(client):
    _sync_site()  # what the release step's migrate does with these settings
    get_user_model().objects.create_user("ada@example.org", "ada@example.org", "Engine#1843x")
    client.post("/accounts/password/reset/", {"email": "ada@example.org"})

    (message,) = mail.outbox
    assert message.subject == "[Acme Domains] Password Reset Email"
    assert message.from_email == "Acme Domains <noreply@localhost>"
    assert re.search(r"Acme Domains", message.body)
    assert "Domain Store" not in message.body
