"""Entries booked before the kept month totals existed are summed by the migration that adds them."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest

from billing.ledger.books import ledger_figures, ledger_month_figures, ledger_month_totals_differences
from tests.migrations import migrate_to

BEFORE = [("billing", "0015_ledger_search_indexes")]
AFTER = [("billing", "0016_ledger_month_totals")]


@pytest.mark.django_db(transaction=True)
def test_the_entries_already_booked_get_their_month_totals(customer):
    old = migrate_to(BEFORE)
    Payment = old.get_model("billing", "Payment")
    PaymentLine = old.get_model("billing", "PaymentLine")
    LedgerEntry = old.get_model("billing", "LedgerEntry")
    payment = Payment.objects.create(
        customer_id=customer.pk, checkout_id=uuid.uuid4(), status="captured", currency="EUR", amount=Decimal("20"),
        amount_authorised=Decimal("20"), amount_captured=Decimal("20"), rate=Decimal("0.9"),
    )  # fmt: skip
    line = PaymentLine.objects.create(
        payment=payment, position=0, reference="a.com", description="a", amount=Decimal("20"), tld="com"
    )
    for kind, amount, cost, month in [("capture", "20.00", None, 10), ("refund", "-5.00", None, 11)]:
        LedgerEntry.objects.create(
            kind=kind, cause="registration", amount=Decimal(amount), currency="EUR", tld="com", payment=payment,
            line=line, source_id=f"{kind}_old", occurred_at=dt.datetime(2026, month, 15, tzinfo=dt.UTC),
            cost=cost, tax=Decimal(0),
        )  # fmt: skip
    migrate_to(AFTER)
    assert ledger_month_totals_differences() == []
    months = ledger_month_figures(group_by=("month",), per_rate=True)
    assert months == ledger_figures(group_by=("month",), per_rate=True)
    assert [(row.month, row.captured, row.refunded, row.unknown_cost, row.rate) for row in months] == [
        (dt.date(2026, 11, 1), Decimal("0.00"), Decimal("5.00"), 0, Decimal("0.9")),
        (dt.date(2026, 10, 1), Decimal("20.00"), Decimal("0.00"), 1, Decimal("0.9")),
    ]
