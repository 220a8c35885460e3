"""Journey (issue 31's): a store registered for VAT in Ireland sells in euros with a launch code. A German business
with its VAT number and a French consumer buy the same name (under .com and .net) with the code: the business is
reverse-charged (the Article 196 wording and both VAT numbers on its receipt), the consumer pays the French rate
on the price after the discount; both receipts, read as PDF files, say so in euros, and staff find both in the
month's tax report."""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from billing.models import Payment
from pricing.currencies import currency_table_forget
from pricing.models import Currency, Promotion, PromotionKind, PromotionScope, TaxRate, TaxRegistration
from pricing.quotes import display_price_book_forget
from tests.browser.conftest import SCREENSHOTS
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    new_person,
    pay_by_card,
    search_page,
    sign_up,
    unique_label,
    wait_for_htmx,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STORE_VAT = "IE6388047V"
GERMAN_VAT = "DE136695976"


def _store() -> None:
    TaxRegistration.objects.create(country="IE", tax_id=STORE_VAT, name="Example Domains Ltd")
    for country, rate in (("IE", 23), ("DE", 19), ("FR", 20)):
        TaxRate.objects.create(country=country, rate=Decimal(rate), label="VAT")
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    Promotion.objects.create(
        code="LAUNCH10",
        kind=PromotionKind.PERCENT,
        value=Decimal("10"),
        applies_to=PromotionScope.REGISTER,
        starts_at=timezone.now() - dt.timedelta(days=1),
    )
    currency_table_forget()
    display_price_book_forget()


def _buy_with_the_code(page: Page, name: str) -> Payment:
    search_page(page, name)
    add_to_cart(page, name)
    page.goto("/cart/")
    page.get_by_label("Promotion code").fill("launch10")
    page.get_by_role("button", name="Apply").click()
    wait_for_htmx(page)
    expect(page.get_by_text("Promotion code LAUNCH10 applied.")).to_be_visible()
    expect(page.get_by_role("main")).not_to_contain_text("$")  # the customer's currency, chosen by their country
    check_accessibility(page)
    page.goto("/checkout/")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Pay \d+\.\d\d EUR$"))).to_be_visible()
    pay_by_card(page)
    expect(page.get_by_text("Done: 1 domain registered")).to_be_visible()
    check_accessibility(page)
    return Payment.objects.get(lines__reference__startswith=name)


def _receipt_pdf(page: Page, payment: Payment) -> str:
    receipt = payment.receipt
    assert receipt is not None
    page.goto(f"/payments/receipts/{receipt.number}/")
    expect(page.get_by_role("heading", name=f"Receipt {receipt.number}")).to_be_visible()
    check_accessibility(page)
    with page.expect_download() as downloading:
        page.get_by_role("link", name="Download PDF").click()
    pdf = PdfReader(downloading.value.path())
    return " ".join(" ".join(pdf_page.extract_text().split()) for pdf_page in pdf.pages)


def test_a_german_business_and_a_french_consumer_buy_with_a_launch_code_in_euros(
    page: Page, screenshot, stripe_sandbox, live_server
):
    _store()
    stripe_sandbox.setup(webhook_url=f"{live_server.url}/payments/stripe/webhook/")
    label = unique_label("eulaunch")

    # The German business: signs up (euros, by its country), gives its VAT number, buys the .com with the code.
    business = new_person(
        name="Anna Schmidt",
        address="Leopoldstraße 12",
        city="München",
        zipcode="80802",
        country="Germany",
        state="Bayern",
        dial_code="49",
        phone="8912345678",
    )
    sign_up(page, business)
    page.goto("/account/tax/")
    page.get_by_label("I buy as a business").check()
    page.get_by_label("VAT or GST number").fill(GERMAN_VAT)
    page.get_by_role("button", name="Save tax details").click()
    expect(page.get_by_text("Your tax details were saved.")).to_be_visible()
    check_accessibility(page)
    paid = _buy_with_the_code(page, f"{label}.com")
    [line] = paid.lines.all()
    assert line.list_amount is not None and line.discount is not None  # the code touched the line
    assert paid.currency == "EUR" and paid.reverse_charge and paid.tax_total.is_zero
    assert line.discount == (line.list_amount * Decimal("0.10")).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert paid.amount_captured == line.amount == line.list_amount - line.discount
    text = _receipt_pdf(page, paid)
    screenshot("eu-launch-business-receipt")
    assert "Article 196 of Council Directive 2006/112/EC" in text
    assert STORE_VAT in text and GERMAN_VAT in text
    assert "LAUNCH10" in text and f"€{paid.amount_captured}" in text

    # The French consumer, in a browser of their own: the same name under .net, the French rate on the price after
    # the discount.
    page.context.clear_cookies()
    consumer = new_person(
        name="Élodie Martin",
        address="8 rue de Rivoli",
        city="Paris",
        zipcode="75001",
        country="France",
        state="Ile-de-France",
        dial_code="33",
        phone="612345678",
    )
    sign_up(page, consumer)
    paid_fr = _buy_with_the_code(page, f"{label}.net")
    [line_fr] = paid_fr.lines.all()
    assert line_fr.list_amount is not None and line_fr.discount is not None
    assert paid_fr.currency == "EUR" and not paid_fr.reverse_charge
    assert line_fr.amount == line_fr.list_amount - line_fr.discount
    assert line_fr.tax_amount == (line_fr.amount * Decimal("0.20")).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert paid_fr.amount_captured == line_fr.amount + line_fr.tax_amount
    text = _receipt_pdf(page, paid_fr)
    screenshot("eu-launch-consumer-receipt")
    assert f"VAT 20%: €{line_fr.tax_amount}" in text and STORE_VAT in text
    assert "LAUNCH10" in text and f"€{paid_fr.amount_captured}" in text
    assert "Article 196" not in text

    # Staff: the month's tax report lists the German sale reverse-charged at 0 and the French one with its VAT.
    staff = get_user_model().objects.create_superuser("tax-desk@example.org", "tax-desk@example.org", "Tax#Desk31")
    client = Client()
    client.force_login(staff)
    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.goto(reverse("admin:billing_tax_report"))
    rows = page.locator("#tax-report tbody tr")
    german = rows.filter(has=page.get_by_role("rowheader", name="DE", exact=True))
    expect(german).to_contain_text("Reverse charge")
    expect(german).to_contain_text(f"{line.amount}")
    french = rows.filter(has=page.get_by_role("rowheader", name="FR", exact=True))
    expect(french).to_contain_text("VAT")
    expect(french).to_contain_text(f"{line_fr.tax_amount}")
    expect(rows.filter(has_text="EUR")).to_have_count(2)
    check_accessibility(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "eu-launch-tax-report-desktop.png"), full_page=True)
