"""The shapes the sandbox answers with, after Stripe's own example objects (shared/reference/stripe-fixtures.json)."""

from __future__ import annotations

import secrets
import time
from typing import Any


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def now() -> int:
    return int(time.time())


def checkout_session(*, params: dict[str, Any], amount: int, currency: str, url: str, session_id: str) -> dict:
    return {
        "id": session_id,
        "object": "checkout.session",
        "after_expiration": None,
        "allow_promotion_codes": None,
        "amount_subtotal": amount,
        "amount_total": amount,
        "automatic_tax": {"enabled": False, "liability": None, "status": None},
        "billing_address_collection": None,
        "cancel_url": params.get("cancel_url"),
        "client_reference_id": params.get("client_reference_id"),
        "client_secret": None,
        "consent": None,
        "consent_collection": None,
        "created": now(),
        "currency": currency,
        "custom_fields": [],
        "custom_text": {
            "after_submit": None,
            "shipping_address": None,
            "submit": None,
            "terms_of_service_acceptance": None,
        },
        "customer": params.get("customer"),
        "customer_creation": params.get("customer_creation", "if_required"),
        "customer_details": None,
        "customer_email": params.get("customer_email"),
        "expires_at": int(params.get("expires_at") or now() + 24 * 3600),
        "invoice": None,
        "invoice_creation": None,
        "livemode": False,
        "locale": params.get("locale"),
        "metadata": params.get("metadata") or {},
        "mode": params.get("mode"),
        "payment_intent": None,
        "payment_link": None,
        "payment_method_collection": None,
        "payment_method_options": {},
        "payment_method_types": ["card"],
        "payment_status": "unpaid",
        "phone_number_collection": {"enabled": False},
        "recovered_from": None,
        "setup_intent": None,
        "shipping_address_collection": None,
        "shipping_cost": None,
        "shipping_options": [],
        "status": "open",
        "submit_type": None,
        "subscription": None,
        "success_url": params.get("success_url"),
        "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": 0},
        "ui_mode": "hosted",
        "url": url,
    }


def payment_intent(
    *, amount: int, currency: str, capture_method: str, metadata: dict, description: str | None, customer: str | None
) -> dict:
    intent_id = new_id("pi")
    return {
        "id": intent_id,
        "object": "payment_intent",
        "amount": amount,
        "amount_capturable": 0,
        "amount_details": {"tip": {}},
        "amount_received": 0,
        "application": None,
        "application_fee_amount": None,
        "automatic_payment_methods": None,
        "canceled_at": None,
        "cancellation_reason": None,
        "capture_method": capture_method,
        "client_secret": f"{intent_id}_secret_{secrets.token_hex(12)}",
        "confirmation_method": "automatic",
        "created": now(),
        "currency": currency,
        "customer": customer,
        "description": description,
        "last_payment_error": None,
        "latest_charge": None,
        "livemode": False,
        "metadata": metadata,
        "next_action": None,
        "on_behalf_of": None,
        "payment_method": None,
        "payment_method_options": {},
        "payment_method_types": ["card"],
        "processing": None,
        "receipt_email": None,
        "review": None,
        "setup_future_usage": None,
        "shipping": None,
        "statement_descriptor": None,
        "statement_descriptor_suffix": None,
        "status": "requires_payment_method",
        "transfer_data": None,
        "transfer_group": None,
    }


def refund(
    *, amount: int, currency: str, charge: str | None, intent_id: str, metadata: dict, reason: str | None
) -> dict:
    return {
        "id": new_id("re"),
        "object": "refund",
        "amount": amount,
        "balance_transaction": new_id("txn"),
        "charge": charge,
        "created": now(),
        "currency": currency,
        "destination_details": {"card": {"type": "refund"}, "type": "card"},
        "metadata": metadata,
        "payment_intent": intent_id,
        "reason": reason,
        "receipt_number": None,
        "source_transfer_reversal": None,
        "status": "succeeded",
        "transfer_reversal": None,
    }


def event(*, type: str, obj: dict, request_id: str | None = None, idempotency_key: str | None = None) -> dict:
    return {
        "id": new_id("evt"),
        "object": "event",
        "api_version": "2024-06-20",
        "created": now(),
        "data": {"object": obj},
        "livemode": False,
        "pending_webhooks": 1,
        "request": {"id": request_id, "idempotency_key": idempotency_key},
        "type": type,
    }


def customer(*, email: str | None, name: str | None, metadata: dict) -> dict:
    return {
        "id": new_id("cus"),
        "object": "customer",
        "address": None,
        "balance": 0,
        "created": now(),
        "currency": None,
        "default_source": None,
        "delinquent": False,
        "description": None,
        "email": email,
        "invoice_prefix": new_id("x")[2:10].upper(),
        "invoice_settings": {
            "custom_fields": None,
            "default_payment_method": None,
            "footer": None,
            "rendering_options": None,
        },
        "livemode": False,
        "metadata": metadata,
        "name": name,
        "phone": None,
        "preferred_locales": [],
        "shipping": None,
        "tax_exempt": "none",
        "test_clock": None,
    }


# Brand and last four of the test cards the sandbox knows, as Stripe shows them.
CARD_BRANDS = {"4": "visa", "5": "mastercard", "3": "amex"}


def payment_method(*, number: str) -> dict:
    exp = time.gmtime(now())
    return {
        "id": new_id("pm"),
        "object": "payment_method",
        "allow_redisplay": "unspecified",
        "billing_details": {"address": None, "email": None, "name": None, "phone": None},
        "card": {
            "brand": CARD_BRANDS.get(number[:1], "unknown"),
            "checks": {"address_line1_check": None, "address_postal_code_check": None, "cvc_check": "pass"},
            "country": "US",
            "display_brand": CARD_BRANDS.get(number[:1], "unknown"),
            "exp_month": 12,
            "exp_year": exp.tm_year + 3,
            "fingerprint": secrets.token_hex(8),
            "funding": "credit",
            "last4": number[-4:],
            "networks": {"available": [CARD_BRANDS.get(number[:1], "unknown")], "preferred": None},
            "three_d_secure_usage": {"supported": True},
            "wallet": None,
        },
        "created": now(),
        "customer": None,
        "livemode": False,
        "metadata": {},
        "type": "card",
        # The sandbox's own bookkeeping (never shown): which test card this is, for later off-session charges.
        "_number": number,
    }
