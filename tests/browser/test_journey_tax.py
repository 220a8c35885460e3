"""Journey: a French customer buying for a business gives a VAT number (a mistyped one is refused, what was typed
kept), sees "VAT 0% (reverse charge)" in the cart and at checkout, pays, and the receipt carries the Article 196
wording and both VAT numbers; buying again as a consumer, the French rate is added per line and in total, charged at
the payment page, and printed on the receipt. Screenshots at 1280x800 and 390x844 into /tmp/shots-tax/."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import Customer
from billing.models import Payment
from pricing.models import TaxRate, TaxRegistration
from tests.browser.conftest import SHOT_SIZES
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
SHOTS = Path("/tmp/shots-tax")


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size_name, size in SHOT_SIZES.items():
        resize(page, size)
        page.screenshot(path=str(SHOTS / f"{name}-{size_name}.png"), full_page=True)
        if "/stripe/" not in page.url:  # the payment sandbox's page is Stripe's, not ours to check
            check_accessibility(page, where=f"({size_name})")
        if size_name == "phone" and "/stripe/" not in page.url:
            width = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert width <= 0, f"{name} is wider than a phone"
    page.set_viewport_size(SHOT_SIZES["desktop"])


def _pay(page: Page) -> None:
    pay_by_card(page)
    expect(page.get_by_role("heading", name="Your order")).to_be_visible()
    check_accessibility(page)


def _to_receipt(page: Page, payment: Payment) -> None:
    receipt = payment.receipt
    assert receipt is not None
    page.goto(f"/payments/receipts/{receipt.number}/")
    expect(page.get_by_role("heading", name=f"Receipt {receipt.number}")).to_be_visible()


def test_a_business_is_reverse_charged_and_a_consumer_pays_their_countrys_vat(page: Page, stripe_sandbox, settings):
    settings.STORE_LEGAL_NAME = "Beispiel Domains GmbH"
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")
    TaxRate.objects.create(country="DE", rate=Decimal(19), label="VAT")
    person = new_person()
    sign_up(page, person)
    # The contact's country decides the rate; this customer lives in France (changing the country through the
    # contact form is that form's own journey).
    Customer.objects.filter(user__email=person.email).update(country="FR", state="Paris")

    page.goto("/account/tax/")
    page.get_by_label("I buy as a business").check()
    page.get_by_label("VAT or GST number").fill("FR41303265045")
    page.get_by_role("button", name="Save tax details").click()
    expect(page.get_by_text("This is not a valid VAT or GST number for France")).to_be_visible()
    expect(page.get_by_label("VAT or GST number")).to_have_value("FR41303265045")
    _shot(page, "tax-number-refused")
    page.get_by_label("VAT or GST number").fill("FR 40 303 265 045")
    page.get_by_role("button", name="Save tax details").click()
    expect(page.get_by_text("Your tax details were saved.")).to_be_visible()

    business = f"{unique_label('vat')}.com"
    search_page(page, business)
    add_to_cart(page, business)
    page.goto("/cart/")
    expect(page.get_by_text("VAT 0% (reverse charge)").first).to_be_visible()
    _shot(page, "cart-reverse-charge")
    page.goto("/checkout/")
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    _pay(page)
    payment = Payment.objects.get()
    assert payment.tax_total.is_zero and payment.reverse_charge
    _to_receipt(page, payment)
    expect(page.get_by_text(re.compile("Article 196 of Council Directive 2006/112/EC"))).to_be_visible()
    expect(page.get_by_text("DE136695976")).to_be_visible()
    expect(page.get_by_text("FR40303265045")).to_be_visible()
    _shot(page, "receipt-reverse-charge")

    page.goto("/account/tax/")
    page.get_by_label("I buy as a business").uncheck()
    page.get_by_role("button", name="Save tax details").click()
    consumer = f"{unique_label('oss')}.com"
    search_page(page, consumer)
    add_to_cart(page, consumer)
    page.goto("/cart/")
    expect(page.get_by_text(re.compile(r"^\+ VAT 20%: \$")).first).to_be_visible()
    expect(page.get_by_text("Total to pay")).to_be_visible()
    _shot(page, "cart-vat")
    page.goto("/checkout/")
    expect(page.get_by_text(re.compile(r"^\+ VAT 20%: \$")).first).to_be_visible()
    _shot(page, "checkout-vat")
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    second = Payment.objects.exclude(pk=payment.pk).get()
    expect(page.get_by_role("heading", name=f"Pay {second.amount} USD")).to_be_visible()
    _shot(page, "payment-page-vat")
    _pay(page)
    second.refresh_from_db()
    [line] = second.lines.all()
    assert line.tax_amount == (line.amount * Decimal("0.2")).quantize(Decimal("0.01")) and line.tax_amount > 0
    assert second.amount_captured == line.amount + line.tax_amount
    _to_receipt(page, second)
    expect(page.get_by_text(re.compile(r"incl\. VAT 20%: \$"))).to_be_visible()
    expect(page.get_by_text("Total before tax")).to_be_visible()
    _shot(page, "receipt-vat")
