"""The ledger: every money movement of every paid line, booked once, and the figures reports read from it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
from decimal import Decimal

import pytest
import time_machine
from django.core.management import CommandError, call_command

from billing.ledger.books import (
    ledger_dispute_book,
    ledger_fee_book,
    ledger_figures,
    ledger_month_figures,
    ledger_month_totals_differences,
    ledger_refund_book,
    ledger_refund_reverse,
    ledger_write_off_book,
    line_balance,
)
from billing.ledger.lines import LineOutcome, LineToPay
from billing.models import LedgerEntry, LedgerMonthTotal, Payment, SaleCause
from billing.payments.refunds import refund_line
from billing.payments.services import payment_settle
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db
USD = "USD"


def usd(amount: str) -> Money:
    return Money(Decimal(amount), USD)


# Prices and costs stated here, so nothing depends on the store's markup.
SALE = [
    LineToPay(
        "one.com", "one.com, registration", usd("12.99"), cause=SaleCause.REGISTRATION, tld="com", cost=usd("9.00")
    ),
    LineToPay(
        "two.net", "two.net, renewal", usd("15.00"), {"kind": "registration"}, SaleCause.RENEWAL, "net", usd("11.00")
    ),
    LineToPay(
        "three.org", "three.org, auto-renewal", usd("8.50"), cause=SaleCause.AUTO_RENEWAL, tld="org", cost=usd("6.25")
    ),
]


@pytest.fixture
def paid(start, stripe_sandbox, registrar):
    def paid(lines=SALE) -> Payment:
        started = start(lines=lines)
        stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
        return payment_settle(session_id=started.payment.stripe_session_id)

    return paid


def entries(payment: Payment, kind: str) -> list[tuple[str, Decimal, Decimal | None]]:
    rows = LedgerEntry.objects.filter(payment=payment, kind=kind).select_related("line").order_by("line__position")
    return [(row.line.reference, row.amount, row.cost) for row in rows]


def test_a_capture_books_each_registered_line_with_its_cause_tld_and_cost(paid, stripe_sandbox, registrar):
    registrar.costs["one.com"] = Decimal("9.10")  # what registering it cost, as recorded then, wins over the quote
    payment = paid()
    assert entries(payment, LedgerEntry.Kind.CAPTURE) == [
        ("one.com", Decimal("12.99"), Decimal("9.10")),
        ("two.net", Decimal("15.00"), Decimal("11.00")),
        ("three.org", Decimal("8.50"), Decimal("6.25")),
    ]
    entry = LedgerEntry.objects.get(payment=payment, line__reference="three.org")
    assert (entry.cause, entry.tld, entry.currency) == (SaleCause.AUTO_RENEWAL, "org", USD)
    intent = stripe_sandbox.stored(payment.stripe_payment_intent_id)
    assert entry.source_id == intent["latest_charge"]
    [total] = ledger_figures(group_by=())
    assert (total.captured, total.cost, total.net, total.margin) == (
        Decimal("36.49"),
        Decimal("26.35"),
        Decimal("36.49"),
        Decimal("10.14"),
    )
    assert total.net * 100 == intent["amount_received"]


def test_a_line_that_did_not_register_is_not_in_the_books(paid, registrar):
    registrar.outcomes["two.net"] = LineOutcome.FAILED
    payment = paid()
    assert [reference for reference, *_ in entries(payment, LedgerEntry.Kind.CAPTURE)] == ["one.com", "three.org"]
    [total] = ledger_figures(group_by=())
    assert total.captured == payment.amount_captured == Decimal("21.49")


def test_a_refund_is_booked_once_on_its_line(paid):
    payment = paid()
    line = payment.lines.get(reference="two.net")
    refund_line(line=line)
    refund_line(line=line)
    assert entries(payment, LedgerEntry.Kind.REFUND) == [("two.net", Decimal("-15.00"), Decimal("0.00"))]
    assert line_balance(line) == 0
    [total] = ledger_figures(group_by=())
    assert (total.captured, total.refunded, total.net) == (Decimal("36.49"), Decimal("15.00"), Decimal("21.49"))
    # The cost stays: the provider keeps what it charged for the renewal.
    assert total.margin == Decimal("21.49") - Decimal("26.25")


def test_a_refund_naming_no_line_is_split_over_the_lines_still_holding_money(paid):
    payment = paid()
    when = dt.datetime(2026, 11, 3, tzinfo=dt.UTC)
    ledger_refund_book(payment=payment, refund_id="re_dashboard", amount=Decimal("20.00"), occurred_at=when)
    # Replayed (a second event about the same refund): nothing more.
    ledger_refund_book(payment=payment, refund_id="re_dashboard", amount=Decimal("20.00"), occurred_at=when)
    assert entries(payment, LedgerEntry.Kind.REFUND) == [
        ("one.com", Decimal("-12.99"), Decimal("0.00")),
        ("two.net", Decimal("-7.01"), Decimal("0.00")),
    ]
    ledger_refund_reverse(payment=payment, refund_id="re_dashboard", occurred_at=when)
    ledger_refund_reverse(payment=payment, refund_id="re_dashboard", occurred_at=when)
    [total] = ledger_figures(group_by=())
    assert total.refunded == 0


def test_a_dispute_withdraws_and_a_won_one_reinstates_on_the_same_lines(paid):
    payment = paid()
    when = dt.datetime(2026, 11, 5, tzinfo=dt.UTC)
    opened = {"payment": payment, "dispute_id": "dp_1", "amount": Decimal("36.49"), "withdrawn_at": when}
    ledger_dispute_book(**opened, reinstated_at=None)
    ledger_dispute_book(**opened, reinstated_at=None)
    [total] = ledger_figures(group_by=())
    assert (total.disputed, total.net) == (Decimal("36.49"), 0)
    ledger_dispute_book(**opened, reinstated_at=when + dt.timedelta(days=9))
    ledger_dispute_book(**opened, reinstated_at=when + dt.timedelta(days=9))
    [total] = ledger_figures(group_by=())
    assert (total.disputed, total.net) == (0, Decimal("36.49"))
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.DISPUTE_REINSTATEMENT).count() == 3


def test_an_inquiry_withdraws_nothing(paid):
    payment = paid()
    ledger_dispute_book(
        payment=payment, dispute_id="dp_2", amount=Decimal("36.49"), withdrawn_at=None, reinstated_at=None
    )
    assert not LedgerEntry.objects.filter(kind__startswith="dispute").exists()


def test_a_write_off_moves_no_money_and_keeps_the_cost(start, registrar):
    payment = start(lines=SALE[:1]).payment
    line = payment.lines.get()
    line.status = "registered"
    line.save()
    when = dt.datetime(2026, 11, 9, tzinfo=dt.UTC)
    ledger_write_off_book(payment=payment, lines=[line], occurred_at=when)
    ledger_write_off_book(payment=payment, lines=[line], occurred_at=when)
    [total] = ledger_figures(group_by=())
    assert (total.captured, total.net, total.written_off, total.cost, total.margin) == (
        0,
        0,
        Decimal("12.99"),
        Decimal("9.00"),
        Decimal("-9.00"),
    )


def test_figures_per_month_tld_and_cause(paid):
    with time_machine.travel(dt.datetime(2026, 10, 30, 12, tzinfo=dt.UTC), tick=False):
        paid(SALE[:1])
    with time_machine.travel(dt.datetime(2026, 11, 2, 12, tzinfo=dt.UTC), tick=False):
        second = paid(SALE)
        refund_line(line=second.lines.get(reference="one.com"))
    months = ledger_figures(group_by=("month",))
    assert [(row.month, row.captured, row.refunded) for row in months] == [
        (dt.date(2026, 11, 1), Decimal("36.49"), Decimal("12.99")),
        (dt.date(2026, 10, 1), Decimal("12.99"), Decimal("0")),
    ]
    november = ledger_figures(
        start=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        end=dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
        group_by=("tld", "cause"),
    )
    assert [(row.tld, row.cause, row.net, row.margin) for row in november] == [
        ("com", SaleCause.REGISTRATION, Decimal("0.00"), Decimal("-9.00")),
        ("net", SaleCause.RENEWAL, Decimal("15.00"), Decimal("4.00")),
        ("org", SaleCause.AUTO_RENEWAL, Decimal("8.50"), Decimal("2.25")),
    ]
    with pytest.raises(ValueError):
        ledger_figures(group_by=("customer",))


def _ledger_search(client, term: str) -> tuple[str, list[str]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        html = client.get("/admin/billing/ledgerentry/", {"q": term}).content.decode()
    return html, [query["sql"] for query in queries]


def test_the_ledger_is_searched_by_email_source_id_or_domain_each_on_one_indexed_column(paid, admin_client):
    payment = paid()
    other = paid(lines=SALE[:1])
    email = payment.customer.user.email
    charge = LedgerEntry.objects.filter(payment=other).values_list("source_id", flat=True).first()
    # An address: the start of the customer's email, nothing else looked in.
    html, sql = _ledger_search(admin_client, email.upper())
    assert html.count(f'billing/payment/{payment.pk}/change/"') == payment.ledger_entries.count() >= 3
    assert all("LIKE '%" not in query for query in sql)
    # A payment service's id: the entries it booked, compared whole.
    html, sql = _ledger_search(admin_client, charge)
    assert f'billing/payment/{other.pk}/change/"' in html
    assert f'billing/payment/{payment.pk}/change/"' not in html
    assert not any("LIKE" in query for query in sql if "billing_ledgerentry" in query)
    # Anything else: the start of the line's domain name.
    html, sql = _ledger_search(admin_client, "two.")
    assert f'billing/payment/{payment.pk}/change/"' in html and f'billing/payment/{other.pk}/change/"' not in html
    assert all("LIKE '%" not in query for query in sql)


def test_the_kept_month_totals_equal_the_entries_after_every_kind_of_movement(paid, start):
    with time_machine.travel(dt.datetime(2026, 10, 30, 12, tzinfo=dt.UTC), tick=False):
        october = paid(SALE[:1])
    with time_machine.travel(dt.datetime(2026, 11, 2, 12, tzinfo=dt.UTC), tick=False):
        november = paid(SALE)
        refund_line(line=november.lines.get(reference="one.com"))
    # Booked in other months than the sale: a refund that failed, a dispute won, a write-off with no cost known.
    when = dt.datetime(2026, 12, 3, tzinfo=dt.UTC)
    ledger_refund_book(payment=october, refund_id="re_kept", amount=Decimal("5.00"), occurred_at=when)
    ledger_refund_reverse(payment=october, refund_id="re_kept", occurred_at=when + dt.timedelta(days=1))
    dispute = {"payment": november, "dispute_id": "dp_kept", "amount": Decimal("10.00"), "withdrawn_at": when}
    ledger_dispute_book(**dispute, reinstated_at=dt.datetime(2027, 1, 4, tzinfo=dt.UTC))
    unpaid = start(lines=[dataclasses.replace(SALE[0], cost=None)]).payment
    unpaid.lines.update(status="registered")
    ledger_write_off_book(payment=unpaid, lines=list(unpaid.lines.all()), occurred_at=when)
    fee = {"payment": november, "line": november.lines.first(), "balance_transaction_id": "txn_kept"}
    ledger_fee_book(**fee, fee=Decimal("1.35"), occurred_at=when, note="capture")
    ledger_fee_book(**fee, fee=Decimal("1.35"), occurred_at=when, note="capture")  # booked once

    assert ledger_month_totals_differences() == []
    for group in [(), ("month",), ("tld", "cause"), ("month", "tld", "cause")]:
        assert ledger_month_figures(group_by=group) == ledger_figures(group_by=group)
    december = ledger_month_figures(start=dt.date(2026, 12, 1), end=dt.date(2027, 1, 1), group_by=())
    assert [(row.refunded, row.disputed, row.written_off, row.unknown_cost, row.fees) for row in december] == [
        (Decimal("0.00"), Decimal("10.00"), Decimal("12.99"), 1, Decimal("1.35"))
    ]
    # Kept totals that drifted (written by hand) are told apart, and rebuilt from the entries.
    LedgerMonthTotal.objects.filter(month=dt.date(2026, 10, 1)).update(captured=Decimal("1.00"))
    assert len(ledger_month_totals_differences()) == 1
    with pytest.raises(CommandError, match="1 month total"):
        call_command("ledger_month_totals", stdout=io.StringIO())
    call_command("ledger_month_totals", "--rebuild", stdout=io.StringIO())
    assert ledger_month_totals_differences() == []


def test_the_revenue_report_and_the_dashboard_read_the_kept_totals_not_the_entries(paid, admin_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    paid()
    month = LedgerEntry.objects.get(line__reference="one.com", kind=LedgerEntry.Kind.CAPTURE).occurred_at
    for url in (f"/admin/billing/ledgerentry/report/?month={month:%Y-%m}", "/admin/"):
        admin_client.get(url)
        with CaptureQueriesContext(connection) as queries:
            html = admin_client.get(url).content.decode()
        assert "36.49" in html
        assert not [query["sql"] for query in queries if "billing_ledgerentry" in query["sql"]]
