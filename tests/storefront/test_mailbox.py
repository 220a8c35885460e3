"""/mailbox/: in development without a mail server, the emails the storefront sent, with their links."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import EmailMessage, send_mail

from storefront.background.mailbox import BACKEND
from tests.accounts.conftest import VALID
from tests.settings_env import settings_under

pytestmark = pytest.mark.django_db


def test_it_is_not_there_with_a_real_mail_backend(client, settings):
    assert settings.EMAIL_BACKEND != BACKEND
    send_mail("Hello", "A body", None, ["ada@example.org"])
    assert client.get("/mailbox/").status_code == 404
    assert "Emails sent" not in client.get("/").content.decode()


def test_it_lists_what_was_sent_newest_first_and_the_banner_links_it(client, settings):
    settings.EMAIL_BACKEND = BACKEND
    send_mail("First", "Body one", None, ["ada@example.org"])
    send_mail("Second", "See https://shop.example/x", None, ["grace@example.org"])
    page = client.get("/mailbox/").content.decode()
    assert page.index("Second") < page.index("First")
    assert '<a href="https://shop.example/x"' in page
    assert 'href="/mailbox/"' in client.get("/").content.decode()


def test_it_says_what_was_attached(client, settings):
    settings.EMAIL_BACKEND = BACKEND
    message = EmailMessage("Your receipt 3", "Attached.", None, ["ada@example.org"])
    message.attach("receipt-3.pdf", b"%PDF-" + b"x" * 2043, "application/pdf")
    message.send()
    assert "Attached: receipt-3.pdf (2.0\xa0KB)" in client.get("/mailbox/").content.decode()


def test_the_signup_confirmation_arrives_there_with_its_link(client, settings):
    settings.EMAIL_BACKEND = BACKEND
    client.post("/accounts/signup/", VALID)
    page = client.get("/mailbox/").content.decode()
    assert "ada@example.org" in page
    assert "/accounts/confirm-email/" in page


def test_the_development_default_is_the_mailbox_and_production_refuses_it():
    # Nothing configured but what each says: no mail server anywhere.
    nothing = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "storefront.settings"}
    assert settings_under({**nothing, "DJANGO_DEBUG": "true"})["EMAIL_BACKEND"] == BACKEND
    with pytest.raises(ImproperlyConfigured) as production:
        settings_under({**nothing, "DJANGO_SECRET_KEY": "x", "RESELLER_SANDBOX": "true"})
    assert "EMAIL_URL must name a real mail backend" in str(production.value)


def test_it_answers_only_to_a_browser_on_this_machine(client, settings):
    """`bin/run` may be reachable from the network: the mailbox shows password-reset links, so only this machine
    sees it, and not through a proxy (which would make every visitor a loopback connection)."""
    settings.EMAIL_BACKEND = BACKEND
    send_mail("Reset your password", "https://shop.example/reset/secret", None, ["ada@example.org"])
    assert client.get("/mailbox/").status_code == 200
    assert client.get("/mailbox/", REMOTE_ADDR="::1").status_code == 200
    for elsewhere in ({"REMOTE_ADDR": "192.0.2.7"}, {"REMOTE_ADDR": "10.0.0.3"}):
        response = client.get("/mailbox/", **elsewhere)
        assert response.status_code == 404
        assert "secret" not in response.content.decode()
        assert 'href="/mailbox/"' not in client.get("/", **elsewhere).content.decode()
    proxied = client.get("/mailbox/", HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert proxied.status_code == 404
