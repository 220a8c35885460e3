"""Journey: the security pages and the DNS list of issue 30. A customer with two-factor sign-in on reads the
overview (recovery codes explained, a way back to the account), signs in with a recovery code on a code page that
names them and offers no security key, shows a transfer code after the password and a code (the page is a GET of
its own: reloading it posts nothing and shows no code); then opens the DNS list of every type, reads the
nameservers and how to point the domain elsewhere, filters by type and has a 300-character TXT value refused with
the reason. English and Spanish, desktop and phone (screenshots in /tmp/shots-secdns)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from tests.browser.conftest import _OVERFLOWING, SHOT_SIZES
from tests.browser.steps import (
    assert_every_field_labelled,
    check_accessibility,
    customer_with_domains,
    resize,
    sign_in_with_password,
    unique_label,
    wait_for_htmx,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots-secdns")


def shot(page: Page, name: str) -> None:
    """The page at 1280x800 and 390x844, whole; at phone width it must not scroll sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size
    for size_name, size in SHOT_SIZES.items():
        resize(page, size)
        page.screenshot(path=str(SHOTS / f"{name}-{size_name}.png"), full_page=True)
        if size_name == "phone":
            assert page.evaluate(_OVERFLOWING) == [], f"{name} is wider than a phone"
    if before:
        page.set_viewport_size(before)


def totp_now(secret: str) -> str:
    # A code good for the next few seconds at least: wait out the end of a 30-second window.
    if 30 - time.time() % 30 < 3:
        time.sleep(3)
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def language(page: Page, code: str) -> None:
    page.locator("#language-select").select_option(code)
    page.locator(".language-switcher button").click()
    page.wait_for_load_state()


def test_security_pages_the_transfer_code_reload_and_the_dns_list(page: Page):
    domain = f"{unique_label('keyring')}.com"
    person = customer_with_domains(page, domain)
    # Two-factor on, as the account page's setup leaves it (that setup has its own journey: account security).
    user = get_user_model().objects.get(email=person.email)
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    codes = RecoveryCodes.activate(user).generate_codes()

    # The overview: the app, the recovery codes and keys explained; a way back to the account.
    page.goto("/accounts/2fa/")
    check_accessibility(page)
    expect(page.get_by_role("heading", name="Two-Factor Authentication", level=1)).to_be_visible()
    expect(page.get_by_role("region", name="Recovery Codes")).to_contain_text("If you lose your phone")
    expect(page.get_by_role("region", name="Security Keys")).to_contain_text("you will not be asked for it")
    shot(page, "2fa-overview")
    language(page, "es")
    check_accessibility(page, where="(Spanish)")
    expect(page.get_by_role("heading", name="Verificación en dos pasos", level=1)).to_be_visible()
    shot(page, "2fa-overview-es")
    language(page, "en")
    page.get_by_role("link", name="← Back to your account").click()
    check_accessibility(page)
    expect(page.get_by_text("Two-factor sign-in: on")).to_be_visible()

    # Signing in: the code page names recovery codes and offers no security key (none is registered).
    page.get_by_role("button", name="Sign out").click()
    check_accessibility(page, where="(signed out)")
    sign_in_with_password(page, person.email, person.password)
    expect(page.get_by_text("Type one of your recovery codes in the same box")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("security key", re.I))).to_have_count(0)
    assert_every_field_labelled(page)
    shot(page, "2fa-code")
    page.get_by_label("Code").fill(codes[0])
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    check_accessibility(page, where="(signed in with a recovery code)")

    # The transfer code after the password and a code: shown at a page of its own, which a reload does not repost.
    page.get_by_role("link", name=domain, exact=True).click()
    check_accessibility(page)
    order_page = page.url
    page.locator("#transfer").get_by_role("button", name="Show transfer code").click()
    expect(page.get_by_role("heading", name="Confirm it is you")).to_be_visible()
    check_accessibility(page, where="(password again)")
    expect(page.get_by_role("link", name="← Back to your account")).to_be_visible()
    shot(page, "reauthenticate")
    page.get_by_label("Password").fill(person.password)
    page.get_by_label("Two-factor code").fill(totp_now(secret))
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#transfer-code")).to_have_text(re.compile(r"\S{6,}"))
    check_accessibility(page, where="(transfer code shown)")
    assert "/transfer-code/?shown=" in page.url and "reauthenticate" not in page.url
    page.reload()
    check_accessibility(page, where="(reloaded)")
    assert page.url == f"{order_page}#transfer"
    expect(page.locator("#transfer-code")).to_have_count(0)
    expect(page.locator("#transfer").get_by_role("button", name="Show transfer code")).to_be_visible()

    # DNS: every record in one list, the nameservers named and explained.
    page.get_by_role("link", name="Edit DNS records").click()
    check_accessibility(page)
    editor = page.locator("#dns-editor")
    expect(editor.get_by_role("heading", name=re.compile("^All records"))).to_be_visible()
    nameservers = page.get_by_role("region", name="Nameservers")
    expect(nameservers.locator("code").first).to_have_text(re.compile(r"^ns\d?\.[a-z0-9.-]+$"))
    expect(nameservers).to_contain_text("can't be changed through our provider yet")
    expect(nameservers).to_contain_text("at www: a CNAME record")
    assert_every_field_labelled(page)
    shot(page, "dns-list")

    # The filter shows one type; a TXT value longer than one DNS string is refused with the reason, kept typed.
    wait_for_htmx(page)
    editor.get_by_label("Record type").select_option("NS")
    expect(editor.get_by_role("heading", name=re.compile("^NS records"))).to_be_visible()
    check_accessibility(page, where="(NS only)")
    wait_for_htmx(page)
    editor.get_by_label("Record type").select_option("")
    expect(editor.get_by_role("heading", name=re.compile("^All records"))).to_be_visible()
    add = page.get_by_role("region", name="Add a record")
    add.get_by_label("Type").select_option("TXT")
    add.get_by_label("Host").fill("@")
    long_value = "v=verify " + "x" * 291
    add.get_by_label("Value").fill(long_value)
    add.get_by_role("button", name="Add record").click()
    expect(page.get_by_text("A DNS text string holds at most 255 characters")).to_be_visible()
    expect(page.get_by_role("region", name="Add a record").get_by_label("Value")).to_have_value(long_value)
    check_accessibility(page, where="(TXT refused)")
    shot(page, "dns-txt-refused")

    language(page, "es")
    check_accessibility(page, where="(Spanish)")
    expect(page.get_by_role("region", name="Servidores de nombres")).to_contain_text("Todavía no se pueden cambiar")
    expect(page.get_by_role("heading", name=re.compile("^Todos los registros"))).to_be_visible()
    shot(page, "dns-list-es")
    language(page, "en")
