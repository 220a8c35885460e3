"""The account's balance: every money movement (a capture, a refund or its failure, a dispute's withdrawal or
reinstatement) is a balance transaction, kept so that `GET /v1/balance_transactions/<id>` shows it."""

from __future__ import annotations

from sandbox.stripe_api import money_objects
from sandbox.stripe_api.models import StripeObject


def book(
    *,
    source: StripeObject,
    amount: int,
    type: str,
    description: str,
    reporting_category: str,
    fee: int = 0,
    fee_description: str = "",
) -> dict:
    """Record a movement of `amount` (negative: out of the account) caused by `source`, in its currency."""
    txn = money_objects.balance_transaction(
        amount=amount,
        currency=source.data["currency"],
        type=type,
        source=source.id,
        description=description,
        reporting_category=reporting_category,
        fee=fee,
        fee_description=fee_description,
    )
    StripeObject.make(txn, api_key=source.api_key, payment_intent=source.payment_intent)
    return txn
