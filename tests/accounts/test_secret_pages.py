"""Pages that show a secret (the authenticator's setup key, the recovery codes) are never kept by a cache: a shared
computer's browser history or a proxy would hand them to the next person."""

from __future__ import annotations

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

from tests.accounts.conftest import VALID
from tests.accounts.test_login import totp_code

pytestmark = pytest.mark.django_db


def _no_store(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


def _open(client, url: str, **reauthentication: str):
    """The page, after the password (and code) it asks for again."""
    asked = client.get(url)
    if asked.status_code == 302 and asked["Location"].startswith("/accounts/reauthenticate/"):
        client.post(asked["Location"], {"password": VALID["password"], **reauthentication})
        return client.get(url)
    return asked


def test_the_authenticator_setup_page_is_not_stored(client, make_local_customer):
    make_local_customer("ada@example.org")
    client.post("/accounts/login/", {"login": "ada@example.org", "password": VALID["password"]})
    page = _open(client, "/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    assert 'name="code"' in page.content.decode()  # the setup form, with its key
    assert _no_store(page)


def test_the_recovery_code_pages_are_not_stored(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    secret = generate_totp_secret()
    TOTP.activate(customer.user, secret)
    codes = RecoveryCodes.activate(customer.user).generate_codes()
    client.post("/accounts/login/", {"login": "ada@example.org", "password": VALID["password"]})
    client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)})
    shown = _open(client, "/accounts/2fa/recovery-codes/", code=totp_code(secret, offset=1))
    assert shown.status_code == 200
    assert codes[0] in shown.content.decode()
    assert _no_store(shown)
    downloaded = client.get("/accounts/2fa/recovery-codes/download/")
    assert downloaded.status_code == 200 and codes[0] in downloaded.content.decode()
    assert _no_store(downloaded)
    assert _no_store(client.get("/accounts/2fa/recovery-codes/generate/"))
