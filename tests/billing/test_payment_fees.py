"""The payment service's fee in the books, against the payment sandbox: after a capture and a refund the worker reads
each balance transaction's fee from Stripe and books it once; the revenue report's net margin is captured less
refunded less fees less cost, to the cent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django_tasks import TaskResultStatus

from billing.ledger.report import revenue_report, revenue_report_csv, revenue_report_text
from billing.models import LedgerEntry, Payment, SaleCause
from billing.payment_fees import (
    book_missing_payment_fees,
    book_payment_fee,
    payment_fee_book,
    payment_fees_missing_book,
)
from billing.payments import stripe_client
from billing.payments.refunds import refund_line
from billing.tasks import reconcile_payments
from storefront.background.scheduler import jobs
from tests.billing.conftest import deliver
from tests.billing.test_month_in_the_sandbox import sale

pytestmark = pytest.mark.django_db
CENT = Decimal("0.01")


def sandbox_fees(stripe_sandbox, payment: Payment) -> dict[str, Decimal]:
    """The fee of every balance transaction of the payment's charge and refunds, as the payment sandbox has them."""
    charge = stripe_sandbox.stored(stripe_sandbox.stored(payment.stripe_payment_intent_id)["latest_charge"])
    ids = [charge["balance_transaction"]] + [refund["balance_transaction"] for refund in charge["refunds"]["data"]]
    return {txn_id: Decimal(stripe_sandbox.stored(txn_id)["fee"]) * CENT for txn_id in ids}


def ledger_fees(payment: Payment) -> dict[str, Decimal]:
    entries = LedgerEntry.objects.filter(payment=payment, kind=LedgerEntry.Kind.FEE)
    return {entry.source_id: entry.fee for entry in entries}


@pytest.fixture
def refunded(paid) -> Payment:
    """A purchase of two lines, captured, then one of them refunded by staff."""
    payment = paid([sale("alpha.com", "12.99", cost="9.00"), sale("beta.net", "25.00", cost="15.00")])
    assert payment.status == Payment.Status.CAPTURED
    refund_line(line=payment.lines.get(reference="alpha.com"))
    return Payment.objects.get(pk=payment.pk)


def test_the_fees_in_the_ledger_equal_the_sandboxs_balance_transactions(refunded, stripe_sandbox):
    stripe_fees = sandbox_fees(stripe_sandbox, refunded)
    assert ledger_fees(refunded) == stripe_fees
    # Stripe's 2.9 % + 0.30 of 37.99 on the charge; its fee is not given back on a refund.
    assert sorted(stripe_fees.values()) == [Decimal("0.00"), Decimal("1.40")]
    # A fee moves none of the customer's money: what the payment holds and was refunded are as before.
    assert (refunded.amount_captured, refunded.amount_refunded) == (Decimal("37.99"), Decimal("12.99"))


def test_the_reports_net_margin_is_captured_less_refunded_fees_and_cost_to_the_cent(refunded, stripe_sandbox):
    charge = stripe_sandbox.stored(stripe_sandbox.stored(refunded.stripe_payment_intent_id)["latest_charge"])
    captured = Decimal(charge["amount_captured"]) * CENT
    refunded_amount = Decimal(charge["amount_refunded"]) * CENT
    fees = sum(sandbox_fees(stripe_sandbox, refunded).values(), Decimal(0))
    cost = Decimal("24.00")
    report = revenue_report(month=refunded.created_at.date())
    [total] = report.totals
    assert (total.captured, total.refunded, total.fees, total.cost) == (captured, refunded_amount, fees, cost)
    assert total.net_margin == captured - refunded_amount - fees - cost == Decimal("-0.40")
    assert report.converted is not None and report.converted.net_margin == total.net_margin
    # The fee is on the line its movement concerns: the capture's first line (per TLD and kind).
    rows = {(row.tld, row.cause): row for row in report.rows}
    assert rows[("com", SaleCause.REGISTRATION)].fees == Decimal("1.40")
    assert "-0.40" in revenue_report_csv(report).splitlines()[-1]
    assert "net margin" in revenue_report_text(report)

    # Staff see gross, fees, cost and net margin in the admin's report and on the dashboard.
    staff = get_user_model().objects.create_superuser("ops@example.org", "ops@example.org", "Ops#Pass99")
    admin = Client()
    admin.force_login(staff)
    page = admin.get(f"/admin/billing/ledgerentry/report/?month={report.month:%Y-%m}").content.decode()
    assert "Fees" in page and "Net margin" in page and "1.40" in page and "-0.40" in page
    fees = admin.get("/admin/billing/ledgerentry/?kind=fee").content.decode()
    assert "Payment service&#x27;s fee" in fees and "1.40" in fees
    dashboard = admin.get("/admin/").content.decode()
    assert "Net margin" in dashboard and "-0.40" in dashboard


