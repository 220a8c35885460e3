"""Journey: account security. A new customer confirms their address from the sandbox mailbox and buys; turns on
two-factor sign-in with an authenticator app (the code computed here from the secret the page shows); signs out
and in with password and code, then once with a recovery code; shows a transfer code after confirming password
and code again, and finds the security notice in the mailbox."""

from __future__ import annotations

import re
import time

import pytest
from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value
from playwright.sync_api import Page, expect

from tests.browser.steps import (
    assert_every_field_labelled,
    check_accessibility,
    customer_with_domains,
    sign_in_with_password,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def totp_now(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    check_accessibility(page, where="(signed out)")


def test_two_factor_sign_in_recovery_codes_and_a_transfer_code_with_its_notice(page: Page, shots):
    domain = f"{unique_label('vault')}.com"
    person = customer_with_domains(page, domain)  # signs up, confirms from the mailbox, buys

    # Two-factor from the account page: the password first (re-authentication), then the app's secret and code.
    page.goto("/account/")
    check_accessibility(page)
    page.get_by_role("link", name="Set up two-factor sign-in").click()
    check_accessibility(page)
    page.get_by_role("link", name=re.compile("Activate|Set up", re.I)).first.click()
    expect(page.get_by_role("heading", name="Confirm it is you")).to_be_visible()
    check_accessibility(page, where="(re-authentication)")
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("heading", name="Activate Authenticator App")).to_be_visible()
    check_accessibility(page, where="(activate)")
    secret = page.get_by_label("Authenticator secret").input_value()
    assert re.fullmatch(r"[A-Z2-7]{16,}", secret)
    assert_every_field_labelled(page)
    shots("auth-2fa-setup")
    page.get_by_label("Authenticator code").fill(totp_now(secret))
    page.get_by_role("button", name="Activate").click()
    expect(page.get_by_text("Authenticator app activated.")).to_be_visible()
    check_accessibility(page, where="(activated)")
    page.goto("/accounts/2fa/recovery-codes/")
    check_accessibility(page)
    codes = page.get_by_label("Unused codes").input_value().split()
    assert len(codes) >= 2
    page.goto("/account/")
    expect(page.get_by_text("Two-factor sign-in: on")).to_be_visible()
    check_accessibility(page, where="(two-factor on)")

    # Out and back in: the password alone is not enough; the app's code is.
    sign_out(page)
    sign_in_with_password(page, person.email, person.password)
    page.get_by_label("Code").fill("000000" if totp_now(secret) != "000000" else "111111")
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_text("Incorrect code.")).to_be_visible()
    shots("auth-sign-in-code")
    page.get_by_label("Code").fill(totp_now(secret))
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    check_accessibility(page, where="(signed in)")

    # A recovery code works once.
    sign_out(page)
    sign_in_with_password(page, person.email, person.password)
    page.get_by_label("Code").fill(codes[0])
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    check_accessibility(page, where="(signed in)")
    sign_out(page)
    sign_in_with_password(page, person.email, person.password)
    page.get_by_label("Code").fill(codes[0])
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_text("Incorrect code.")).to_be_visible()
    page.get_by_label("Code").fill(codes[1])
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    check_accessibility(page, where="(signed in)")

    # The transfer code: password and a code again, then the code is shown and a notice is emailed.
    page.get_by_role("link", name=domain, exact=True).click()
    check_accessibility(page)
    page.locator("#transfer").get_by_role("button", name="Show transfer code").click()
    expect(page.get_by_role("heading", name="Confirm it is you")).to_be_visible()
    assert_every_field_labelled(page)
    page.get_by_label("Password").fill(person.password)
    page.get_by_label("Two-factor code").fill(codes[2])
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#transfer-code")).to_have_text(re.compile(r"\S{6,}"))
    check_accessibility(page, where="(transfer code shown)")
    page.get_by_role("link", name="Emails sent").click()
    notice = page.locator(".mailbox-message", has_text=f"The transfer code of {domain} was shown").first
    expect(notice).to_be_visible()
    expect(page.locator(".mailbox-message", has_text="Authenticator app activated").first).to_be_visible()
    shots("auth-mailbox")


def test_the_sign_in_page(page: Page, shots):
    page.goto("/accounts/login/")
    expect(page.get_by_label("Email")).to_be_visible()
    assert_every_field_labelled(page)
    check_accessibility(page)
    shots("auth-sign-in")
