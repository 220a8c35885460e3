"""Receipts numbered without gaps per store, shown to their owner only; the staff view of payments."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client

from billing.documents.issuing import receipt_issue
from billing.ledger.lines import LineOutcome
from billing.models import Document, Payment, PaymentLine
from billing.payments.services import payment_settle
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid(start, stripe_sandbox, registrar):
    def pay(**kwargs) -> Payment:
        started = start(**kwargs)
        stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
        return payment_settle(session_id=started.payment.stripe_session_id)

    return pay


def test_receipt_numbers_follow_each_other_and_a_rolled_back_one_leaves_no_gap(paid):
    first = paid().receipt.number
    with pytest.raises(RuntimeError), transaction.atomic():
        # A payment whose recording transaction fails takes its receipt number back with it.
        assert paid().receipt.number == first + 1
        raise RuntimeError("the transaction failed after the receipt was issued")
    assert paid().receipt.number == first + 1
    assert paid().receipt.number == first + 2
    receipt = Document.objects.get(kind=Document.Kind.RECEIPT, number=first)
    assert receipt_issue(payment=receipt.payment).number == first  # one per payment


def test_the_receipt_page_shows_what_was_charged_to_its_owner_only(paid, customer, other_customer, registrar):
    registrar.outcomes["example.net"] = LineOutcome.FAILED
    payment = paid()
    url = f"/payments/receipts/{payment.receipt.number}/"
    owner = Client()
    owner.force_login(customer.user)
    page = owner.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert f"Receipt {payment.receipt.number}" in text
    charged, not_charged = text.split("Not charged")
    assert "example.com, register 1 year" in charged
    assert "example.net" not in charged  # not charged, so not among the receipt's lines
    assert "example.net, register 2 years" in not_charged
    assert "Total paid (USD)" in charged and "$22.49" in charged
    stranger = Client()
    stranger.force_login(other_customer.user)
    assert stranger.get(url).status_code == 404
    assert Client().get(url).status_code == 302


@pytest.fixture
def staff() -> Client:
    user = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#Pass9")
    client = Client()
    client.force_login(user)
    return client


def test_staff_see_payments_needing_attention_and_can_refund_lines(paid, staff, registrar, stripe_sandbox):
    captured = paid()
    registrar.outcomes["example.org"] = LineOutcome.UNKNOWN
    held = paid()
    listing = staff.get("/admin/billing/payment/?attention=yes")
    assert listing.status_code == 200
    shown = listing.context["cl"].result_list
    assert [p.pk for p in shown] == [held.pk]
    detail = staff.get(f"/admin/billing/payment/{captured.pk}/change/")
    assert detail.status_code == 200
    assert captured.stripe_payment_intent_id in detail.content.decode()
    response = staff.post(
        "/admin/billing/payment/", {"action": "refund_registered_lines", "_selected_action": [captured.pk, held.pk]}
    )
    page = staff.get(response.url)
    # The held payment has nothing charged to refund: only the captured one's lines are offered.
    assert [choice.payment.pk for choice in page.context["choices"]] == [captured.pk]
    assert page.context["skipped"] == 1
    # Nothing happens before the confirmation.
    assert Payment.objects.get(pk=captured.pk).amount_refunded == 0
    ticked = [line.pk for line in captured.lines.exclude(reference="example.org")]
    assert staff.post(response.url, {"line": ticked}).status_code == 302
    captured.refresh_from_db()
    assert (captured.status, captured.amount_refunded) == (Payment.Status.CAPTURED, Decimal("37.99"))
    staff.post(response.url, {"line": [captured.lines.get(reference="example.org").pk]})
    captured.refresh_from_db()
    assert (captured.status, captured.amount_refunded) == (Payment.Status.REFUNDED, Decimal("47.49"))
    assert set(captured.lines.values_list("status", flat=True)) == {PaymentLine.Status.REFUNDED}
    assert captured.receipt is not None
