"""Registered, not paid: an authorisation that lapsed (or was cancelled at Stripe) after its lines were registered.

The payment becomes UNPAID (counted for staff, flagged) and is collected: one attempt on the customer's saved card
(off-session, captured at once), else an email with a payment link, `/payments/pay/<checkout id>/`, which opens a
Checkout Session for what is owed when the customer follows it (a session lasts a day at most; the link does not
expire), and the domain's page says a payment is due. Either way, the money collected is a capture in the ledger and
the receipt follows. Staff may collect again (the card once more, and the link again) or write the lines off (a
ledger entry: their price not collected, their cost kept).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from accounts.models import Customer
from accounts.staff.activity import activity_record
from billing.documents.emails import checkout_thread
from billing.documents.issuing import receipt_issue
from billing.errors import PaymentError, PaymentOutcomeUnknown, PaymentRefused, PaymentUnavailable
from billing.jobs import payment_collect_enqueue
from billing.ledger.books import ledger_capture_book, ledger_write_off_book
from billing.models import Payment, PaymentLine, SavedCard
from billing.payment_fees import payment_fee_later
from billing.payments import stripe_client
from billing.payments.cards import saved_card_charge, saved_card_for, stripe_customer_id
from pricing.promotions import redemptions_release
from storefront.background.outbox import email_queue

logger = logging.getLogger(__name__)

# The card attempt's answer was lost (or Stripe could not be reached): the next try sends the same key.
OUTCOME_UNKNOWN = "outcome_unknown"


def payment_unpaid_mark(payment: Payment, *, since: dt.datetime) -> None:
    """In the caller's transaction, the payment row locked: its hold lapsed after lines registered. Lines never
    delivered will not be (nothing holds their money); collecting starts in the worker."""
    payment.status = Payment.Status.UNPAID
    payment.unpaid_since = since
    payment.settled_at = timezone.now()
    payment.needs_attention = True
    payment.attention_reason = (
        f"Registered, not paid: the card authorisation lapsed on {since:%Y-%m-%d %H:%M} UTC before it was captured. "
        "Collecting: the saved card once, then a payment link by email."
    )
    fields = ["status", "unpaid_since", "settled_at", "needs_attention", "attention_reason", "updated_at"]
    payment.save(update_fields=fields)
    never = PaymentLine.objects.filter(payment=payment, status=PaymentLine.Status.PENDING)
    references = list(never.values_list("reference", flat=True))
    never.update(status=PaymentLine.Status.FAILED)
    if references:  # a promotion's uses on lines that will not be delivered go back, as for any failed line
        redemptions_release(checkout_id=payment.checkout_id, references=references)
    logger.warning("payment %s: registered, not paid (the hold lapsed)", payment.pk)
    # In the same transaction (the database task queue): collecting starts exactly when the state is committed.
    payment_collect_enqueue(payment_id=payment.pk)


def payment_collect(*, payment: Payment, again: bool = False) -> Payment:
    """Collect a registered-unpaid payment: the saved card once (`again`: staff ask for one more try), else the
    payment link by email. Raises PaymentUnavailable when Stripe cannot be asked (the task is tried again)."""
    payment.refresh_from_db()
    if payment.status != Payment.Status.UNPAID:
        return payment
    if again:
        _expire_link_session(payment)
        Payment.objects.filter(pk=payment.pk, status=Payment.Status.UNPAID).update(collection_card_tried_at=None)
        payment.refresh_from_db()
        if payment.status != Payment.Status.UNPAID:
            return payment
    if payment.unpaid_total.amount == 0:
        return payment  # only lines still unknown: collected once one turns out registered
    card = saved_card_for(payment.customer)
    if card is not None and (_claim_card_attempt(payment) or payment.collection_failure_code == OUTCOME_UNKNOWN):
        payment.refresh_from_db()
        intent = _charge_card(payment, card=card)
        if intent is not None and intent.status == "succeeded":
            return _collected(payment, intent)
    _link_email_queue(payment, again=again)
    payment.refresh_from_db()
    return payment


def payment_unpaid_line_resolved(*, payment: Payment) -> Payment:
    """A line of a registered-unpaid payment whose outcome was unknown is now known: registered, it is owed too (the
    collection asks for it); not registered, and nothing else owed or unknown, the payment ends cancelled."""
    statuses = set(payment.lines.values_list("status", flat=True))
    if PaymentLine.Status.UNKNOWN in statuses or PaymentLine.Status.REGISTERING in statuses:
        return payment
    if PaymentLine.Status.REGISTERED not in statuses:
        Payment.objects.filter(pk=payment.pk, status=Payment.Status.UNPAID).update(
            status=Payment.Status.CANCELLED, needs_attention=False, attention_reason=""
        )
        payment.refresh_from_db()
        return payment
    if payment.collection_card_tried_at is None:
        payment_collect_enqueue(payment_id=payment.pk)
    return payment


def _claim_card_attempt(payment: Payment) -> bool:
    return bool(
        Payment.objects.filter(
            pk=payment.pk, status=Payment.Status.UNPAID, collection_card_tried_at__isnull=True
        ).update(collection_card_tried_at=timezone.now())
    )


def _charge_card(payment: Payment, *, card: SavedCard) -> Any:
    """One charge of what is owed on the saved card, captured at once; None when the card was refused."""
    tried = payment.collection_card_tried_at or timezone.now()
    try:
        intent = saved_card_charge(
            card=card,
            amount=payment.unpaid_total,
            capture_method="automatic",
            description="; ".join(_registered(payment).values_list("description", flat=True)),
            metadata=_metadata(payment),
            # One charge per attempt: a lost answer asked again gets Stripe's first answer.
            idempotency_key=f"checkout-{payment.checkout_id}-collect-{int(tried.timestamp())}",
        )
    except PaymentRefused as err:
        Payment.objects.filter(pk=payment.pk).update(collection_failure_code=(err.code or "refused")[:64])
        logger.info("payment %s: the saved card was refused (%s); a payment link is emailed", payment.pk, err.code)
        return None
    except (PaymentOutcomeUnknown, PaymentUnavailable):
        # Perhaps charged: the next try sends the same key (the attempt's time is kept), never a second charge.
        Payment.objects.filter(pk=payment.pk).update(collection_failure_code=OUTCOME_UNKNOWN)
        raise
    code = "" if intent.status == "succeeded" else f"intent_{intent.status}"[:64]
    Payment.objects.filter(pk=payment.pk).update(collection_failure_code=code)
    return intent


def _collected(payment: Payment, intent: Any) -> Payment:
    """Stripe took what was owed (the saved card or the payment link): a capture in the ledger, and the receipt."""
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        if payment.status != Payment.Status.UNPAID:
            return payment
        amount = stripe_client.from_minor(intent.amount_received, intent.currency)
        ledger_capture_book(
            payment=payment, source_id=stripe_client.charge_id(intent), amount=amount, occurred_at=timezone.now()
        )
        payment_fee_later(payment=payment, source_id=stripe_client.charge_id(intent))
        payment.amount_captured = amount
        payment.collection_intent_id = intent.id
        payment.status = Payment.Status.CAPTURED
        payment.needs_attention, payment.attention_reason = False, ""
        payment.settled_at = timezone.now()
        fields = ["amount_captured", "collection_intent_id", "status", "needs_attention", "attention_reason"]
        payment.save(update_fields=[*fields, "settled_at", "updated_at"])
        receipt_issue(payment=payment)
    logger.info("payment %s: registered-unpaid, now collected (%s %s)", payment.pk, amount, payment.currency)
    return payment


def _link_email_queue(payment: Payment, *, again: bool) -> bool:
    customer = payment.customer
    with customer_language(customer):
        context = {
            "customer": customer,
            "payment": payment,
            "lines": list(_registered(payment)),
            "total": payment.unpaid_total,
            "url": collection_url(payment),
            "store_name": settings.STORE_NAME,
        }
        subject = render_to_string("billing/email/payment_due_subject.txt", context).strip()
        body = render_to_string("billing/email/payment_due_body.txt", context)
    key = f"payment-link:{payment.checkout_id}" + (f":{timezone.now().timestamp()}" if again else "")
    message = EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [customer.email])
    return email_queue(message, key=key, thread=checkout_thread(payment.checkout_id))


def collection_url(payment: Payment) -> str:
    return settings.SITE_URL + reverse("billing:pay_due", args=[payment.checkout_id])


def _registered(payment: Payment):
    return payment.lines.filter(status=PaymentLine.Status.REGISTERED).order_by("position")


def _metadata(payment: Payment) -> dict[str, str]:
    return {"checkout_id": str(payment.checkout_id), "payment_id": str(payment.pk), "purpose": "collection"}


# --- The payment link ---------------------------------------------------------------------------------------------


def collection_session_open(*, payment: Payment, success_url: str, cancel_url: str) -> str:
    """The payment link followed: the address of an open Checkout Session for what is owed (one at a time; a new
    one once the last expired). Raises PaymentError (code "not_due") when nothing is owed any more."""
    if payment.status != Payment.Status.UNPAID:
        raise PaymentError(f"payment {payment.pk} is {payment.status}", code="not_due")
    previous = payment.collection_session_id
    if previous:
        session = _session(previous)
        if session.status == "open" and session.url:
            return str(session.url)
        if session.status == "complete":
            collection_settle(payment=payment)
            raise PaymentError(f"payment {payment.pk}: its link was paid", code="not_due")
    total = payment.unpaid_total
    customer = stripe_customer_id(customer=payment.customer)
    metadata = _metadata(payment)
    session = stripe_client.call(
        "checkout session create (collection)",
        lambda client: client.v1.checkout.sessions.create(
            params={
                "mode": "payment",
                "success_url": success_url,
                "cancel_url": cancel_url,
                "client_reference_id": str(payment.checkout_id),
                "customer": customer,
                "metadata": metadata,
                "allowed_payment_method_types": ["card"],
                "adaptive_pricing": {"enabled": False},
                "payment_intent_data": {"metadata": metadata, "setup_future_usage": "off_session"},
                "line_items": [
                    {
                        "quantity": 1,
                        "price_data": {
                            "currency": total.currency.lower(),
                            "unit_amount": stripe_client.to_minor(line.gross_amount, total.currency),
                            "product_data": {"name": line.description},
                        },
                    }
                    for line in _registered(payment)
                ],
            },
            options={"idempotency_key": f"checkout-{payment.checkout_id}-collect-after-{previous or 'none'}"},
        ),
        changes_state=True,
    )
    Payment.objects.filter(pk=payment.pk, status=Payment.Status.UNPAID).update(collection_session_id=session.id)
    return str(session.url)


def collection_settle(*, payment: Payment) -> Payment:
    """The payment link's session, as Stripe has it: paid (collected), expired (the next visit opens another)."""
    if payment.status != Payment.Status.UNPAID or not payment.collection_session_id:
        return payment
    session = _session(payment.collection_session_id)
    intent = session.payment_intent
    if session.status == "complete" and intent is not None and not isinstance(intent, str):
        if intent.status == "succeeded":
            return _collected(payment, intent)
    if session.status == "expired":
        Payment.objects.filter(pk=payment.pk, collection_session_id=session.id).update(collection_session_id=None)
        payment.refresh_from_db()
    return payment


