"""allauth's two-factor pages in the store's own words: the sign-in code step names recovery codes and offers a
security key only to someone who has registered one; every security page leads back to the account; Spanish says
"verificación en dos pasos" (the store's term, not allauth's "autenticación de doble factor") and "tú"."""

from __future__ import annotations

from unittest import mock

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.urls import reverse
from django.utils import translation

from accounts.signup.adapter import MFAAdapter
from tests.accounts.conftest import VALID
from tests.accounts.test_login import totp_code

pytestmark = pytest.mark.django_db

EMAIL = "ada@example.org"


@pytest.fixture
def two_factor(make_local_customer):
    customer = make_local_customer(EMAIL)
    secret = generate_totp_secret()
    TOTP.activate(customer.user, secret)
    RecoveryCodes.activate(customer.user)
    return customer, secret


def _code_step(client, language: str = "en") -> str:
    client.cookies["django_language"] = language
    response = client.post("/accounts/login/", {"login": EMAIL, "password": VALID["password"]})
    assert response.status_code == 302 and response["Location"] == "/accounts/2fa/authenticate/"
    page = client.get("/accounts/2fa/authenticate/", headers={"Accept-Language": language})
    assert page.status_code == 200
    return page.content.decode()


def test_the_code_step_names_recovery_codes_and_offers_no_security_key_to_someone_without_one(client, two_factor):
    body = _code_step(client)

    assert "Type one of your recovery codes in the same box" in body
    assert "security key" not in body.lower()
    assert "webauthn" not in body  # neither the button nor its scripts
    assert 'name="code"' in body and 'autocomplete="one-time-code"' in body


def test_a_recovery_code_typed_in_the_code_box_signs_in(client, two_factor):
    customer, _secret = two_factor
    recovery = RecoveryCodes(Authenticator.objects.get(user=customer.user, type="recovery_codes")).get_unused_codes()
    _code_step(client)

    response = client.post("/accounts/2fa/authenticate/", {"code": recovery[0]})

    assert response.status_code == 302
    assert client.get(reverse("account")).status_code == 200


def test_a_registered_security_key_is_offered(client, two_factor):
    customer, _secret = two_factor
    Authenticator.objects.create(user=customer.user, type=Authenticator.Type.WEBAUTHN, data={"name": "YubiKey"})
    # The key's challenge is the library's (it would parse a real credential): its answer is not what is tested.
    with mock.patch("allauth.mfa.base.views.webauthn_auth.begin_authentication", return_value={}):
        body = _code_step(client)

    assert "Use a security key" in body
    assert 'id="mfa_webauthn_authenticate"' in body
    assert "recovery codes" in body


def test_the_spanish_code_step_uses_the_stores_term_and_tu(client, two_factor):
    body = _code_step(client, "es")

    assert "Verificación en dos pasos" in body
    assert "doble factor" not in body and "dos factores" not in body
    assert "códigos de recuperación" in body
    assert "Su cuenta" not in body  # allauth's Spanish says "usted"


def _signed_in_with_code(client, secret: str) -> None:
    client.post("/accounts/login/", {"login": EMAIL, "password": VALID["password"]})
    client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)})


@pytest.mark.parametrize(
    "url",
    ["/accounts/2fa/", "/accounts/2fa/recovery-codes/", "/accounts/2fa/totp/deactivate/", "/accounts/2fa/webauthn/"],
)
def test_every_security_page_leads_back_to_the_account(client, two_factor, url):
    _customer, secret = two_factor
    _signed_in_with_code(client, secret)

    page = client.get(url, follow=True)

    assert page.status_code == 200
    assert f'href="{reverse("account")}#security"' in page.content.decode() or (
        f'href="{reverse("account")}"' in page.content.decode()  # the password asked again first
    )


def test_the_two_factor_overview_explains_recovery_codes_and_keys_in_spanish(client, two_factor):
    _customer, secret = two_factor
    _signed_in_with_code(client, secret)
    client.cookies["django_language"] = "es"

    body = client.get("/accounts/2fa/", headers={"Accept-Language": "es"}).content.decode()

    assert "<h1>Verificación en dos pasos</h1>" in body
    assert "Volver a tu cuenta" in body
    assert "códigos de recuperación" in body.lower()
    assert "doble factor" not in body and "dos factores" not in body


def test_the_refusals_use_the_stores_term_in_spanish():
    with translation.override("es"):
        messages = [str(text) for text in MFAAdapter.error_messages.values()]
    assert not any("doble factor" in text or "dos factores" in text for text in messages)
    assert any("verificación en dos pasos" in text for text in messages)


def test_the_reauthentication_page_leads_back_to_the_account(client, make_local_customer):
    make_local_customer(EMAIL)
    client.post("/accounts/login/", {"login": EMAIL, "password": VALID["password"]})

    page = client.get("/accounts/reauthenticate/")

    assert f'href="{reverse("account")}"' in page.content.decode()
