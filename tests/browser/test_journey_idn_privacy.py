"""Journey: a customer searches café.com (shown with its A-label, xn--caf-dma.com), buys it with WHOIS privacy ticked
at checkout, pays once for both, and finds the domain's page saying privacy is on, and the receipt naming both lines
in both forms."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from billing.models import Payment
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    eventually,
    new_person,
    pay_by_card,
    sign_up,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOTH = "café.com (xn--caf-dma.com)"


def test_cafe_com_is_searched_and_bought_with_privacy_added_at_checkout(
    page: Page, screenshot, stripe_sandbox, live_server, settings
):
    stripe_sandbox.setup(webhook_url=f"{live_server.url}/payments/stripe/webhook/")
    sign_up(page, new_person())

    page.goto("/search/?q=café.com")
    expect(page.locator(".search-summary")).to_have_text(f"Results for {BOTH}")
    mine = page.locator(".result-row-mine")
    expect(mine.locator(".result-domain")).to_have_text("café.com")
    expect(mine.locator(".result-ace")).to_have_text("xn--caf-dma.com")
    expect(mine.get_by_text("Available")).to_be_visible()
    add_to_cart(page, "café.com")
    screenshot("idn-search")

    page.goto("/cart/")
    expect(page.locator(".cart-domain")).to_contain_text("café.com")
    expect(page.locator(".cart-domain .domain-ace")).to_have_text("xn--caf-dma.com")
    screenshot("idn-cart")

    page.goto("/checkout/")
    privacy = page.get_by_role("checkbox", name=re.compile(r"^Add WHOIS privacy for 1 year: \$6\.49"))
    expect(privacy).not_to_be_checked()
    privacy.check()
    page.get_by_role("button", name="Update WHOIS privacy of café.com").click()
    expect(page.get_by_role("checkbox", name=re.compile(r"^WHOIS privacy for 1 year: \$6\.49"))).to_be_checked()
    buy = page.get_by_role("button", name=re.compile(r"^Buy now"))
    expect(buy).to_have_text("Buy now · $20.98")  # the domain's 14.49 and privacy's 6.49
    check_accessibility(page, where="(checkout with privacy)")
    screenshot("idn-privacy-checkout")
    accept_terms(page)
    buy.click()

    expect(page.get_by_text(f"{BOTH}, registration for 1 year")).to_be_visible()
    expect(page.get_by_text(f"{BOTH}, WHOIS privacy for 1 year")).to_be_visible()
    pay_by_card(page)
    expect(page.get_by_role("heading", name="Your order")).to_be_visible()
    expect(page.get_by_text("Done: 1 domain registered")).to_be_visible()
    expect(page.get_by_text(BOTH)).to_be_visible()
    screenshot("idn-privacy-done")

    payment = Payment.objects.get()
    eventually(lambda: Payment.objects.get(pk=payment.pk).status == Payment.Status.CAPTURED, what="the capture")
    payment.refresh_from_db()
    assert str(payment.amount_captured) == "20.98"

    page.get_by_role("link", name="Manage café.com").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("café.com")
    expect(page.locator("h1 .domain-ace")).to_have_text("xn--caf-dma.com")
    privacy_card = page.locator("#privacy")
    expect(privacy_card).to_contain_text("WHOIS privacy is on")
    expect(privacy_card.get_by_role("button", name="Switch privacy off")).to_be_visible()
    screenshot("idn-privacy-domain-page")

    receipt = payment.receipt
    assert receipt is not None
    page.goto(f"/payments/receipts/{receipt.number}/")
    expect(page.get_by_text(f"{BOTH}, registration for 1 year")).to_be_visible()
    expect(page.get_by_text(f"{BOTH}, WHOIS privacy for 1 year")).to_be_visible()
    screenshot("idn-privacy-receipt")

    # Where the provider does not offer privacy, the checkout says the contact details are public, and what to do.
    settings.RESELLER_CAPABILITIES = []
    other = f"{unique_label('public')}.com"
    page.goto(f"/search/?q={other}")
    add_to_cart(page, other)
    page.goto("/checkout/")
    expect(page.get_by_text("Your contact details will be public.")).to_be_visible()
    expect(page.get_by_role("checkbox", name=re.compile("WHOIS privacy"))).to_have_count(0)
    screenshot("privacy-off-checkout")
