"""A payment in the customer's currency: charged in that currency's minor units, kept with the rate used, receipts
and credit notes in it, and the revenue report converting it back to the store's currency at its own rate."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from billing.ledger.lines import LineToPay
from billing.ledger.report import revenue_report, revenue_report_csv, revenue_report_text
from billing.models import Document, Payment, SaleCause
from billing.payments.refunds import refund_line
from billing.payments.services import payment_settle
from pricing.currencies import currency_table_forget
from pricing.models import Currency
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def currencies():
    currency_table_forget()
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    Currency.objects.create(code="JPY", enabled=True, rate=Decimal("150"), price_ending=Decimal(0))
    yield
    currency_table_forget()


def line(reference: str, price: Money, cost: str) -> LineToPay:
    return LineToPay(
        reference,
        f"{reference}, registration for 1 year",
        price,
        cause=SaleCause.REGISTRATION,
        tld=reference.rpartition(".")[2],
        cost=Money(Decimal(cost), price.currency),
    )


@pytest.fixture
def paid(start, stripe_sandbox, registrar, django_capture_on_commit_callbacks):
    def pay(*lines: LineToPay) -> Payment:
        started = start(lines=list(lines))
        stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
        with django_capture_on_commit_callbacks(execute=True):
            return payment_settle(session_id=started.payment.stripe_session_id)

    return pay


@pytest.mark.parametrize(
    ("price", "minor"),
    [(Money(Decimal("11.99"), "EUR"), 1199), (Money(Decimal("1967"), "JPY"), 1967)],
    ids=["EUR", "JPY"],
)
def test_stripe_is_asked_for_the_customers_currency_in_its_minor_units(start, stripe_sandbox, registrar, price, minor):
    started = start(lines=[line("example.de", price, "1")])
    session = stripe_sandbox.stored(started.payment.stripe_session_id)
    assert (session["amount_total"], session["currency"]) == (minor, price.currency.lower())
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert (payment.status, payment.currency, payment.amount_captured) == (
        Payment.Status.CAPTURED,
        price.currency,
        price.amount,
    )
    assert stripe_sandbox.stored(payment.stripe_payment_intent_id)["amount_received"] == minor


def test_a_payment_keeps_its_currency_and_rate_after_the_rate_changes(paid):
    payment = paid(line("example.de", Money(Decimal("11.99"), "EUR"), "9.00"))
    Currency.objects.filter(code="EUR").update(rate=Decimal("0.80"))
    currency_table_forget()
    payment.refresh_from_db()
    assert (payment.currency, payment.rate) == ("EUR", Decimal("0.92"))


def test_the_revenue_report_converts_each_payment_at_its_own_rate(paid, admin_client):
    usd = paid(line("one.com", Money(Decimal("12.99"), "USD"), "9.00"))
    paid(line("two.de", Money(Decimal("11.99"), "EUR"), "9.20"))  # at 0.92: 13.03 USD, cost 10.00
    Currency.objects.filter(code="EUR").update(rate=Decimal("0.50"))  # today's rate must not be used
    currency_table_forget()
    paid(line("three.de", Money(Decimal("5.00"), "EUR"), "2.50"))  # at 0.50: 10.00 USD, cost 5.00
    paid(line("four.jp", Money(Decimal("2000"), "JPY"), "1500"))  # at 150: 13.33 USD, cost 10.00

    report = revenue_report(month=usd.created_at.date())

    totals = {total.currency: total.captured for total in report.totals}
    assert totals == {"USD": Decimal("12.99"), "EUR": Decimal("16.99"), "JPY": Decimal("2000.00")}
    assert report.converted.currency == "USD"
    assert report.converted.captured == Decimal("12.99") + Decimal("13.03") + Decimal("10.00") + Decimal("13.33")
    assert report.converted.cost == Decimal("9.00") + Decimal("10.00") + Decimal("5.00") + Decimal("10.00")
    assert report.unconverted == ()
    assert "In USD (each payment at its own rate): captured 49.35" in revenue_report_text(report)
    assert ",CONVERTED,,49.35," in revenue_report_csv(report)

    page = admin_client.get(reverse("admin:billing_revenue_report"), {"month": f"{usd.created_at:%Y-%m}"})
    text = page.content.decode()
    assert 'id="report-converted"' in text and "49.35" in text
    assert 'id="report-EUR"' in text and 'id="report-JPY"' in text  # the original currencies' totals too

    euro = Payment.objects.get(lines__reference="two.de")
    assert "1 USD = 0.920000 EUR" in admin_client.get(f"/admin/billing/payment/{euro.pk}/change/").content.decode()
    ledger = admin_client.get("/admin/billing/ledgerentry/").content.decode()
    assert "1 USD = 0.920000 EUR" in ledger and "1 USD = 0.500000 EUR" in ledger


def test_the_receipt_and_the_credit_note_are_in_the_payments_currency(
    paid, customer, django_capture_on_commit_callbacks
):
    payment = paid(
        line("example.de", Money(Decimal("11.99"), "EUR"), "9.00"),
        line("other.de", Money(Decimal("5.99"), "EUR"), "4.00"),
    )
    receipt = payment.receipt
    assert (receipt.currency, receipt.amount) == ("EUR", Decimal("17.98"))
    with django_capture_on_commit_callbacks(execute=True):
        refunded = refund_line(line=payment.lines.get(reference="other.de"))
    note = Document.objects.get(kind=Document.Kind.CREDIT_NOTE, refund_id=refunded.stripe_refund_id)
    assert (note.currency, note.amount) == ("EUR", Decimal("5.99"))

    client = Client()
    client.force_login(customer.user)
    page = client.get(f"/payments/receipts/{receipt.number}/").content.decode()
    assert "€17.98" in page and "€11.99" in page and "$" not in page.split("<main", 1)[1]
    spanish = client.get(f"/payments/receipts/{receipt.number}/", headers={"accept-language": "es"}).content.decode()
    assert "17,98\xa0€" in spanish


def test_the_converted_revenue_leaves_the_tax_out(paid, customer):
    from pricing.models import TaxRate, TaxRegistration

    TaxRegistration.objects.create(country="IE", tax_id="IE6388047V", name="Example Domains Ltd")
    TaxRate.objects.create(country=customer.country, rate=Decimal(10), label="VAT")
    first = paid(line("taxed.de", Money(Decimal("10.00"), "EUR"), "5.00"))  # + 1.00 tax, at 0.92: 11.96 USD
    assert first.amount_captured == Decimal("11.00")
    report = revenue_report(month=first.created_at.date())
    converted = report.converted
    assert converted is not None
    # 11.00 EUR taken, 1.00 EUR of it tax: 1.09 USD of tax, never revenue or margin.
    assert (converted.captured, converted.tax_captured) == (Decimal("11.96"), Decimal("1.09"))
    assert converted.revenue == Decimal("11.96") - Decimal("1.09")
