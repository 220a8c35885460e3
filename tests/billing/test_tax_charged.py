"""Tax as the customer is charged it and as the books keep it: the legal rules end to end, through the payment
sandbox (its Checkout Sessions carry the tax), the receipt and credit note, the ledger and the tax report."""

from __future__ import annotations

import io
import uuid
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from billing.ledger.books import ledger_figures
from billing.ledger.lines import LineToPay
from billing.ledger.tax_report import tax_report, tax_report_csv
from billing.models import Document, LedgerEntry
from billing.payments.refunds import refund_line
from billing.payments.services import payment_charge_saved, payment_settle
from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db

EUR_LINES = [
    LineToPay("example.com", "example.com, register 1 year", Money(Decimal("12.99"), "EUR"), {"years": 1}),
    LineToPay("example.net", "example.net, register 2 years", Money(Decimal("25.00"), "EUR"), {"years": 2}),
]
WORDING = "Reverse charge: VAT to be accounted for by the recipient, Article 196 of Council Directive 2006/112/EC."


@pytest.fixture
def german_store(db):
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="DE", rate=Decimal(19), label="VAT")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")


@pytest.fixture
def pay(start, stripe_sandbox, registrar, django_capture_on_commit_callbacks):
    def paid(lines=EUR_LINES):
        started = start(lines=lines)
        assert stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD) == "authorised"
        with django_capture_on_commit_callbacks(execute=True):
            return payment_settle(session_id=started.payment.stripe_session_id), started

    return paid


def _as(customer, country: str, number: str = "") -> None:
    customer.country = country
    customer.is_business = bool(number)
    customer.tax_number = number
    customer.save()


def _page(customer, url: str) -> str:
    client = Client()
    client.force_login(customer.user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_an_eu_consumer_pays_their_countrys_rate_at_stripe_and_on_the_receipt(
    german_store, pay, customer, stripe_sandbox
):
    _as(customer, "FR")
    payment, _ = pay()
    # 12.99 x 20% = 2.598 → 2.60; 25.00 x 20% = 5.00; charged 45.59.
    assert [(line.amount, line.tax_amount, line.tax_rate) for line in payment.lines.all()] == [
        (Decimal("12.99"), Decimal("2.60"), Decimal(20)),
        (Decimal("25.00"), Decimal("5.00"), Decimal(20)),
    ]
    assert (payment.amount, payment.amount_captured) == (Decimal("45.59"), Decimal("45.59"))
    session = stripe_sandbox.stored(payment.stripe_session_id)
    assert (session["amount_subtotal"], session["total_details"]["amount_tax"], session["amount_total"]) == (
        3799,
        760,
        4559,
    )
    page = _page(customer, f"/payments/receipts/{payment.receipt.number}/")
    assert "incl. VAT 20%: €2.60" in page and "incl. VAT 20%: €5.00" in page
    assert "Total before tax" in page and "€37.99" in page and "€7.60" in page and "€45.59" in page
    assert "DE136695976" in page  # the store's number, on every receipt
    assert "Reverse charge" not in page


def test_an_eu_business_in_another_member_state_is_reverse_charged_with_the_wording(
    german_store, pay, customer, stripe_sandbox
):
    _as(customer, "FR", "FR40303265045")
    payment, _ = pay()
    assert payment.amount == Decimal("37.99")
    assert all(line.reverse_charge and line.tax_amount == 0 for line in payment.lines.all())
    session = stripe_sandbox.stored(payment.stripe_session_id)
    assert (session["total_details"]["amount_tax"], session["amount_total"]) == (0, 3799)
    page = _page(customer, f"/payments/receipts/{payment.receipt.number}/")
    assert WORDING in page
    assert "DE136695976" in page and "FR40303265045" in page  # both VAT numbers
    assert "VAT 0% (reverse charge)" in page


def test_a_business_in_the_stores_own_country_is_charged_vat(german_store, pay, customer):
    _as(customer, "DE", "DE136695976")
    payment, _ = pay()
    assert payment.amount == Decimal("45.21")  # 12.99 + 2.47, 25.00 + 4.75
    assert not payment.reverse_charge
    assert WORDING not in _page(customer, f"/payments/receipts/{payment.receipt.number}/")


def test_prices_shown_with_tax_are_charged_as_shown(german_store, pay, customer, stripe_sandbox, settings):
    settings.PRICES_INCLUDE_TAX = True
    _as(customer, "FR")
    payment, _ = pay()
    assert payment.amount == Decimal("37.99")  # what the customer was shown
    assert [(line.amount, line.tax_amount) for line in payment.lines.all()] == [
        (Decimal("10.82"), Decimal("2.17")),  # 12.99 x 20/120 = 2.165 → 2.17
        (Decimal("20.83"), Decimal("4.17")),
    ]
    session = stripe_sandbox.stored(payment.stripe_session_id)
    assert (session["total_details"]["amount_tax"], session["amount_total"]) == (634, 3799)


def test_a_refund_returns_its_lines_tax_on_the_credit_note_and_in_the_tax_report(
    german_store, pay, customer, stripe_sandbox, django_capture_on_commit_callbacks
):
    _as(customer, "FR")
    payment, _ = pay()
    with django_capture_on_commit_callbacks(execute=True):
        line = refund_line(line=payment.lines.get(reference="example.com"))
    refund = stripe_sandbox.stored(line.stripe_refund_id)
    assert refund["amount"] == 1559  # the line and its tax
    note = Document.objects.get(kind=Document.Kind.CREDIT_NOTE, refund_id=line.stripe_refund_id)
    assert note.amount == Decimal("15.59")
    page = _page(customer, f"/payments/credit-notes/{note.number}/")
    assert "incl. VAT 20%: €2.60" in page and "Total before tax" in page and "€12.99" in page
    report = tax_report(month=timezone.localdate())
    [row] = report.rows
    assert (row.country, row.currency, row.rate) == ("FR", "EUR", Decimal(20))
    assert (row.sales, row.collected, row.refunded, row.net) == (
        Decimal("25.00"),
        Decimal("7.60"),
        Decimal("2.60"),
        Decimal("5.00"),
    )
    assert "FR,EUR,VAT,20,no,25.00,7.60,2.60,5.00" in tax_report_csv(report)


def test_reverse_charged_sales_are_listed_at_zero_tax_beside_taxed_ones(german_store, pay, customer, other_customer):
    _as(customer, "FR", "FR40303265045")
    pay()
    report = tax_report(month=timezone.localdate())
    [row] = report.rows
    assert (row.country, row.reverse_charge, row.sales, row.collected) == ("FR", True, Decimal("37.99"), Decimal(0))


def test_tax_is_never_counted_as_revenue(german_store, pay, customer):
    _as(customer, "FR")
    pay()
    [total] = ledger_figures(group_by=())
    assert total.net == Decimal("45.59")  # what Stripe holds, to the cent
    assert (total.tax, total.revenue) == (Decimal("7.60"), Decimal("37.99"))
    assert total.margin == total.revenue - total.cost
    captures = LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CAPTURE).order_by("line__position")
    assert [(entry.amount, entry.tax) for entry in captures] == [
        (Decimal("15.59"), Decimal("2.60")),
        (Decimal("30.00"), Decimal("5.00")),
    ]


