"""Journey 2: the customer finds their new domains on the dashboard, renews one and reveals a transfer code."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from tests.browser.steps import (
    Soft,
    assert_every_field_labelled,
    check_accessibility,
    customer_with_domains,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _expiry(years_from_now: int) -> str:
    today = datetime.now(UTC).date()
    return f"{today:%b} {today.day}, {today.year + years_from_now}"


def test_the_customer_renews_a_domain_and_reveals_its_transfer_code(page: Page, screenshot):
    label = unique_label("harbour")
    first, second = f"{label}.com", f"{label}.net"
    person = customer_with_domains(page, first, second)
    soft = Soft()

    page.get_by_role("navigation", name="Account").get_by_role("link", name="My domains").click()
    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    expect(page.get_by_text("2 domains")).to_be_visible()
    for name in (first, second):
        row = page.locator("tr", has=page.get_by_role("link", name=name, exact=True))
        expect(row.locator(".order-date")).to_have_text(_expiry(1))
        # Bought today for a year: the customer reads "in 1 year", not "in 11 months".
        with soft.check(f"time left of {name} on My domains"):
            expect(row.locator(".order-left")).to_have_text(re.compile(r"^in (1 year|12 months)$"), timeout=1000)
        expect(row.locator(".badge").first).to_have_text(re.compile("Active", re.I))
    assert_every_field_labelled(page)
    screenshot("dashboard-list")

    page.get_by_role("link", name=first, exact=True).click()
    expect(page.get_by_role("heading", name=first, level=1)).to_be_visible()
    expect(page.locator(".order-expiry-date")).to_have_text(_expiry(1))
    assert_every_field_labelled(page)
    check_accessibility(page, where="(domain page)")

    renew = page.get_by_role("region", name="Renew")
    renew.get_by_label("Renew for").select_option(value="2")
    renew.get_by_role("button", name=f"Review renewal of {first}").click()
    # The confirmation step: the price and the new expiry before anything is renewed.
    expect(page.locator(".renew-new-expiry")).to_have_text(_expiry(3))
    check_accessibility(page, where="(renewal confirmation)")
    # Two years at the retail renewal price: the sandbox's 2 * 14.99, plus the tests' markup of 1.50 a year.
    page.get_by_role("button", name="Renew now for $32.98", exact=True).click()
    expect(page.get_by_text(f"Renewed until {_expiry(3)}.")).to_be_visible()
    expect(page.locator(".order-expiry-date")).to_have_text(_expiry(3))
    with soft.check(f"time left of {first} after renewing"):
        expect(page.locator(".order-expiry .order-left")).to_have_text(re.compile(r"^In 3 years$"), timeout=1000)

    # The password is asked again first (allauth's re-authentication), then the request goes on by itself.
    page.locator("#transfer").get_by_role("button", name="Show transfer code").click()
    expect(page.get_by_role("heading", name="Confirm it is you")).to_be_visible()
    check_accessibility(page, where="(re-authentication)")
    page.get_by_label("Password").fill("Not-my-password1")
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator(".errorlist")).to_be_visible()
    expect(page.locator("#transfer-code")).to_have_count(0)
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Confirm").click()
    code = page.locator("#transfer-code")
    expect(code).to_be_visible()
    expect(code).to_have_text(re.compile(r"\S{6,}"))
    expect(page.locator("#transfer").get_by_role("button", name="Copy")).to_be_visible()
    screenshot("dashboard")
    soft.assert_none()
