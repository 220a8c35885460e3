"""Journey: a domain is registered but its payment's hold lapses before it is captured (the provider's answer was
lost, and the week ran out while it was being confirmed); the saved card is declined, so the customer is emailed a
payment link and the domain's page asks for the payment; they pay it there, and the receipt follows."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from playwright.sync_api import Page, expect

from billing.models import Payment, PaymentLine
from domains.checkout.tasks import reconcile_registrations
from storefront.gateway import gateway
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    email_arrived,
    eventually,
    new_person,
    pay_by_card,
    provider_hangs,
    search_page,
    sign_up,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_registered_domain_whose_hold_lapsed_is_paid_through_its_link(
    page: Page, screenshot, stripe_sandbox, live_server
):
    stripe_sandbox.setup(webhook_url=f"{live_server.url}/payments/stripe/webhook/")
    sign_up(page, new_person())
    name = f"{unique_label('lapsed')}.com"
    search_page(page, name)
    add_to_cart(page, name)
    page.goto("/checkout/")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    page.get_by_label("Card number").fill("4242 4242 4242 4242")
    # The provider registers the domain, and its answer never arrives; nor can the order listing be read (it hangs
    # too) for the rest of the week: nothing tells the store the domain was registered, and the hold waits.
    with provider_hangs(hang_after_commit=True, scope="register,orders"):
        cache.clear()
        gateway.cache_clear()
        page.get_by_role("button", name=re.compile(r"^Pay ")).click()
        expect(page.get_by_role("heading", name="Your order")).to_be_visible()
        check_accessibility(page)
        payment = Payment.objects.get()
        eventually(lambda: Payment.objects.get().status == Payment.Status.AUTHORISED, what="the payment's events")

        # The week runs out before the line is confirmed; the saved card is declined when it is tried.
        stripe_sandbox.setup(decline_all_cards=True)
        payment.refresh_from_db()
        assert payment.capture_before is not None  # read from the charge
        stripe_sandbox.move_clock_to(int(payment.capture_before.timestamp()) + 1)
        eventually(lambda: Payment.objects.get().status == Payment.Status.UNPAID, what="the lapse's events")
    gateway.cache_clear()
    # The reconcile job (every 5 minutes) runs until the order listing answers (on a loaded machine a run may time
    # out asking it): the domain is registered, and so owed; the saved card is tried once, and declined.
    eventually(lambda: _reconciled(payment), what="the reconcile job settling the line")
    # The one try on the saved card is made by whichever door gets there first: the reconcile, or the webhook's
    # worker (the live server's thread) still processing the lapse's events, whose try may end a moment later.
    eventually(lambda: Payment.objects.get().collection_failure_code == "card_declined", what="the saved card's try")
    payment.refresh_from_db()
    assert payment.status == Payment.Status.UNPAID

    email_arrived("Payment due: ")  # sent once the declined try has committed, a moment after it can be read
    page.goto("/mailbox/")
    expect(page.get_by_text(re.compile(r"^Payment due: \$\d+\.\d\d for your order at "))).to_have_count(1)
    page.goto("/orders/")
    check_accessibility(page)
    page.get_by_role("link", name=name, exact=True).click()
    due = page.locator("#payment-due")
    expect(due).to_contain_text(re.compile(r"Payment due: \$\d+\.\d\d\."))
    screenshot("payment-due-domain")
    page.goto("/account/billing/")
    expect(page.get_by_role("alert")).to_contain_text("Payment due")
    screenshot("payment-due-billing")

    stripe_sandbox.setup(decline_all_cards=False)
    page.get_by_role("link", name="Pay now").click()
    expect(page.get_by_role("heading", name=re.compile(r"^Pay \d+\.\d\d USD$"))).to_be_visible()
    pay_by_card(page)
    expect(page.get_by_role("heading", name="Billing", exact=True)).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Thank you"))).to_be_visible()  # complete, or being confirmed
    eventually(lambda: Payment.objects.get().status == Payment.Status.CAPTURED, what="the payment sandbox's events")
    page.reload()
    expect(page.locator(".doc-kind", has_text=re.compile(r"^Receipt \d+$"))).to_be_visible()
    expect(page.get_by_text("Payment due")).to_have_count(0)
    screenshot("payment-due-paid")
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, payment.amount)


def _reconciled(payment: Payment) -> bool:
    reconcile_registrations.enqueue()
    return not payment.lines.filter(status=PaymentLine.Status.UNKNOWN).exists()
