"""The payer of a Checkout Session and the Customer a payment method is saved on."""

from __future__ import annotations

from sandbox.stripe_api import webhooks
from sandbox.stripe_api.models import StripeObject


def payer_email(session: StripeObject) -> str:
    if session.data["customer_email"]:
        return session.data["customer_email"]
    if session.data["customer"]:
        customer = StripeObject.objects.filter(pk=session.data["customer"]).first()
        if customer is not None and customer.data.get("email"):
            return customer.data["email"]
    return "customer@example.com"


def customer_details(session: StripeObject) -> dict:
    """What Checkout collected about the payer (shown on the session once complete)."""
    return {
        "address": None,
        "email": payer_email(session),
        "name": None,
        "phone": None,
        "tax_exempt": "none",
        "tax_ids": [],
    }


def attach(*, method_id: str, customer: str) -> None:
    """Save a payment method on a Customer for later use (once: a method belongs to one Customer)."""
    method = StripeObject.objects.select_for_update().filter(pk=method_id, object="payment_method").first()
    if method is not None and method.data["customer"] is None:
        method.data["customer"] = customer
        method.save_data()
        webhooks.record([("payment_method.attached", method.data)], api_key=method.api_key)
