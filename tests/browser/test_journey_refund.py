"""Journey: a customer buys a domain and renews it, paying on the payment page each time; staff refund the purchase
from the admin's confirmation page; the customer's pages then say the domain is refunded and offer no renewal, the
credit note is on their Billing page; and the revenue report's totals equal what the payment sandbox captured less
what it refunded."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import Browser, Page, expect

from billing.models import Payment
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    new_person,
    pay_by_card,
    resize,
    search_page,
    sign_up,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CENT = Decimal("0.01")


def _pay(page: Page) -> None:
    expect(page.get_by_role("heading", name=re.compile(r"^Pay \d+\.\d\d USD$"))).to_be_visible()
    pay_by_card(page)


def _staff_page(browser: Browser, live_server) -> Page:
    """A staff member's own browser, signed in (their two-factor sign-in is the admin's own tests' business)."""
    staff = get_user_model().objects.create_superuser("ops@example.org", "ops@example.org", "Ops#Journey27")
    client = Client()
    client.force_login(staff)
    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP, locale="en-US", timezone_id="UTC")
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    return context.new_page()


def _staff_screenshot(page: Page, name: str) -> None:
    for size_name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        resize(page, size)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{size_name}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def _sandbox_net(stripe_sandbox, payments: list[Payment]) -> Decimal:
    net = Decimal(0)
    for payment in payments:
        charge = stripe_sandbox.stored(stripe_sandbox.stored(payment.stripe_payment_intent_id)["latest_charge"])
        refunded = sum(r["amount"] for r in charge["refunds"]["data"] if r["status"] in ("pending", "succeeded"))
        net += (Decimal(charge["amount_captured"]) - Decimal(refunded)) * CENT
    return net


def test_staff_refund_a_domain_and_the_customer_sees_it_refunded_and_the_books_add_up(
    page: Page, browser: Browser, screenshot, stripe_sandbox, live_server
):
    stripe_sandbox.setup(webhook_url=f"{live_server.url}/payments/stripe/webhook/", webhook_delivery="duplicated")
    sign_up(page, new_person())
    name = f"{unique_label('refund')}.com"
    search_page(page, name)
    add_to_cart(page, name)
    page.goto("/checkout/")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    _pay(page)
    expect(page.get_by_text("Done: 1 domain registered")).to_be_visible()
    check_accessibility(page)

    page.get_by_role("navigation", name="Account").get_by_role("link", name="My domains").click()
    check_accessibility(page)
    page.get_by_role("link", name=name, exact=True).click()
    check_accessibility(page)
    renew = page.get_by_role("region", name="Renew")
    renew.get_by_role("button", name=f"Review renewal of {name}").click()
    check_accessibility(page, where="(renewal confirmation)")
    # The card kept from the purchase is offered in one click; this journey pays on the payment page again.
    page.get_by_role("button", name="Pay with another card", exact=True).click()
    _pay(page)
    expect(page.get_by_text(re.compile(r"Renewed until .*\. Your card was charged \$"))).to_be_visible()
    domain_page = page.url

    # Staff refund the purchase: the payment's page, its Refund… button, the confirmation that says what happens.
    bought = Payment.objects.get(lines__description=f"{name}, registration for 1 year")
    staff = _staff_page(browser, live_server)
    staff.goto(f"/admin/billing/payment/{bought.pk}/change/")
    staff.get_by_role("link", name="Refund…").click()
    expect(staff.get_by_role("heading", name="Refund charged lines")).to_be_visible()
    expect(staff.get_by_text("A registration refunded in full marks its domain")).to_be_visible()
    expect(staff.get_by_label(f"{name}, registration for 1 year")).to_be_checked()
    _staff_screenshot(staff, "refund-confirm")
    staff.get_by_role("button", name="Yes, refund the ticked lines").click()
    expect(staff.get_by_text(re.compile(r"^Refunded 1 line\(s\)"))).to_be_visible()

    # The customer's pages say so, and offer no renewal.
    page.goto(domain_page)
    expect(page.locator(".order-head .badge", has_text="Refunded")).to_be_visible()
    expect(page.get_by_text("The payment for this domain was refunded on")).to_be_visible()
    expect(page.get_by_text("This domain was refunded, so it cannot be renewed here.")).to_be_visible()
    expect(page.get_by_role("button", name=f"Review renewal of {name}")).to_have_count(0)
    expect(page.get_by_role("region", name="Auto-renew")).to_have_count(0)
    screenshot("refunded-domain")
    page.goto("/orders/")
    expect(page.get_by_role("row", name=re.compile(re.escape(name))).get_by_text("Refunded")).to_be_visible()
    screenshot("refunded-in-list")
    page.goto("/account/billing/")
    expect(page.locator(".doc-kind", has_text=re.compile(r"^Credit note \d+$"))).to_be_visible()
    check_accessibility(page)

    # The report's totals equal what the payment sandbox captured less what it refunded, to the cent.
    renewed = Payment.objects.get(lines__description__startswith=f"{name}, renewal")
    expected = _sandbox_net(stripe_sandbox, [bought, renewed])
    staff.goto("/admin/billing/ledgerentry/")
    staff.get_by_role("link", name="Revenue report").click()
    totals = staff.locator("#report-USD tfoot td")
    expect(totals.nth(3)).to_have_text(str(expected))  # net
    captured, refunded = Decimal(totals.nth(0).inner_text()), Decimal(totals.nth(1).inner_text())
    assert captured - refunded == expected
    assert refunded == bought.amount
    _staff_screenshot(staff, "revenue-report")
    staff.context.close()
