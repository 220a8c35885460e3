"""Disputes of captured charges, as a cardholder's bank opens them and the sandbox's staff (or tests) move them on.

A chargeback (`needs_response`) takes the disputed amount and Stripe's dispute fee from the account at once (a
balance transaction of type `adjustment`, event `charge.dispute.funds_withdrawn`); won, the amount comes back
(`charge.dispute.funds_reinstated`); lost, it stays with the cardholder. An inquiry (`warning_needs_response`)
moves no money: closed in the merchant's favour it ends `warning_closed`; lost, it has become a chargeback that was
lost, and the money is withdrawn then. While a chargeback is open or lost the charge cannot be refunded.
"""

from __future__ import annotations

import copy
import datetime as dt
from decimal import Decimal

from sandbox.stripe_api import balance, clock, currencies, money_objects, webhooks
from sandbox.stripe_api.models import StripeObject
from sandbox.stripe_api.outcomes import Unexpected

REASONS = (
    "bank_cannot_process",
    "check_returned",
    "credit_not_processed",
    "customer_initiated",
    "debit_not_authorized",
    "duplicate",
    "fraudulent",
    "general",
    "incorrect_account_details",
    "insufficient_funds",
    "noncompliant",
    "product_not_received",
    "product_unacceptable",
    "subscription_canceled",
    "unrecognized",
)
OPEN = ("warning_needs_response", "warning_under_review", "needs_response", "under_review")
RESPONSE_DAYS = 7
# Stripe's dispute fee for US accounts, charged here in the dispute's own currency.
DISPUTE_FEE = Decimal("15.00")


def _due_by() -> int:
    """The last second (UTC) of the day a week from now, as Stripe's `evidence_details.due_by` reads."""
    day = dt.datetime.fromtimestamp(clock.now(), tz=dt.UTC).date() + dt.timedelta(days=RESPONSE_DAYS)
    return int(dt.datetime.combine(day, dt.time(23, 59, 59), tzinfo=dt.UTC).timestamp())


def open_dispute(
    *, charge: StripeObject, reason: str = "general", amount: int | None = None, inquiry: bool = False
) -> StripeObject:
    """The cardholder's bank disputes the charge: a chargeback, or (`inquiry`) a request for information first."""
    data = charge.data
    if not data["captured"]:
        raise Unexpected(
            f"Charge {charge.id} was not captured: there is nothing to dispute.", code="charge_not_captured"
        )
    if StripeObject.objects.filter(object="dispute", payment_intent=charge.payment_intent).exists():
        raise Unexpected(f"Charge {charge.id} is already disputed.", code="charge_already_disputed")
    if reason not in REASONS:
        raise Unexpected(f"Invalid reason: must be one of {', '.join(REASONS)}.", code="parameter_invalid")
    amount = data["amount_captured"] if amount is None else amount
    if not 0 < amount <= data["amount_captured"] or currencies.amount_problem(amount, data["currency"]):
        raise Unexpected(
            f"The disputed amount ({amount}) must be a valid amount of at most {data['amount_captured']}.",
            code="amount_too_large",
        )
    status = "warning_needs_response" if inquiry else "needs_response"
    made = money_objects.dispute(
        charge=data, amount=amount, reason=reason, status=status, due_by=_due_by(), refundable=inquiry
    )
    dispute = StripeObject.make(made, api_key=charge.api_key, payment_intent=charge.payment_intent)
    steps: list[webhooks.Step] = [("charge.dispute.created", made)]
    if not inquiry:
        steps += _withdraw(dispute)
    dispute.save_data()
    data["disputed"] = True
    charge.save_data()
    webhooks.record(steps, api_key=charge.api_key)
    return dispute


def _withdraw(dispute: StripeObject) -> list[webhooks.Step]:
    data = dispute.data
    txn = balance.book(
        source=dispute,
        amount=-data["amount"],
        type="adjustment",
        description=f"Chargeback withdrawal for {data['charge']}",
        reporting_category="dispute",
        fee=currencies.major_in_minor(DISPUTE_FEE, data["currency"]),
        fee_description="Dispute fee",
    )
    data["balance_transactions"].append(txn)
    data["payment_method_details"]["card"]["case_type"] = "chargeback"
    return [("charge.dispute.funds_withdrawn", data)]


def _reinstate(dispute: StripeObject) -> list[webhooks.Step]:
    data = dispute.data
    txn = balance.book(
        source=dispute,
        amount=data["amount"],
        type="adjustment",
        description=f"Chargeback reversal for {data['charge']}",
        reporting_category="dispute_reversal",
    )
    data["balance_transactions"].append(txn)
    return [("charge.dispute.funds_reinstated", data)]


def review(*, dispute: StripeObject) -> StripeObject:
    """The merchant answered with evidence: the bank reviews it (`under_review` / `warning_under_review`)."""
    data = dispute.data
    after = {"needs_response": "under_review", "warning_needs_response": "warning_under_review"}.get(data["status"])
    if after is None:
        raise Unexpected(f"This dispute is {data['status']}: only one that needs a response goes to review.")
    before = copy.deepcopy(data)
    data["status"] = after
    data["evidence_details"].update(
        has_evidence=True, submission_count=data["evidence_details"]["submission_count"] + 1
    )
    dispute.save_data()
    webhooks.record([("charge.dispute.updated", data, webhooks.changed(before, data))], api_key=dispute.api_key)
    return dispute


def close(*, dispute: StripeObject, won: bool) -> StripeObject:
    """The bank decides: `won` (the merchant keeps the money) or `lost` (it goes back to the cardholder)."""
    data = dispute.data
    if data["status"] not in OPEN:
        raise Unexpected(f"This dispute is already closed ({data['status']}).")
    inquiry = data["status"].startswith("warning_")
    moved: list[webhooks.Step] = []
    if inquiry and won:
        data["status"] = "warning_closed"
    elif inquiry:
        moved = _withdraw(dispute)  # the inquiry became a chargeback, which was lost
        data["status"] = "lost"
    elif won:
        moved = _reinstate(dispute)
        data["status"] = "won"
    else:
        data["status"] = "lost"
    data["is_charge_refundable"] = data["status"] in ("warning_closed", "won")
    dispute.save_data()
    webhooks.record([("charge.dispute.closed", data), *moved], api_key=dispute.api_key)
    return dispute
