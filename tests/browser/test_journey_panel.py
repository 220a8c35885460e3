"""Journey 4: from a domain's page the customer opens the provider's control panel and lands signed in."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.steps import customer_with_domains, unique_label

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_customer_opens_the_control_panel_and_lands_signed_in(page: Page, sandbox_url, screenshot):
    domain = f"{unique_label('lantern')}.com"
    person = customer_with_domains(page, domain)
    page.get_by_role("link", name=f"Manage {domain}").click()
    domain_page = page.url

    expect(page.get_by_text("(opens in a new tab)")).to_be_visible()
    with page.context.expect_page() as opened:
        page.get_by_role("button", name="Open control panel").click()
    panel = opened.value
    expect(panel).to_have_url(re.compile(rf"^{re.escape(sandbox_url)}/panel/auto-login\?token=[^&]+$"))
    expect(panel.get_by_role("heading", name=f"Signed in as {person.email}")).to_be_visible()
    expect(panel.get_by_text(f"Welcome, {person.name}.")).to_be_visible()
    # The storefront stays where it was, in its own tab.
    assert page.url == domain_page

    # Each press hands off with a fresh one-time link: pressing again signs in again, in another new tab.
    first_link = panel.url
    with page.context.expect_page() as opened_again:
        page.get_by_role("button", name="Open control panel").click()
    second = opened_again.value
    expect(second.get_by_role("heading", name=f"Signed in as {person.email}")).to_be_visible()
    assert second.url != first_link
    screenshot("panel")
