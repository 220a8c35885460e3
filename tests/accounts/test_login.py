"""/accounts/login/ and /accounts/logout/ (allauth): email sign-in, the sign-in limits
(accounts/security/signin_limits.py: per address, per account and address, and per account, which slows rather than
locks), and the two-factor step."""

from __future__ import annotations

import time

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.test import override_settings

pytestmark = pytest.mark.django_db

URL = "/accounts/login/"
PASSWORD = "Engine#1843x"
PER_PAIR, PER_ADDRESS = 5, 20  # settings.RATE_LIMIT_LOGIN_FAILED: per (account, address), per address
LIMITED = "Too many failed sign-in attempts from here."


def _login(client, email, password=PASSWORD, **extra):
    return client.post(URL, {"login": email, "password": password, **extra.pop("data", {})}, **extra)


def _signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def totp_code(secret: str, *, offset: int = 0) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30 + offset))


def test_the_page_asks_for_email_and_links_password_reset_and_signup(client):
    page = client.get(URL, {"next": "/checkout/"}).content.decode()
    assert 'type="email"' in page and 'name="login"' in page
    assert "/accounts/password/reset/" in page
    assert "/accounts/signup/?next=%2Fcheckout%2F" in page
    assert "csrfmiddlewaretoken" in page


def test_it_signs_in_with_the_email_in_any_case_and_goes_to_next(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    response = _login(client, "  ADA@Example.org ", data={"next": "/checkout/"})
    assert response.status_code == 302
    assert response["Location"] == "/checkout/"
    assert int(client.session["_auth_user_id"]) == customer.user.pk


def test_without_next_it_goes_to_the_orders(client, make_local_customer):
    make_local_customer("ada@example.org")
    assert _login(client, "ada@example.org")["Location"] == "/orders/"


def test_the_cart_survives_sign_in(client, make_local_customer):
    make_local_customer("ada@example.org")
    session = client.session
    session["cart"] = {"ada.com": {"duration": 2}}
    session.save()
    _login(client, "ada@example.org")
    assert client.session["cart"] == {"ada.com": {"duration": 2}}
    assert _signed_in(client)


def test_a_wrong_password_says_so_and_keeps_the_email(client, make_local_customer):
    make_local_customer("ada@example.org")
    response = _login(client, "ada@example.org", "Wrong#12345")
    assert response.status_code == 200
    page = response.content.decode()
    assert "The email address and/or password you specified are not correct." in page
    assert 'value="ada@example.org"' in page
    assert not _signed_in(client)


def test_failures_from_one_address_stop_that_address_even_with_the_right_password(client, make_local_customer):
    make_local_customer("ada@example.org")
    for _ in range(PER_PAIR):
        _login(client, "ada@example.org", "Wrong#12345", REMOTE_ADDR="203.0.113.7")
    response = _login(client, "Ada@example.org", PASSWORD, REMOTE_ADDR="203.0.113.7")
    assert LIMITED in response.content.decode()
    assert not _signed_in(client)


def test_twenty_wrong_passwords_from_one_address_do_not_lock_the_owner_out_of_another(client, make_local_customer):
    """The attack of the lockout issue: an attacker knowing the owner's email guesses from their own address."""
    make_local_customer("ada@example.org")
    for _ in range(PER_ADDRESS):
        _login(client, "ada@example.org", "Wrong#12345", REMOTE_ADDR="203.0.113.7")
    assert not _signed_in(client)
    owner = _login(client, "ada@example.org", PASSWORD, REMOTE_ADDR="198.51.100.9")
    assert owner.status_code == 302 and _signed_in(client)


def test_an_account_limit_does_not_affect_other_accounts(client, make_local_customer):
    make_local_customer("ada@example.org")
    make_local_customer("grace@example.org")
    for _ in range(PER_PAIR):
        _login(client, "ada@example.org", "Wrong#12345")
    assert _login(client, "grace@example.org").status_code == 302


def test_the_owner_gets_back_in_by_resetting_the_password(client, make_local_customer, mailoutbox):
    make_local_customer("ada@example.org")
    for _ in range(PER_PAIR):
        _login(client, "ada@example.org", "Wrong#12345")
    client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    link = next(line for line in mailoutbox[-1].body.splitlines() if "/accounts/password/reset/key/" in line)
    form_url = client.get(link.strip())["Location"]
    client.post(form_url, {"password1": "Fresh#Pass2024", "password2": "Fresh#Pass2024"})
    client.logout()
    assert _login(client, "ada@example.org", "Fresh#Pass2024").status_code == 302


@override_settings(RATE_LIMIT_LOGIN_ACCOUNT="10/15m", ADMINS=[("Ops", "ops@example.org")])
def test_an_account_guessed_at_from_many_addresses_slows_rather_than_locks_and_its_owner_is_told(
    client, make_local_customer, mailoutbox
):
    make_local_customer("ada@example.org")
    for n in range(10):  # a botnet: each address stays under its own limits
        _login(client, "ada@example.org", "Wrong#12345", REMOTE_ADDR=f"192.0.2.{n + 1}")
    told = [m for m in mailoutbox if m.to == ["ada@example.org"]]
    assert [m.subject for m in told] == ["[Domain Store] Someone is trying to sign in to your account"]
    assert "10 wrong sign-in attempts in the last 15 minutes" in told[0].body
    assert [m.to for m in mailoutbox if "being guessed at" in m.subject] == [["ops@example.org"]]

    # Slowed, not locked: an address not seen before gets its one try a minute, and the right password works.
    assert _login(client, "ada@example.org", PASSWORD, REMOTE_ADDR="198.51.100.9").status_code == 302
    # A place that just failed waits a minute before its next try, the right password included; the message says
    # how long.
    other = type(client)()
    _login(other, "ada@example.org", "Wrong#12345", REMOTE_ADDR="198.51.100.10")
    slowed = _login(other, "ada@example.org", PASSWORD, REMOTE_ADDR="198.51.100.10").content.decode()
    assert "each place may try it only once a minute" in slowed
    assert not _signed_in(other)
    # The attackers' next guesses are slowed the same way, and the owner is told only once per window.
    attacker = type(client)()
    _login(attacker, "ada@example.org", "Wrong#12345", REMOTE_ADDR="192.0.2.1")
    assert "once a minute" in _login(attacker, "ada@example.org", "Wrong#1", REMOTE_ADDR="192.0.2.1").content.decode()
    assert len([m for m in mailoutbox if "trying to sign in" in m.subject]) == 1


@override_settings(RATE_LIMIT_LOGIN_ACCOUNT="10/15m")
def test_a_browser_that_signed_in_before_is_not_slowed(client, make_local_customer):
    make_local_customer("ada@example.org")
    _login(client, "ada@example.org", REMOTE_ADDR="198.51.100.9")  # the owner's browser: remembered by its cookie
    client.post("/accounts/logout/")
    attacker = type(client)()
    for n in range(10):
        _login(attacker, "ada@example.org", "Wrong#12345", REMOTE_ADDR=f"192.0.2.{n + 1}")
    for _ in range(3):  # not once a minute: as often as the owner likes
        assert _login(client, "ada@example.org", REMOTE_ADDR="198.51.100.9").status_code == 302
        client.post("/accounts/logout/")


def test_an_address_is_limited_after_twenty_failures_on_any_accounts(client, make_local_customer):
    make_local_customer("ada@example.org")
    for n in range(PER_ADDRESS):
        _login(client, f"guess{n}@example.org", "Wrong#12345", REMOTE_ADDR="203.0.113.7")
    locked = _login(client, "ada@example.org", REMOTE_ADDR="203.0.113.7")
    assert LIMITED in locked.content.decode()
    assert not _signed_in(client)
    assert _login(client, "ada@example.org", REMOTE_ADDR="198.51.100.9").status_code == 302


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_a_trusted_proxy_the_address_comes_from_x_forwarded_for(client, make_local_customer):
    make_local_customer("ada@example.org")
    for n in range(PER_ADDRESS):
        # The client forged the first entry; the proxy appended the real address last.
        _login(
            client,
            f"guess{n}@example.org",
            "Wrong#12345",
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 203.0.113.7",
        )
    _login(client, "ada@example.org", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert not _signed_in(client)
    response = _login(client, "ada@example.org", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.8")
    assert response.status_code == 302 and _signed_in(client)


def test_logout_is_a_post_and_goes_home(client, make_local_customer):
    make_local_customer("ada@example.org")
    _login(client, "ada@example.org")
    assert client.get("/accounts/logout/").status_code == 200  # allauth asks to confirm; nothing happens yet
    assert _signed_in(client)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert not _signed_in(client)


# --- Two-factor -------------------------------------------------------------------------------------------------


@pytest.fixture
def with_totp(make_local_customer):
    customer = make_local_customer("ada@example.org")
    secret = generate_totp_secret()
    TOTP.activate(customer.user, secret)
    codes = RecoveryCodes.activate(customer.user).generate_codes()
    return secret, codes


def test_with_two_factor_the_password_alone_does_not_sign_in(client, with_totp):
    response = _login(client, "ada@example.org")
    assert response["Location"] == "/accounts/2fa/authenticate/"
    assert not _signed_in(client)


def test_the_right_code_signs_in(client, with_totp):
    secret, _codes = with_totp
    _login(client, "ada@example.org", data={"next": "/checkout/"})
    response = client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)})
    assert response.status_code == 302 and response["Location"] == "/checkout/"
    assert _signed_in(client)