def _session(session_id: str) -> Any:
    return stripe_client.call(
        "checkout session retrieve",
        lambda client: client.v1.checkout.sessions.retrieve(
            session_id, params={"expand": ["payment_intent", "payment_intent.latest_charge"]}
        ),
    )


def _expire_link_session(payment: Payment) -> None:
    """Close the open payment link's session before the card is tried again or the lines are written off, so the
    customer cannot pay twice; one that was paid meanwhile is collected instead."""
    session_id = payment.collection_session_id
    if not session_id:
        return
    try:
        stripe_client.call(
            "checkout session expire",
            lambda client: client.v1.checkout.sessions.expire(
                session_id, options={"idempotency_key": f"checkout-{payment.checkout_id}-expire-{session_id}"}
            ),
            changes_state=True,
        )
    except PaymentRefused:
        pass  # not open any more: paid or expired, which settling tells
    collection_settle(payment=payment)


# --- Staff --------------------------------------------------------------------------------------------------------


def payment_collect_again(*, payment: Payment) -> bool:
    """Staff ask for a registered-unpaid payment to be collected once more (the saved card, then the payment link): the
    worker does it; the ask is logged. False when the payment is not unpaid any more."""
    if payment.status != Payment.Status.UNPAID:
        return False
    activity_record(action="collection_asked", payment=payment)
    payment_collect_enqueue(payment_id=payment.pk, again=True)
    return True


