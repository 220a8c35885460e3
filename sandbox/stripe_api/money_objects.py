"""The shapes of money movements: charges, refunds, disputes and balance transactions, after Stripe's API reference
(and the charge and refund of shared/reference/stripe-fixtures.json)."""

from __future__ import annotations

from typing import Any

from sandbox.stripe_api.clock import now
from sandbox.stripe_api.objects import new_id


def charge(
    *, intent: dict, method: dict, capture_before: int | None, extended: bool, created: int | None = None
) -> dict:
    """The charge of an authorised payment intent (captured later, or at once with automatic capture)."""
    charge_id = new_id("ch")
    details: dict[str, Any] = {"type": method["type"]}
    if method["type"] == "card":
        card = method["card"]
        details["card"] = {
            "amount_authorized": intent["amount"],
            "authorization_code": None,
            "brand": card["brand"],
            "capture_before": capture_before,
            "checks": card["checks"],
            "country": card["country"],
            "exp_month": card["exp_month"],
            "exp_year": card["exp_year"],
            "extended_authorization": {"status": "enabled" if extended else "disabled"},
            "fingerprint": card["fingerprint"],
            "funding": card["funding"],
            "incremental_authorization": {"status": "unavailable"},
            "installments": None,
            "last4": card["last4"],
            "mandate": None,
            "multicapture": {"status": "unavailable"},
            "network": card["brand"],
            "network_token": {"used": False},
            "network_transaction_id": None,
            "overcapture": {"maximum_amount_capturable": intent["amount"], "status": "unavailable"},
            "regulated_status": "unregulated",
            "three_d_secure": None,
            "wallet": None,
        }
    else:
        details[method["type"]] = {"country": "US"}
    return {
        "id": charge_id,
        "object": "charge",
        "amount": intent["amount"],
        "amount_captured": 0,
        "amount_refunded": 0,
        "application": None,
        "application_fee": None,
        "application_fee_amount": None,
        "balance_transaction": None,
        "billing_details": method["billing_details"],
        "calculated_statement_descriptor": "PAYMENT SANDBOX",
        "captured": False,
        # The moment the deadline was counted from, when given: one clock reading for both, as Stripe has them.
        "created": created if created is not None else now(),
        "currency": intent["currency"],
        "customer": intent["customer"],
        "description": intent["description"],
        "disputed": False,
        "failure_balance_transaction": None,
        "failure_code": None,
        "failure_message": None,
        "fraud_details": {},
        "livemode": False,
        "metadata": intent["metadata"],
        "on_behalf_of": None,
        "outcome": {
            "advice_code": None,
            "network_advice_code": None,
            "network_decline_code": None,
            "network_status": "approved_by_network",
            "reason": None,
            "risk_level": "normal",
            "risk_score": 20,
            "seller_message": "Payment complete.",
            "type": "authorized",
        },
        "paid": True,
        "payment_intent": intent["id"],
        "payment_method": method["id"],
        "payment_method_details": details,
        "receipt_email": intent.get("receipt_email"),
        "receipt_number": None,
        "receipt_url": None,
        "refunded": False,
        "refunds": {
            "object": "list",
            "data": [],
            "has_more": False,
            "total_count": 0,
            "url": f"/v1/charges/{charge_id}/refunds",
        },
        "review": None,
        "shipping": None,
        "source_transfer": None,
        "statement_descriptor": None,
        "statement_descriptor_suffix": None,
        "status": "succeeded",
        "transfer_data": None,
        "transfer_group": None,
    }


def balance_transaction(
    *,
    amount: int,
    currency: str,
    type: str,
    source: str,
    description: str,
    reporting_category: str,
    fee: int = 0,
    fee_description: str = "",
) -> dict:
    """A movement of the account's balance (the sandbox settles in the charge's own currency, no conversion)."""
    created = now()
    fee_details = (
        [
            {
                "amount": fee,
                "application": None,
                "currency": currency,
                "description": fee_description,
                "type": "stripe_fee",
            }
        ]
        if fee
        else []
    )
    return {
        "id": new_id("txn"),
        "object": "balance_transaction",
        "amount": amount,
        "available_on": created,
        "created": created,
        "currency": currency,
        "description": description,
        "exchange_rate": None,
        "fee": fee,
        "fee_details": fee_details,
        "net": amount - fee,
        "reporting_category": reporting_category,
        "source": source,
        "status": "available",
        "type": type,
    }


def refund(*, amount: int, charge: dict, metadata: dict, reason: str | None, status: str) -> dict:
    return {
        "id": new_id("re"),
        "object": "refund",
        "amount": amount,
        "balance_transaction": None,
        "charge": charge["id"],
        "created": now(),
        "currency": charge["currency"],
        "customer": charge["customer"],
        "destination_details": {"card": {"type": "refund"}, "type": "card"},
        "failure_balance_transaction": None,
        "failure_reason": None,
        "metadata": metadata,
        "payment_intent": charge["payment_intent"],
        "payment_method": charge["payment_method"],
        "reason": reason,
        "receipt_number": None,
        "source_transfer_reversal": None,
        "status": status,
        "transfer_reversal": None,
    }


# Every field of a dispute's evidence, empty until the merchant responds (the sandbox takes no evidence).
EVIDENCE_FIELDS = (
    "access_activity_log billing_address cancellation_policy cancellation_policy_disclosure cancellation_rebuttal "
    "customer_communication customer_email_address customer_name customer_purchase_ip customer_signature "
    "duplicate_charge_documentation duplicate_charge_explanation duplicate_charge_id product_description receipt "
    "refund_policy refund_policy_disclosure refund_refusal_explanation service_date service_documentation "
    "shipping_address shipping_carrier shipping_date shipping_documentation shipping_tracking_number "
    "uncategorized_file uncategorized_text"
).split()


def dispute(*, charge: dict, amount: int, reason: str, status: str, due_by: int, refundable: bool) -> dict:
    card = charge["payment_method_details"].get("card") or {}
    return {
        "id": new_id("du"),
        "object": "dispute",
        "amount": amount,
        "balance_transactions": [],
        "charge": charge["id"],
        "created": now(),
        "currency": charge["currency"],
        "enhanced_eligibility_types": [],
        "evidence": dict.fromkeys(EVIDENCE_FIELDS),
        "evidence_details": {"due_by": due_by, "has_evidence": False, "past_due": False, "submission_count": 0},
        "is_charge_refundable": refundable,
        "livemode": False,
        "metadata": {},
        "payment_intent": charge["payment_intent"],
        "payment_method_details": {
            "card": {
                "brand": card.get("brand"),
                "case_type": "inquiry" if status.startswith("warning_") else "chargeback",
                "network_reason_code": None,
            },
            "type": "card",
        },
        "reason": reason,
        "status": status,
    }
