"""/admin/login/: staff sign in through the storefront's sign-in (allauth, with two-factor), the admin login page
stays limited per address, and staff without two-factor are sent to set it up (all but bin/run's demo login)."""

import time

import pytest
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

URL = "/admin/login/"
PASSWORD = "Staff#12345-right"


@pytest.fixture
def staff():
    return get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", PASSWORD)


def _try(client, password: str, **extra):
    return client.post(URL, {"username": "staff@example.org", "password": password, "next": "/admin/"}, **extra)


def test_the_admin_login_sends_to_the_storefront_sign_in(client, staff):
    response = client.get(URL + "?next=/admin/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fadmin%2F"


def test_after_ten_tries_the_admin_login_is_turned_away(client, staff):
    for attempt in range(10):
        assert _try(client, f"wrong-{attempt}").status_code == 302  # sent on to the storefront's sign-in
    response = _try(client, PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert _try(client, PASSWORD, REMOTE_ADDR="198.51.100.7").status_code == 302  # other addresses are not limited


@pytest.mark.staff_without_two_factor
def test_staff_sign_in_asks_for_the_code_and_then_opens_the_admin(client, staff):
    secret = generate_totp_secret()
    TOTP.activate(staff, secret)
    step = client.post("/accounts/login/", {"login": "staff@example.org", "password": PASSWORD, "next": "/admin/"})
    assert step["Location"] == "/accounts/2fa/authenticate/"
    code = format_hotp_value(hotp_value(secret, int(time.time()) // 30))
    assert client.post("/accounts/2fa/authenticate/", {"code": code})["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


@pytest.mark.staff_without_two_factor
def test_in_production_staff_without_two_factor_cannot_reach_the_admin(client, staff, settings):
    assert settings.DEBUG is False  # the suite runs production settings
    client.force_login(staff)
    for path in ("/admin/", "/admin/accounts/customer/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"] == "/accounts/2fa/totp/activate/"
    # Setting it up asks for the password first (force_login signed in without one).
    assert client.get("/accounts/2fa/totp/activate/")["Location"].startswith("/accounts/reauthenticate/")


@pytest.mark.staff_without_two_factor
def test_with_debug_on_staff_still_need_two_factor_but_the_demo_login(client, staff, settings):
    settings.DEBUG = True
    client.force_login(staff)
    assert client.get("/admin/")["Location"] == "/accounts/2fa/totp/activate/"
    settings.STAFF_TWO_FACTOR_EXEMPT = "Staff@Example.org"  # bin/run's printed login
    assert client.get("/admin/").status_code == 200


@pytest.mark.staff_without_two_factor
def test_the_demo_exemption_means_nothing_in_production(client, staff, settings):
    settings.STAFF_TWO_FACTOR_EXEMPT = "staff@example.org"
    client.force_login(staff)
    assert client.get("/admin/")["Location"] == "/accounts/2fa/totp/activate/"


@pytest.mark.staff_without_two_factor
def test_twenty_wrong_passwords_and_codes_from_one_address_do_not_lock_staff_out_of_another(client, staff):
    """Staff sign in where customers do, under the same limits: an attacker's guesses stop the attacker's address."""
    secret = generate_totp_secret()
    TOTP.activate(staff, secret)
    attacker = type(client)()
    for n in range(20):
        attacker.post(
            "/accounts/login/", {"login": "staff@example.org", "password": f"wrong-{n}"}, REMOTE_ADDR="203.0.113.7"
        )
    # Even with the password, guessing codes from one address stops that address.
    attacker.post("/accounts/login/", {"login": "staff@example.org", "password": PASSWORD}, REMOTE_ADDR="203.0.113.8")
    for n in range(6):
        attacker.post("/accounts/2fa/authenticate/", {"code": f"{n:06d}"}, REMOTE_ADDR="203.0.113.8")
    step = client.post(
        "/accounts/login/",
        {"login": "staff@example.org", "password": PASSWORD, "next": "/admin/"},
        REMOTE_ADDR="198.51.100.7",
    )
    assert step["Location"] == "/accounts/2fa/authenticate/"
    code = format_hotp_value(hotp_value(secret, int(time.time()) // 30))
    assert (
        client.post("/accounts/2fa/authenticate/", {"code": code}, REMOTE_ADDR="198.51.100.7")["Location"] == "/admin/"
    )
