"""Saved cards: one Stripe Customer per storefront customer, and the card its Checkout payments leave on it.

Checkout Sessions are opened for the customer's Stripe Customer with `setup_future_usage=off_session`, so the card
paid with is attached to it and may be charged later without the customer (auto-renew). What is kept here is what
the account page shows (brand, last four, expiry) and the payment method's id; the card itself stays at Stripe.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Customer
from accounts.staff.activity import activity_record
from billing.errors import PaymentError, PaymentRefused
from billing.models import Payment, SavedCard
from billing.payments import stripe_client
from pricing.money import Money

if TYPE_CHECKING:  # types only: the calls go through billing.payments.stripe_client
    import stripe

logger = logging.getLogger(__name__)


def saved_card_for(customer: Customer) -> SavedCard | None:
    """The customer's saved card, or None when there is none to charge."""
    card = SavedCard.objects.filter(customer=customer).first()
    return card if card is not None and card.has_card else None


def stripe_customer_id(*, customer: Customer) -> str:
    """The customer's Stripe Customer id, created at Stripe the first time (once, whatever the number of tabs:
    the idempotency key is the customer's, and the row is unique per customer)."""
    existing = SavedCard.objects.filter(customer=customer).values_list("stripe_customer_id", flat=True).first()
    if existing:
        return existing
    created = stripe_client.call(
        "customer create",
        lambda client: client.v1.customers.create(
            params={
                "email": customer.email,
                "name": customer.name,
                "metadata": {"storefront_customer": str(customer.pk)},
            },
            # The customer's row and its creation time: a reused database id never gets another's Customer.
            options={"idempotency_key": f"customer-{customer.pk}-{int(customer.created_at.timestamp())}"},
        ),
        changes_state=True,
    )
    try:
        with transaction.atomic():
            SavedCard.objects.create(customer=customer, stripe_customer_id=created.id)
    except IntegrityError:
        pass  # another request stored it first (the same Customer: same idempotency key)
    return SavedCard.objects.get(customer=customer).stripe_customer_id


def saved_card_charge(
    *,
    card: SavedCard,
    amount: Money,
    capture_method: Literal["manual", "automatic"],
    description: str,
    metadata: dict[str, str],
    idempotency_key: str,
) -> Any:
    """Charge (or, with manual capture, authorise) the saved card without the customer: Stripe's payment intent,
    with its charge (which states the capture deadline). Raises PaymentRefused for a refused card, PaymentOutcomeUnknown
    when the answer was lost (ask again with the same key), PaymentUnavailable."""
    return stripe_client.call(
        f"payment intent create (off-session, {capture_method} capture)",
        lambda client: client.v1.payment_intents.create(
            params={
                "amount": stripe_client.to_minor(amount.amount, amount.currency),
                "currency": amount.currency.lower(),
                "customer": card.stripe_customer_id,
                "payment_method": card.payment_method_id,
                "confirm": True,
                "off_session": True,
                # At Stripe's current API version an intent without a restriction takes the Dashboard's payment
                # methods, some of which redirect, and a confirm without a `return_url` is then refused: the
                # customer is not there to be redirected anyway, and the saved payment method is a card.
                "allowed_payment_method_types": ["card"],
                "capture_method": capture_method,
                "description": description[:500],
                "metadata": metadata,
                "expand": ["latest_charge"],
            },
            options={"idempotency_key": idempotency_key},
        ),
        changes_state=True,
    )


def forget_stripe_customer(*, customer: Customer) -> None:
    """Stripe does not know the stored Customer (another account's, or a reset sandbox's): drop it and its card."""
    logger.warning("customer %s: the stored Stripe Customer is unknown to Stripe; a new one is created", customer.pk)
    SavedCard.objects.filter(customer=customer).delete()


def card_save_from_intent(*, payment: Payment, intent: Any) -> SavedCard | None:
    """Keep the card an authorised payment was made with, when Stripe saved it on the customer's Customer for
    off-session use. Best effort: a card that cannot be read back now is simply not offered for auto-renew."""
    method_id = intent.payment_method if isinstance(intent.payment_method, str) else None
    if not method_id or intent.setup_future_usage != "off_session" or not intent.customer:
        return None
    row = SavedCard.objects.filter(customer_id=payment.customer_id, stripe_customer_id=intent.customer).first()
    if row is None:
        return None
    if row.has_card and row.payment_method_id != method_id:
        # The customer's chosen renewal card stays (a collection page also saves the card it is paid with).
        logger.info("payment %s: paid with another card than the saved one, which is kept", payment.pk)
        return row
    try:
        method = stripe_client.call(
            "payment method retrieve", lambda client: client.v1.payment_methods.retrieve(method_id)
        )
    except PaymentError as err:
        logger.warning("payment %s: its card could not be read back (%s); not saved", payment.pk, err.detail)
        return None
    if method.card is None:  # not a card (Checkout here only takes cards): nothing to show or charge later
        logger.warning("payment %s: its payment method is not a card; not saved", payment.pk)
        return None
    return card_keep(row, method, customer=payment.customer)


def card_keep(row: SavedCard, method: Any, *, customer: Customer) -> SavedCard:
    """Make `method` (a card on the row's Stripe Customer) the saved card; the one it replaces is detached. Keeping
    the card already kept changes nothing and logs nothing (a repeated event, the return page after the webhook)."""
    card = method.card
    if row.payment_method_id == method.id:
        return row
    replaced = row.payment_method_id if row.payment_method_id and row.payment_method_id != method.id else ""
    # Conditional: of two doors keeping the same card at once (the webhook, the return page), one logs it.
    kept = (
        SavedCard.objects.filter(pk=row.pk)
        .exclude(payment_method_id=method.id)
        .update(
            payment_method_id=method.id,
            brand=str(card.brand or "card")[:32],
            last4=str(card.last4 or "")[:4],
            exp_month=card.exp_month,
            exp_year=card.exp_year,
            saved_at=timezone.now(),
        )
    )
    row.refresh_from_db()
    if not kept:
        return row
    activity_record(action="card_saved", customer=customer, detail={"brand": row.brand, "last4": row.last4})
    if replaced:
        _detach_quietly(replaced)  # one card is kept: the one paid with last
    return row


def _detach(client: stripe.StripeClient, method_id: str) -> Any:
    # Detaching twice is refused by Stripe anyway; the key makes a retry after a lost answer get the first answer.
    return client.v1.payment_methods.detach(method_id, options={"idempotency_key": f"detach-{method_id}"})


def _detach_quietly(method_id: str) -> None:
    try:
        stripe_client.call("payment method detach", lambda client: _detach(client, method_id), changes_state=True)
    except PaymentError as err:
        logger.info("detaching the replaced card %s: %s", method_id, err.detail)


def card_remove(*, customer: Customer) -> bool:
    """Detach the saved card at Stripe and forget it here. False when there was none."""
    card = saved_card_for(customer)
    if card is None:
        return False
    method_id = card.payment_method_id
    try:
        stripe_client.call("payment method detach", lambda client: _detach(client, method_id), changes_state=True)
    except PaymentRefused as err:
        # Already detached (removed at Stripe, or a second click): forgetting it here is all that is left.
        logger.info("detaching %s: %s", method_id, err.detail)
    forgotten = SavedCard.objects.filter(pk=card.pk, payment_method_id=method_id).update(
        payment_method_id="", brand="", last4="", exp_month=None, exp_year=None, saved_at=None
    )
    if forgotten:
        activity_record(action="card_removed", customer=customer, detail={"brand": card.brand, "last4": card.last4})
    return True
