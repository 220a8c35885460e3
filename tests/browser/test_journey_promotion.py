"""Journey: a customer types a launch code in the cart, sees its discount on the line (list price, discount, price
after it) in the cart and the checkout review, adds WHOIS privacy, pays the discounted price, the confirmation page
shows each line at what was charged for it (adding up to the total charged), and the receipt names the code."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from billing.models import Payment
from pricing.models import Promotion, PromotionKind, PromotionScope
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    eventually,
    new_person,
    pay_by_card,
    search_page,
    sign_up,
    unique_label,
    wait_for_htmx,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_launch_code_is_shown_on_the_line_charged_after_it_and_named_on_the_receipt(
    page: Page, screenshot, stripe_sandbox, live_server
):
    Promotion.objects.create(
        code="LAUNCH10",
        kind=PromotionKind.PERCENT,
        value=Decimal("10"),
        applies_to=PromotionScope.REGISTER,
        tlds="com",
        starts_at=timezone.now() - dt.timedelta(days=1),
    )
    stripe_sandbox.setup(webhook_url=f"{live_server.url}/payments/stripe/webhook/")
    sign_up(page, new_person())
    name = f"{unique_label('launch')}.com"
    search_page(page, name)
    add_to_cart(page, name)

    page.goto("/cart/")
    page.get_by_label("Promotion code").fill("nope")
    page.get_by_role("button", name="Apply").click()
    wait_for_htmx(page)
    expect(page.get_by_text("We don't know the code NOPE.")).to_be_visible()
    page.get_by_label("Promotion code").fill("launch10")
    page.get_by_role("button", name="Apply").click()
    wait_for_htmx(page)
    expect(page.get_by_text("Promotion code LAUNCH10 applied.")).to_be_visible()
    expect(page.get_by_text("Code LAUNCH10", exact=True)).to_be_visible()
    check_accessibility(page)
    screenshot("promotion-cart")

    page.goto("/checkout/")
    expect(page.get_by_text("Promotion code LAUNCH10 applied before tax.")).to_be_visible()
    page.get_by_role("checkbox", name=re.compile(r"^Add WHOIS privacy for 1 year: \$6\.49")).check()
    page.get_by_role("button", name=f"Update WHOIS privacy of {name}").click()
    expect(page.get_by_role("checkbox", name=re.compile(r"^WHOIS privacy for 1 year: \$6\.49"))).to_be_checked()
    check_accessibility(page)
    screenshot("promotion-checkout")
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Pay \d+\.\d\d USD$"))).to_be_visible()
    pay_by_card(page)
    expect(page.get_by_text("Done: 1 domain registered")).to_be_visible()
    check_accessibility(page)

    payment = Payment.objects.get()
    line = payment.lines.get(reference=name)
    assert line.discount is not None and line.list_amount is not None
    assert line.amount == line.list_amount - line.discount
    # The confirmation page: the domain at its price after the code, its privacy line, and a total that is their sum
    # and what the sandbox captured (shown once the capture is made: the page is opened again then).
    eventually(lambda: Payment.objects.get(pk=payment.pk).status == Payment.Status.CAPTURED, what="the capture")
    page.reload()
    outcome = page.locator(".outcome-line").filter(has_text=name)
    expect(outcome).to_contain_text(f"${line.amount}")
    expect(outcome).not_to_contain_text(f"· ${line.list_amount}")
    expect(outcome).to_contain_text("WHOIS privacy: $6.49")
    charged = line.amount + Decimal("6.49")
    expect(page.get_by_text(f"Charged ${charged}.")).to_be_visible()
    assert stripe_sandbox.stored(payment.stripe_payment_intent_id)["amount_received"] == int(charged * 100)
    screenshot("promotion-done")
    receipt = payment.receipt
    assert receipt is not None
    page.goto(f"/payments/receipts/{receipt.number}/")
    expect(page.get_by_text(re.compile(r"Promotion code LAUNCH10: list price \$\d+\.\d\d, discount"))).to_be_visible()
    check_accessibility(page)
    screenshot("promotion-receipt")