def test_a_saved_card_charge_carries_the_tax(german_store, start, stripe_sandbox, registrar, customer):
    _as(customer, "FR")
    first = start(lines=EUR_LINES[1:])
    assert stripe_sandbox.pay(first.payment.stripe_session_id, GOOD_CARD) == "authorised"
    payment_settle(session_id=first.payment.stripe_session_id)
    renewal = payment_charge_saved(customer=customer, lines=EUR_LINES[:1], checkout_id=uuid.uuid4())
    assert (renewal.amount, renewal.amount_captured, renewal.tax_total) == (
        Decimal("15.59"),
        Decimal("15.59"),
        Money(Decimal("2.60"), "EUR"),
    )
    assert stripe_sandbox.stored(renewal.stripe_payment_intent_id)["amount_received"] == 1559


@pytest.fixture
def staff() -> Client:
    user = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#Pass9")
    client = Client()
    client.force_login(user)
    return client


def test_staff_read_the_tax_report_and_download_its_csv(german_store, pay, customer, staff):
    _as(customer, "FR")
    pay()
    page = staff.get("/admin/billing/ledgerentry/tax-report/")
    assert page.status_code == 200
    text = page.content.decode()
    assert '<th scope="row">FR</th>' in text and "7.60" in text and "37.99" in text
    csv = staff.get("/admin/billing/ledgerentry/tax-report/", {"format": "csv"})
    assert csv["Content-Disposition"].startswith('attachment; filename="tax-')
    assert ",FR,EUR,VAT,20,no,37.99,7.60,0.00,7.60" in csv.content.decode()
    assert "Tax report" in staff.get("/admin/billing/ledgerentry/").content.decode()
    revenue = staff.get("/admin/billing/ledgerentry/report/").content.decode()
    assert '<th scope="col">Tax</th>' in revenue and '<th scope="col">Revenue</th>' in revenue


def test_the_receipt_pdf_and_the_spanish_receipt_carry_the_reverse_charge(german_store, pay, customer):
    _as(customer, "FR", "FR40303265045")
    payment, _ = pay()
    receipt = payment.receipt
    assert receipt is not None
    client = Client()
    client.force_login(customer.user)
    pdf = client.get(f"/payments/receipts/{receipt.number}/pdf/").content
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "Article 196 of Council Directive 2006/112/EC" in text
    assert "DE136695976" in text and "FR40303265045" in text
    spanish = client.get(f"/payments/receipts/{receipt.number}/", headers={"accept-language": "es"})
    page = spanish.content.decode()
    assert "Inversión del sujeto pasivo" in page and "Tu número de IVA" in page