@pytest.mark.parametrize(("window", "signs_in"), [(-1, True), (-3, False)])
def test_a_code_typed_as_its_window_closed_still_signs_in_but_an_old_one_does_not(client, with_totp, window, signs_in):
    """One 30-second window of grace (MFA_TOTP_TOLERANCE): a customer typing as the authenticator rolls over is
    not refused; a code from a minute and a half ago is."""
    secret, _codes = with_totp
    _login(client, "ada@example.org")
    client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret, offset=window)})
    assert _signed_in(client) is signs_in


def test_a_wrong_code_is_refused_and_repeated_wrong_codes_limit_that_address_only(client, with_totp):
    """Someone with the password guessing codes stops their own address, not the owner's."""
    secret, _codes = with_totp
    _login(client, "ada@example.org", REMOTE_ADDR="203.0.113.7")
    wrong = f"{(int(totp_code(secret)) + 1) % 1_000_000:06d}"
    refused = client.post("/accounts/2fa/authenticate/", {"code": wrong}, REMOTE_ADDR="203.0.113.7")
    assert refused.status_code == 200 and "Incorrect code." in refused.content.decode()
    assert not _signed_in(client)
    for _ in range(PER_PAIR):
        client.post("/accounts/2fa/authenticate/", {"code": wrong}, REMOTE_ADDR="203.0.113.7")
    # Limited now: even the right code is refused from there until the window passes.
    limited = client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)}, REMOTE_ADDR="203.0.113.7")
    assert not _signed_in(client)
    assert LIMITED in limited.content.decode()
    owner = type(client)()
    _login(owner, "ada@example.org", REMOTE_ADDR="198.51.100.9")
    assert (
        owner.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)}, REMOTE_ADDR="198.51.100.9")["Location"]
        == "/orders/"
    )


