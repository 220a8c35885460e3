"""Adding a card without buying: Stripe Checkout in setup mode.

The customer is sent to a Checkout Session in `mode=setup` for their Stripe Customer; there a SetupIntent saves the
card for later off-session charges (auto-renew, one-click renewals) and attaches it to the Customer. The session is
then settled from either door, the return page or the `checkout.session.completed` event, by reading it back from
Stripe (never trusting the caller): the card becomes the saved card once, whichever door comes first, and the card
it replaces is detached (billing/payments/cards.py keeps one).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

from django.conf import settings

from accounts.models import Activity, Customer
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import current_actor
from billing.errors import PaymentError, PaymentRefused, PaymentsDisabled
from billing.models import SavedCard
from billing.payments import stripe_client
from billing.payments.cards import card_keep, forget_stripe_customer, stripe_customer_id
from storefront.requests.acting_rules import REFUSED_SENTENCE

logger = logging.getLogger(__name__)

# The sessions' metadata names them, so an event about another integration's setup session is not taken for ours.
PURPOSE = "card_setup"
# Stripe's times are whole seconds (and its clock is not ours): a card saved this long after a setup began is newer.
NEWER_AFTER = dt.timedelta(minutes=1)


def card_setup_start(*, customer: Customer, token: uuid.UUID, success_url: str, cancel_url: str) -> tuple[str, str]:
    """The address of Stripe's page where the customer saves a card (a setup-mode Checkout Session; the same one for
    the same form `token`, however many times it is posted), and the session's id (the return page settles only a
    session this browser started). `success_url` should carry `{CHECKOUT_SESSION_ID}`.

    Raises ActingRefused (staff acting as the customer), PaymentsDisabled, PaymentUnavailable, PaymentRefused."""
    if current_actor().kind == Activity.Actor.STAFF_AS_CUSTOMER:
        raise ActingRefused(message=REFUSED_SENTENCE)
    if settings.PAYMENTS_DISABLED:
        raise PaymentsDisabled("PAYMENTS_DISABLED is on")
    try:
        session = _session_create(customer, token=token, success_url=success_url, cancel_url=cancel_url)
    except PaymentRefused as err:
        if err.code != "resource_missing":
            raise
        forget_stripe_customer(customer=customer)  # not on this Stripe account (keys changed, sandbox reset)
        session = _session_create(customer, token=token, success_url=success_url, cancel_url=cancel_url)
    if session.status != "open" or not session.url:
        raise PaymentError(f"setup session {session.id} is {session.status}", code="session_closed")
    return str(session.url), str(session.id)


def _session_create(customer: Customer, *, token: uuid.UUID, success_url: str, cancel_url: str) -> Any:
    stripe_customer = stripe_customer_id(customer=customer)
    metadata = {"purpose": PURPOSE, "storefront_customer": str(customer.pk)}
    return stripe_client.call(
        "checkout session create (setup)",
        lambda client: client.v1.checkout.sessions.create(
            params={
                "mode": "setup",
                "customer": stripe_customer,
                "currency": settings.STORE_CURRENCY.lower(),
                "allowed_payment_method_types": ["card"],
                "success_url": success_url,
                "cancel_url": cancel_url,
                "metadata": metadata,
                "setup_intent_data": {"metadata": metadata, "description": "Card for renewals"},
            },
            options={"idempotency_key": f"card-setup-{token}-{stripe_customer}"},
        ),
    )


def card_setup_settle(*, session_id: str, customer: Customer | None = None) -> SavedCard | None:
    """Keep the card a setup session saved, as Stripe has it now: the saved card (the same one when asked again), or
    None when the session is not ours (or not `customer`'s), not complete, or a newer card was saved since.
    Raises PaymentUnavailable when Stripe cannot be asked."""
    session = stripe_client.call(
        "checkout session retrieve (setup)",
        lambda client: client.v1.checkout.sessions.retrieve(
            session_id, params={"expand": ["setup_intent.payment_method"]}
        ),
    )
    if session.mode != "setup" or stripe_client.metadata_value(session, "purpose") != PURPOSE:
        return None
    rows = SavedCard.objects.filter(stripe_customer_id=session.customer).select_related("customer")
    row = rows.filter(customer=customer).first() if customer is not None else rows.first()
    intent = session.setup_intent
    if row is None or session.status != "complete" or intent is None or isinstance(intent, str):
        return None
    method = intent.payment_method
    if intent.status != "succeeded" or method is None or isinstance(method, str):
        return None
    if row.payment_method_id == method.id:
        return row
    if row.saved_at is not None and row.saved_at > stripe_client.when(intent.created) + NEWER_AFTER:
        # A card paid with (or added) well after this one was set up is the newer choice: a late event keeps it.
        logger.info("setup session %s: a newer card is saved; this one is not kept", session_id)
        return None
    if method.card is None or method.customer != row.stripe_customer_id:
        return None  # detached since (replaced by a newer card, or removed): not brought back by a late event
    return card_keep(row, method, customer=row.customer)
