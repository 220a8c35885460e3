"""Journey: a customer's card is declined on the payment page, the good card goes through, the domain is registered,
captured once (the return and the sandbox's duplicated webhooks race), and the receipt prints, downloads as a PDF and
is emailed; staff refund the line, and the credit note shows on the customer's Billing page beside the receipt."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from billing.models import Document, Payment
from billing.payments.refunds import refund_line
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    email_arrived,
    eventually,
    new_person,
    pay_by_card,
    search_page,
    sign_up,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_declined_card_then_the_good_card_registers_the_domain_and_prints_a_receipt(
    page: Page, screenshot, stripe_sandbox, live_server, settings
):
    settings.STORE_LEGAL_NAME = "Example Domains Ltd"
    settings.STORE_LEGAL_ADDRESS = "1 Harbour Street\nBristol BS1 4AA\nUnited Kingdom"
    stripe_sandbox.setup(webhook_url=f"{live_server.url}/payments/stripe/webhook/", webhook_delivery="duplicated")
    sign_up(page, new_person())
    name = f"{unique_label('paid')}.com"
    search_page(page, name)
    add_to_cart(page, name)
    page.goto("/checkout/")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()

    expect(page.get_by_role("heading", name=re.compile(r"^Pay \d+\.\d\d USD$"))).to_be_visible()
    expect(page.get_by_text(f"{name}, registration for 1 year")).to_be_visible()
    pay_by_card(page, "4000 0000 0000 0002")
    expect(page.get_by_role("alert")).to_have_text("Your card was declined.")
    screenshot("pay-declined")

    pay_by_card(page)
    expect(page.get_by_role("heading", name="Your order")).to_be_visible()
    expect(page.get_by_text("Done: 1 domain registered")).to_be_visible()
    screenshot("pay-done")

    payment = Payment.objects.get()
    eventually(
        lambda: all(e.deliveries == 2 for e in stripe_sandbox.events(type="checkout.session.completed")),
        what="the webhook deliveries",
    )
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    assert len(stripe_sandbox.captures()) == 1

    receipt = payment.receipt
    assert receipt is not None
    number = receipt.number
    email_arrived(f"Your receipt {number} ")  # sent by the webhook's thread once the capture has committed
    page.goto("/mailbox/")
    expect(page.get_by_text(f"Your receipt {number} from Example Domains Ltd")).to_have_count(1)
    check_accessibility(page)

    page.goto("/account/")
    check_accessibility(page)
    page.get_by_role("link", name="Receipts and credit notes").click()
    expect(page.get_by_role("heading", name="Billing", exact=True)).to_be_visible()
    page.get_by_role("link", name=f"View receipt {number}").click()
    expect(page.get_by_role("heading", name=f"Receipt {number}")).to_be_visible()
    expect(page.get_by_text(f"{name}, registration for 1 year")).to_be_visible()
    expect(page.get_by_role("main").get_by_text("Example Domains Ltd")).to_be_visible()
    screenshot("pay-receipt")
    # The same receipt as a PDF file, for the customer's records or their accountant.
    with page.expect_download() as downloading:
        page.get_by_role("link", name="Download PDF").click()
    download = downloading.value
    assert download.suggested_filename == f"receipt-{number}.pdf"
    pdf = PdfReader(download.path())
    text = " ".join(" ".join(pdf_page.extract_text().split()) for pdf_page in pdf.pages)
    assert f"Receipt {number}" in text and f"{name}, registration for 1 year" in text
    assert "Example Domains Ltd" in text

    # Staff refund the line (the admin's action calls this): the customer gets a credit note.
    line = refund_line(line=payment.lines.get())
    note = Document.objects.get(kind=Document.Kind.CREDIT_NOTE, refund_id=line.stripe_refund_id)
    page.goto("/account/billing/")
    # The list's own words (each row's View link repeats them for screen readers, hidden on screen).
    expect(page.locator(".doc-kind", has_text=re.compile(rf"^Credit note {note.number}$"))).to_be_visible()
    expect(page.locator(".doc-kind", has_text=re.compile(rf"^Receipt {number}$"))).to_be_visible()
    screenshot("billing-page")
    page.get_by_role("link", name=f"View credit note {note.number}").click()
    expect(page.get_by_role("heading", name=f"Credit note {note.number}")).to_be_visible()
    expect(page.get_by_text("Total refunded (USD)")).to_be_visible()
    screenshot("credit-note")
    page.emulate_media(media="print")
    expect(page.get_by_role("button", name="Print")).to_be_hidden()
    screenshot("credit-note-print")
    page.goto(f"/payments/receipts/{number}/")
    expect(page.get_by_text(f"Refunded: credit note {note.number}")).to_be_visible()
    screenshot("receipt-refunded-print")
    page.emulate_media(media="screen")
    email_arrived(f"Your credit note {note.number} ")
    page.goto("/mailbox/")
    expect(page.get_by_text(f"Your credit note {note.number} from Example Domains Ltd")).to_have_count(1)
    check_accessibility(page)