def payment_write_off(*, payment: Payment, by: str) -> Payment:
    """Staff give up collecting: the registered lines' price is written off (no money moved; their cost stays in the
    books). An open payment link is closed first; one paid meanwhile is collected instead."""
    _expire_link_session(payment)
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        if payment.status != Payment.Status.UNPAID:
            return payment
        now = timezone.now()
        ledger_write_off_book(payment=payment, lines=list(_registered(payment)), occurred_at=now, note=f"by {by}")
        payment.status = Payment.Status.WRITTEN_OFF
        payment.written_off_at, payment.written_off_by = now, by[:150]
        payment.needs_attention, payment.attention_reason = False, ""
        fields = ["status", "written_off_at", "written_off_by", "needs_attention", "attention_reason", "updated_at"]
        payment.save(update_fields=fields)
    return payment


def payment_due_for(*, customer: Customer, reference: str) -> Payment | None:
    """The customer's registered-unpaid payment for this line (a domain name), if any: its page says so."""
    return (
        Payment.objects.filter(
            customer=customer,
            status=Payment.Status.UNPAID,
            lines__reference=reference,
            lines__status=PaymentLine.Status.REGISTERED,
        )
        .order_by("-created_at")
        .first()
    )


def payments_due(*, customer: Customer) -> list[Payment]:
    """The customer's registered-unpaid payments, oldest first (the Billing page lists them with their link)."""
    return list(Payment.objects.filter(customer=customer, status=Payment.Status.UNPAID).order_by("created_at"))


def payment_due_of_user(*, user: Any, checkout_id: uuid.UUID) -> Payment | None:
    """This user's payment of that checkout, if any (the payment link's page answers 404 otherwise)."""
    return Payment.objects.filter(checkout_id=checkout_id, customer__user=user).select_related("customer").first()
