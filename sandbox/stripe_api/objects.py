"""The shapes the sandbox answers with, after Stripe's own example objects (shared/reference/stripe-fixtures.json)."""

from __future__ import annotations

import secrets
import time
from typing import Any

from sandbox.stripe_api.clock import now

# The one API version the sandbox answers as (the storefront's pinned stripe SDK sends it as `Stripe-Version`):
# every event and webhook endpoint is stamped with it, and the strict mode refuses requests made for another.
API_VERSION = "2026-10-28.endive"


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def public(data: dict) -> dict:
    """An object as the API shows it (without the sandbox's own bookkeeping fields, which start with `_`)."""
    return {key: value for key, value in data.items() if not key.startswith("_")}


def checkout_session(
    *,
    params: dict[str, Any],
    session_id: str,
    url: str,
    currency: str | None,
    totals: tuple[int, int, int] | None,
    offered: list[str],
    allowed: list[str] | None,
    options: dict,
    adaptive_pricing: bool,
) -> dict:
    """A new session; `totals` is (subtotal, total, tax) in payment mode, None in setup mode."""
    subtotal, total, tax = totals or (None, None, 0)
    return {
        "id": session_id,
        "object": "checkout.session",
        "adaptive_pricing": {"enabled": adaptive_pricing},
        "after_expiration": None,
        "allow_promotion_codes": None,
        "allowed_payment_method_types": allowed,
        "amount_subtotal": subtotal,
        "amount_total": total,
        "automatic_tax": {"enabled": False, "liability": None, "provider": None, "status": None},
        "billing_address_collection": None,
        "cancel_url": params.get("cancel_url"),
        "client_reference_id": params.get("client_reference_id"),
        "client_secret": None,
        "consent": None,
        "consent_collection": None,
        "created": now(),
        "currency": currency,
        "currency_conversion": None,
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
        "payment_method_options": options,
        "payment_method_types": offered,
        "payment_status": "unpaid" if totals else "no_payment_required",
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
        "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": tax} if totals else None,
        "ui_mode": "hosted_page",
        "url": url,
    }


def payment_intent(
    *,
    amount: int,
    currency: str,
    capture_method: str,
    metadata: dict,
    description: str | None,
    customer: str | None,
    allowed: list[str] | None = None,
    automatic: dict | None = None,
    method_types: list[str] | None = None,
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
        "allowed_payment_method_types": allowed,
        "application_fee_amount": None,
        "automatic_payment_methods": automatic,
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
        "payment_method_types": method_types or ["card"],
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


def event(
    *,
    type: str,
    obj: dict,
    previous: dict | None = None,
    request_id: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    data: dict[str, Any] = {"object": obj}
    if previous is not None:
        data["previous_attributes"] = previous
    return {
        "id": new_id("evt"),
        "object": "event",
        "api_version": API_VERSION,
        "created": now(),
        "data": data,
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


def link_payment_method(*, email: str) -> dict:
    """A Link payment method: the customer paid with their Link account, so there is no card on this object."""
    return {
        "id": new_id("pm"),
        "object": "payment_method",
        "allow_redisplay": "unspecified",
        "billing_details": {"address": None, "email": email, "name": None, "phone": None},
        "created": now(),
        "customer": None,
        "link": {"email": email},
        "livemode": False,
        "metadata": {},
        "type": "link",
    }


def setup_intent(*, customer: str | None, metadata: dict, description: str | None, method_types: list[str]) -> dict:
    intent_id = new_id("seti")
    return {
        "id": intent_id,
        "object": "setup_intent",
        "application": None,
        "automatic_payment_methods": None,
        "cancellation_reason": None,
        "client_secret": f"{intent_id}_secret_{secrets.token_hex(12)}",
        "created": now(),
        "customer": customer,
        "description": description,
        "flow_directions": None,
        "last_setup_error": None,
        "latest_attempt": None,
        "livemode": False,
        "mandate": None,
        "metadata": metadata,
        "next_action": None,
        "on_behalf_of": None,
        "payment_method": None,
        "payment_method_options": {
            "card": {"mandate_options": None, "network": None, "request_three_d_secure": "automatic"}
        },
        "payment_method_types": method_types,
        "single_use_mandate": None,
        "status": "requires_payment_method",
        "usage": "off_session",
    }


def tax_rate(*, params: dict[str, Any], percentage: float, inclusive: bool) -> dict:
    return {
        "id": new_id("txr"),
        "object": "tax_rate",
        "active": str(params.get("active", "true")).lower() != "false",
        "country": params.get("country"),
        "created": now(),
        "description": params.get("description"),
        "display_name": params["display_name"],
        "effective_percentage": percentage,
        "flat_amount": None,
        "inclusive": inclusive,
        "jurisdiction": params.get("jurisdiction"),
        "jurisdiction_level": None,
        "livemode": False,
        "metadata": params.get("metadata") or {},
        "percentage": percentage,
        "rate_type": "percentage",
        "state": params.get("state"),
        "tax_type": params.get("tax_type"),
    }


def line_item(*, description: str, quantity: int, unit_amount: int, currency: str, totals: dict) -> dict:
    """A Checkout line item made from `price_data` (Stripe makes the price and product on the fly)."""
    return {
        "id": new_id("li"),
        "object": "item",
        "amount_discount": 0,
        "currency": currency,
        "description": description,
        "price": {
            "id": new_id("price"),
            "object": "price",
            "active": False,
            "billing_scheme": "per_unit",
            "created": now(),
            "currency": currency,
            "livemode": False,
            "lookup_key": None,
            "metadata": {},
            "nickname": None,
            "product": new_id("prod"),
            "recurring": None,
            "tax_behavior": "unspecified",
            "type": "one_time",
            "unit_amount": unit_amount,
            "unit_amount_decimal": str(unit_amount),
        },
        "quantity": quantity,
        **totals,
    }