def test_a_recovery_code_works_once(client, with_totp):
    _secret, codes = with_totp
    _login(client, "ada@example.org")
    assert client.post("/accounts/2fa/authenticate/", {"code": codes[0]}).status_code == 302
    assert _signed_in(client)
    client.post("/accounts/logout/")
    _login(client, "ada@example.org")
    again = client.post("/accounts/2fa/authenticate/", {"code": codes[0]})
    assert again.status_code == 200 and not _signed_in(client)


# --- Notices ------------------------------------------------------------------------------------------------------


def test_a_sign_in_from_a_new_browser_is_emailed_but_not_from_a_known_one(client, make_local_customer, mailoutbox):
    make_local_customer("ada@example.org")
    _login(client, "ada@example.org", HTTP_USER_AGENT="Firefox/140", REMOTE_ADDR="203.0.113.9")
    (notice,) = mailoutbox
    assert notice.to == ["ada@example.org"] and "New sign-in" in notice.subject
    assert "203.0.113.9" in notice.body and "Firefox/140" in notice.body
    client.post("/accounts/logout/")
    _login(client, "ada@example.org")  # the same browser: its cookie remembers the account
    assert len(mailoutbox) == 1


def test_the_browser_an_account_was_made_in_gets_no_notice(client, seeded, mailoutbox):
    from .conftest import VALID

    client.post("/accounts/signup/", VALID)
    assert [m.subject for m in mailoutbox if "New sign-in" in m.subject] == []


def test_a_password_change_is_emailed(client, make_local_customer, mailoutbox):
    make_local_customer("ada@example.org")
    _login(client, "ada@example.org")
    mailoutbox.clear()
    client.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": "Brand#New123", "password2": "Brand#New123"},
    )
    assert [m.to for m in mailoutbox] == [["ada@example.org"]]
    assert "Password Changed" in mailoutbox[0].subject


# --- Re-authentication of dangerous changes -------------------------------------------------------------------


def test_changing_the_email_asks_for_the_password_first(client, make_local_customer):
    make_local_customer("ada@example.org", customer_id=None)
    from accounts.models import Customer

    Customer.objects.update(customer_id=None)  # not yet at the provider: the address may still change
    _login(client, "ada@example.org")
    response = client.post("/accounts/email/", {"action_add": "", "email": "ada@elsewhere.example"})
    assert response["Location"].startswith("/accounts/reauthenticate/")
    from allauth.account.models import EmailAddress

    assert not EmailAddress.objects.filter(email="ada@elsewhere.example").exists()
    client.post(response["Location"], {"password": PASSWORD}, follow=True)  # the change goes on by itself

    assert EmailAddress.objects.filter(email="ada@elsewhere.example", verified=False).exists()


def test_turning_two_factor_off_asks_for_password_and_code(client, with_totp):
    secret, _codes = with_totp
    _login(client, "ada@example.org")
    client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)})
    response = client.post("/accounts/2fa/totp/deactivate/")
    assert response["Location"].startswith("/accounts/reauthenticate/")
    assert 'name="code"' in client.get(response["Location"]).content.decode()


def test_once_at_the_provider_the_email_cannot_change_here(client, make_local_customer):
    make_local_customer("ada@example.org")
    _login(client, "ada@example.org")
    page = client.post("/accounts/email/", {"action_add": "", "email": "ada@elsewhere.example"}).content.decode()
    assert "cannot change it yet" in page
    from allauth.account.models import EmailAddress

    assert not EmailAddress.objects.filter(email="ada@elsewhere.example").exists()