def test_a_duplicated_event_or_a_retried_task_writes_the_fee_once(refunded, stripe_sandbox):
    before = ledger_fees(refunded)
    # Every event delivered three times, the reconciler, and the tasks run again as a retry would.
    assert set(deliver(stripe_sandbox, times=3)) == {200}
    reconcile_payments.enqueue()
    for source_id in refunded.ledger_entries.exclude(kind=LedgerEntry.Kind.FEE).values_list("source_id", flat=True):
        book_payment_fee.enqueue(payment_id=refunded.pk, source_id=source_id)
        payment_fee_book(payment=refunded, source_id=source_id)
    assert ledger_fees(refunded) == before
    assert LedgerEntry.objects.filter(payment=refunded, kind=LedgerEntry.Kind.FEE).count() == 2


def test_a_refund_made_in_stripes_dashboard_has_its_fee_booked_from_its_event(paid, stripe_sandbox):
    payment = paid([sale("gamma.org", "20.00", cost="12.00")])
    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id, amount=500)
    assert set(deliver(stripe_sandbox, times=2, reverse=True)) == {200}
    assert ledger_fees(payment) == sandbox_fees(stripe_sandbox, payment)
    assert len(ledger_fees(payment)) == 2


def test_the_fee_waits_while_stripe_is_away_and_is_booked_when_tried_again(paid, stripe_sandbox, monkeypatch):
    with monkeypatch.context() as patched:  # the capture's own task is not run: the fee is read below
        patched.setattr("billing.payments.services.payment_fee_later", lambda **kwargs: None)
        payment = paid([sale("delta.io", "45.00", cost="38.00")])
    [capture] = payment.ledger_entries.filter(kind=LedgerEntry.Kind.CAPTURE)
    stripe_sandbox.setup(api_error=True)
    failed = book_payment_fee.enqueue(payment_id=payment.pk, source_id=capture.source_id)
    assert failed.status == TaskResultStatus.FAILED
    assert ledger_fees(payment) == {}
    stripe_sandbox.setup(api_error=False)
    stripe_client.forget_breaker()
    assert book_payment_fee.enqueue(payment_id=payment.pk, source_id=capture.source_id).return_value == 1
    assert ledger_fees(payment) == sandbox_fees(stripe_sandbox, payment)
    assert list(ledger_fees(payment).values()) == [Decimal("1.61")]  # 2.9 % of 45.00 is 1.305: 1.31, plus 0.30
    net_margin = revenue_report(month=payment.created_at.date()).totals[0].net_margin
    assert net_margin == Decimal("45.00") - Decimal("1.61") - Decimal("38.00")


def test_the_daily_job_books_a_fee_its_task_never_did_and_leaves_the_others(paid, stripe_sandbox, monkeypatch):
    with monkeypatch.context() as patched:  # the capture's task lost (its retries gave up while Stripe was away)
        patched.setattr("billing.payments.services.payment_fee_later", lambda **kwargs: None)
        lost = paid([sale("omega.net", "30.00", cost="20.00")])
    booked = paid([sale("sigma.org", "10.00", cost="7.00")])
    assert (ledger_fees(lost), len(ledger_fees(booked))) == ({}, 1)
    assert payment_fees_missing_book() == 1  # the one without its fee
    assert ledger_fees(lost) == sandbox_fees(stripe_sandbox, lost)
    assert payment_fees_missing_book() == 0
    assert next(job for job in jobs() if job.name == "payment-fees").task is book_missing_payment_fees
