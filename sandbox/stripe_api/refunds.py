"""Refunds of captured charges: through the API (the storefront's) or from the Dashboard (staff, no metadata).

A refund is `succeeded` at once (most card refunds) or `pending` until it settles, `succeeded` or `failed`, after
the setup's `refund_settle_seconds` of sandbox time or when a test settles it (Setup.refund_flow). A failed
refund gives the money back to the account: the charge's `amount_refunded` goes down again.
"""

from __future__ import annotations

from sandbox.stripe_api import balance, clock, currencies, money_objects, webhooks
from sandbox.stripe_api.models import RefundFlow, Setup, StripeObject
from sandbox.stripe_api.objects import public
from sandbox.stripe_api.outcomes import Unexpected

REASONS = ("duplicate", "fraudulent", "requested_by_customer")
ACTIVE = ("pending", "requires_action", "succeeded")


def _refunds_of(charge: StripeObject) -> list[StripeObject]:
    rows = StripeObject.objects.filter(object="refund", payment_intent=charge.payment_intent)
    return list(rows.order_by("-created_at"))


def refundable(charge: StripeObject) -> int:
    """What is left to refund: the captured amount less the refunds that did not fail."""
    done = sum(row.data["amount"] for row in _refunds_of(charge) if row.data["status"] in ACTIVE)
    return charge.data["amount_captured"] - done


def _show_refunds(charge: StripeObject) -> None:
    rows = [public(row.data) for row in _refunds_of(charge)]
    charge.data["refunds"].update(data=rows, total_count=len(rows))
    charge.data["refunded"] = charge.data["amount_refunded"] >= charge.data["amount"]


def _check(charge: StripeObject, amount: int | None) -> int:
    if not charge.data["captured"]:
        raise Unexpected(
            f"Charge {charge.id} has not been captured: cancel its PaymentIntent to release it instead.",
            code="charge_not_refundable",
        )
    dispute = StripeObject.objects.filter(object="dispute", payment_intent=charge.payment_intent).first()
    if dispute is not None and not dispute.data["is_charge_refundable"]:
        raise Unexpected(f"Charge {charge.id} has been charged back; cannot issue a refund.", code="charge_disputed")
    left = refundable(charge)
    if left <= 0:
        raise Unexpected(f"Charge {charge.id} has already been refunded.", code="charge_already_refunded")
    amount = left if amount is None else amount
    if amount <= 0 or amount > left:
        raise Unexpected(
            f"Refund amount ({amount}) is greater than unrefunded amount on charge ({left}).", code="amount_too_large"
        )
    problem = currencies.amount_problem(amount, charge.data["currency"])
    if problem:
        raise Unexpected(problem, code="invalid_charge_amount")
    return amount


def create(*, charge: StripeObject, amount: int | None, metadata: dict, reason: str | None) -> StripeObject:
    """Refund `amount` (all that is left when None) of a captured charge."""
    amount = _check(charge, amount)
    setup = Setup.current()
    instant = setup.refund_flow == RefundFlow.INSTANT
    data = money_objects.refund(
        amount=amount,
        charge=charge.data,
        metadata=metadata,
        reason=reason,
        status="succeeded" if instant else "pending",
    )
    if not instant:
        # How it will end is decided now: switching the setup later changes only new refunds.
        data["_outcome"] = "failed" if setup.refund_flow == RefundFlow.FAILS else "succeeded"
    due_at = None if instant else clock.now() + setup.refund_settle_seconds
    row = StripeObject.make(data, api_key=charge.api_key, payment_intent=charge.payment_intent, due_at=due_at)
    txn = balance.book(
        source=row,
        amount=-amount,
        type="refund",
        description=f"REFUND FOR CHARGE ({charge.data['description'] or 'Payment'})",
        reporting_category="refund",
    )
    data["balance_transaction"] = txn["id"]
    row.save_data()
    before = dict(charge.data)
    charge.data["amount_refunded"] += amount
    _show_refunds(charge)
    charge.save_data()
    webhooks.record(
        [("refund.created", data), ("charge.refunded", charge.data, webhooks.changed(before, charge.data))],
        api_key=charge.api_key,
    )
    return row


def settle(*, refund: StripeObject, outcome: str | None = None) -> None:
    """A pending refund reaches its outcome: `succeeded`, or `failed` (the money stays with the account)."""
    data = refund.data
    if data["status"] != "pending":
        raise Unexpected(f"This refund is {data['status']}; only a pending refund settles.", code="refund_not_pending")
    outcome = outcome or data.pop("_outcome", "succeeded")
    if outcome not in ("succeeded", "failed"):
        raise Unexpected(f"A refund settles as succeeded or failed, not {outcome}.", code="parameter_invalid")
    before = dict(data)
    data.pop("_outcome", None)
    data["status"] = outcome
    steps: list[webhooks.Step] = []
    charge = StripeObject.objects.select_for_update().get(pk=data["charge"])
    if outcome == "failed":
        txn = balance.book(
            source=refund,
            amount=data["amount"],
            type="refund_failure",
            description=f"REFUND FAILURE FOR CHARGE {charge.id}",
            reporting_category="refund_failure",
        )
        data.update(failure_reason="expired_or_canceled_card", failure_balance_transaction=txn["id"])
        charge.data["amount_refunded"] -= data["amount"]
    refund.due_at = None
    refund.save_data()
    _show_refunds(charge)
    charge.save_data()
    steps.append(("refund.updated", data, webhooks.changed(before, data)))
    if outcome == "failed":
        steps.append(("refund.failed", data))
    webhooks.record(steps, api_key=refund.api_key)
