"""Payments: start (a Checkout Session for the reviewed lines, or the saved card off-session), settle (the one step
every door leads to), capture and release.

Authorise, register, then capture: the card is only authorised at checkout (`capture_method=manual`); once the
authorisation for exactly the quoted amount is read back from Stripe, each line is handed to the registering
side; then the amount of the lines that registered is captured and the rest released, or the authorisation is
cancelled when none did. A line whose registration outcome is unknown holds its part (no capture yet) until
`payment_line_resolve` settles it. An authorisation that lapses after lines registered makes the payment
registered-unpaid (billing.payments.collection).

Settling runs in the worker (`payment_settle_later` enqueues it): the return page, the webhook and the reconciler
only ask for it, so a slow provider (seconds per registration, twenty lines) never holds a request. Each line is
claimed for a few minutes (a lease) before it is delivered: a worker that dies mid-line leaves it to be taken over,
and the delivering side finds its own earlier work by the checkout id, so no line is delivered twice.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import Customer
from accounts.staff.activity import activity_record
from billing.alerts import payment_flag
from billing.documents.issuing import receipt_issue
from billing.errors import (
    CheckoutChanged,
    PaymentError,
    PaymentOutcomeUnknown,
    PaymentRefused,
    PaymentsDisabled,
    SessionClosed,
    UnknownSession,
)
from billing.jobs import payment_settle_enqueue
from billing.ledger.books import ledger_capture_book
from billing.ledger.lines import LineOutcome, LineResult, LineToPay, line_kind_of
from billing.ledger.taxes import lines_taxed, stripe_tax_rate, vat_refund_pending
from billing.models import Dispute, Payment, PaymentLine, SavedCard
from billing.payment_fees import payment_fee_later
from billing.payments import stripe_client
from billing.payments.cards import (
    card_save_from_intent,
    forget_stripe_customer,
    saved_card_charge,
    saved_card_for,
    stripe_customer_id,
)
from billing.payments.collection import collection_settle, payment_unpaid_line_resolved, payment_unpaid_mark
from billing.payments.minimum_charge import minimum_charge_check
from pricing.currencies import rate_for
from pricing.money import Money
from pricing.promotions import redemptions_release
from pricing.tax import tax_rules

if TYPE_CHECKING:  # types only: the calls go through billing.payments.stripe_client
    import stripe
    from stripe.params.checkout import SessionCreateParams, SessionCreateParamsLineItem

logger = logging.getLogger(__name__)

# A claim (of a line's registration, or of the capture call) older than this was abandoned by a process that died
# mid-call: another door may take it over. Both callees are idempotent (the registration machinery per checkout
# and domain, Stripe's capture per idempotency key), so taking over never does the work twice.
STALE_CLAIM = dt.timedelta(minutes=5)
# A line in one of these may have been delivered: a payment whose hold lapsed with one is registered-unpaid.
MAY_BE_DELIVERED = (PaymentLine.Status.REGISTERED, PaymentLine.Status.UNKNOWN, PaymentLine.Status.REGISTERING)
# An off-session authorisation whose answer was lost (a payment's failure_code until Stripe's answer is known).
OFF_SESSION_UNKNOWN = "off_session_unknown"
# The pages that wait for a payment poll every few seconds: the worker is asked at most this often per payment.
SETTLE_ASK_SECONDS = 10


@dataclass(frozen=True)
class StartedPayment:
    payment: Payment
    url: str  # Stripe's hosted payment page: answer the checkout POST with a 303 to it


# --- Starting ---------------------------------------------------------------------------------------------------


def payment_start(
    *,
    customer: Customer,
    lines: Sequence[LineToPay],
    checkout_id: uuid.UUID,
    success_url: str,
    cancel_url: str,
) -> StartedPayment:
    """Record a Payment for the lines and open a Checkout Session for it (once per checkout).

    `success_url` should carry `{CHECKOUT_SESSION_ID}`, which Stripe fills in on the way back.
    Raises PaymentsDisabled, PaymentUnavailable, PaymentRefused, CheckoutChanged (same checkout, other lines).
    """
    if settings.PAYMENTS_DISABLED:
        raise PaymentsDisabled("PAYMENTS_DISABLED is on")
    if not lines:
        raise PaymentError("no lines to pay")
    currency = lines[0].price.currency
    if any(line.price.currency != currency or line.price.amount < 0 for line in lines):
        raise PaymentError("lines must share one currency and cost 0 or more")
    _check_chargeable(lines)
    minimum_charge_check(lines)
    payment = _payment_for(customer=customer, lines=lines, checkout_id=checkout_id, currency=currency)
    if payment.status != Payment.Status.CREATED:
        raise PaymentError(f"payment {payment.pk} is already {payment.status}", code="already_paid")
    if payment.stripe_session_id:
        return _reopen(payment, payment.stripe_session_id)
    # The card paid with is saved on the customer's Stripe Customer, for auto-renew (billing/payments/cards.py).
    try:
        session = _session_create(payment, success_url=success_url, cancel_url=cancel_url)
    except PaymentRefused as err:
        if err.code != "resource_missing":
            raise
        # The stored Customer is not on this Stripe account (the keys changed, the sandbox was reset): forget it
        # and its card, and open the session for a new one.
        forget_stripe_customer(customer=customer)
        session = _session_create(payment, success_url=success_url, cancel_url=cancel_url)
    if session.status != "open":
        raise PaymentError(f"session {session.id} is {session.status}", code="session_closed")
    Payment.objects.filter(pk=payment.pk, stripe_session_id__isnull=True).update(stripe_session_id=session.id)
    payment.refresh_from_db()
    return StartedPayment(payment=payment, url=session.url)


def _check_chargeable(lines: Sequence[LineToPay]) -> None:
    """Every price must be an amount Stripe takes in its currency (a price in fractions of a króna is not)."""
    try:
        for line in lines:
            stripe_client.to_minor(line.price.amount, line.price.currency)
    except stripe_client.NotChargeable as err:
        raise PaymentError(str(err), code="not_chargeable") from err


def _session_create(payment: Payment, *, success_url: str, cancel_url: str) -> Any:
    stripe_customer = stripe_customer_id(customer=payment.customer)
    return stripe_client.call(
        "checkout session create",
        lambda client: client.v1.checkout.sessions.create(
            params=_session_params(
                payment, success_url=success_url, cancel_url=cancel_url, stripe_customer=stripe_customer
            ),
            # The same checkout (for the same Customer) opens the same session, however many times it is posted.
            options={"idempotency_key": f"checkout-{payment.checkout_id}-{stripe_customer}"},
        ),
    )


def _reopen(payment: Payment, session_id: str) -> StartedPayment:
    """The checkout posted again: back to its session's page while it is open. An expired session settles the
    payment as cancelled (a new review then gets a new checkout id); a completed one is being settled."""
    session = stripe_client.call(
        "checkout session retrieve", lambda client: client.v1.checkout.sessions.retrieve(session_id)
    )
    if session.status == "open" and session.url:  # (an open session always has its page)
        return StartedPayment(payment=payment, url=session.url)
    if session.status == "complete":
        payment_settle_later(payment=payment)  # the worker registers its lines
        raise PaymentError(f"session {session_id} is complete", code="already_paid")
    payment_advance(payment=payment)  # expired: recorded as cancelled
    raise SessionClosed(f"session {session_id} is {session.status}", code="session_closed")


def _payment_for(*, customer: Customer, lines: Sequence[LineToPay], checkout_id: uuid.UUID, currency: str) -> Payment:
    # Each line's tax, computed once here (pricing/tax.py): the payment's amount is what the customer pays.
    rules = tax_rules()
    taxed = lines_taxed(customer=customer, lines=lines, rules=rules)
    total = sum((each.tax.gross.amount for each in taxed), Decimal(0))
    # The rate of the payment's currency now (its prices were converted at it moments ago): the books keep it.
    rate = rate_for(currency)
    if rate is None:
        logger.warning("payment in %s, a currency the store does not offer: no rate kept", currency)
    try:
        with transaction.atomic():
            payment = Payment.objects.create(
                customer=customer,
                checkout_id=checkout_id,
                currency=currency,
                amount=total,
                rate=rate,
                seller_tax_id=rules.registration.tax_id if rules.registration else "",
                seller_tax_name=rules.registration.name if rules.registration else "",
                buyer_tax_number=customer.business_tax_number,
                tax_country=customer.country[:2],
                tax_inclusive=rules.inclusive,
                vat_refund_due=any(each.tax.tax.amount > 0 for each in taxed) and vat_refund_pending(customer, rules),
            )
            PaymentLine.objects.bulk_create(
                PaymentLine(
                    payment=payment,
                    position=index,
                    reference=line.reference,
                    description=line.description,
                    amount=tax.net.amount,
                    tax_amount=tax.tax.amount,
                    tax_rate=tax.rate,
                    tax_label=tax.label,
                    reverse_charge=tax.reverse_charge,
                    details=line.details,
                    cause=line.cause,
                    tld=line.tld[:63],
                    cost=line.cost.amount if line.cost is not None and line.cost.currency == currency else None,
                    list_amount=line.list_price.amount if line.list_price is not None else None,
                    discount=line.discount.amount if line.discount is not None else None,
                    promotion_id=line.promotion_id,
                )
                for index, (line, tax) in enumerate((each.line, each.tax) for each in taxed)
            )
            return payment
    except IntegrityError:
        # This checkout already has its payment (a second click, another tab): the same lines reuse it.
        payment = Payment.objects.get(checkout_id=checkout_id)
        same = [(each.line.reference, each.tax.gross.amount) for each in taxed] == [
            (line.reference, line.gross_amount) for line in payment.lines.all()
        ]
        if payment.customer_id != customer.pk or payment.currency != currency or not same:
            raise CheckoutChanged(f"checkout {checkout_id} was started with other lines") from None
        return payment


def _session_params(
    payment: Payment, *, success_url: str, cancel_url: str, stripe_customer: str
) -> SessionCreateParams:
    metadata = {"checkout_id": str(payment.checkout_id), "payment_id": str(payment.pk)}
    tax_rates: dict[str, list[str]] = {}
    return {
        "mode": "payment",
        "success_url": success_url,
        "cancel_url": cancel_url,
        "client_reference_id": str(payment.checkout_id),
        # The Customer carries the email (Stripe takes `customer` or `customer_email`, not both).
        "customer": stripe_customer,
        "metadata": metadata,
        # Cards only: a card is what auto-renew charges later, and other methods (wallets, bank debits) may settle
        # days later or leave nothing to save.
        "allowed_payment_method_types": ["card"],
        # The customer pays the amount quoted in their currency: no conversion at Stripe's page, so the charge,
        # the receipt and the books are in one currency.
        "adaptive_pricing": {"enabled": False},
        "payment_intent_data": {
            "capture_method": "manual",
            "metadata": metadata,
            # The card is kept on the Customer for later charges without the customer present (auto-renew), when
            # none is saved yet: a saved card is the one the customer chose for renewals, and paying with another
            # must not replace it without a word (they replace it themselves: "Use another card" on /account/).
            **({"setup_future_usage": "off_session"} if saved_card_for(payment.customer) is None else {}),
        },
        # Each line at its price as quoted (its tax inside it when prices include tax), with the Tax Rate that
        # makes Stripe show and charge the same tax as our receipt.
        "line_items": [_line_item(payment, line, tax_rates) for line in payment.lines.all()],
    }


def _line_item(payment: Payment, line: PaymentLine, tax_rates: dict[str, list[str]]) -> SessionCreateParamsLineItem:
    item: SessionCreateParamsLineItem = {
        "quantity": 1,
        "price_data": {
            "currency": payment.currency.lower(),
            "unit_amount": stripe_client.to_minor(
                line.gross_amount if payment.tax_inclusive else line.amount, payment.currency
            ),
            "product_data": {"name": line.description},
        },
    }
    rates = stripe_tax_rate(payment, line, tax_rates)
    if rates:  # an untaxed line (reverse charge, no rate) carries none
        item["tax_rates"] = rates
    return item


# --- Settling: the one step both doors call ---------------------------------------------------------------------


def payment_settle(*, session_id: str) -> Payment:
    """Move the session's payment (its checkout's, or its payment link's) as far as Stripe's state allows; safe to
    call any number of times, in any order. Raises UnknownSession, PaymentUnavailable."""
    payment = Payment.objects.for_session(session_id)
    if payment is None:
        raise UnknownSession(f"no payment for session {session_id}")
    if payment.collection_session_id == session_id:
        return collection_settle(payment=payment)
    return payment_advance(payment=payment)


def payment_advance(*, payment: Payment) -> Payment:
    """Move a payment as far as Stripe's state allows: read its authorisation back from Stripe (never trusting what a
    caller says about it), register each line once, then capture once (or release). Raises PaymentUnavailable."""
    if payment.status == Payment.Status.UNPAID:
        return collection_settle(payment=payment)  # its payment link may have been paid
    if payment.is_settled:
        return payment
    if payment.status == Payment.Status.CREATED and payment.stripe_session_id:
        session_id = payment.stripe_session_id
        session = stripe_client.call(
            "checkout session retrieve",
            lambda client: client.v1.checkout.sessions.retrieve(
                session_id, params={"expand": ["payment_intent", "payment_intent.latest_charge"]}
            ),
        )
        payment = _record_authorisation(payment, session)
    elif payment.status == Payment.Status.CREATED and payment.stripe_payment_intent_id:
        payment = _record_off_session_intent(payment, _intent(payment.stripe_payment_intent_id))
    elif payment.status == Payment.Status.CREATED and payment.failure_code == OFF_SESSION_UNKNOWN:
        payment = _authorise_again(payment)
    return _settle_authorised(payment)


def _authorise_again(payment: Payment) -> Payment:
    """An off-session authorisation whose answer was lost: asked again with the same key, Stripe answers what it did
    the first time (a second charge never happens). Raises PaymentOutcomeUnknown while it still cannot tell."""
    card = saved_card_for(payment.customer)
    if card is None:
        return payment  # removed meanwhile: staff see the flag (the hold, if any, lapses by itself)
    return _authorise_off_session(payment, card=card)


def payment_follow(*, payment: Payment) -> Payment:
    """An event or the reconciler: an authorised payment whose intent Stripe captured or cancelled (a lapsed hold)
    takes that over; otherwise the payment is moved on as far as it can go."""
    if payment.status == Payment.Status.AUTHORISED:
        intent = _intent(payment.stripe_payment_intent_id)
        if intent.status in ("succeeded", "canceled"):
            return record_intent(payment=payment, intent=intent)
    return payment_advance(payment=payment)


def payment_settle_later(*, payment: Payment) -> None:
    """Ask the worker to settle this payment (the return page, the webhook). Asked at most every few seconds per
    payment: the pages that wait poll, and the task is idempotent anyway."""
    waiting = not payment.is_settled or payment.status == Payment.Status.UNPAID
    if not waiting or not cache.add(f"payment-settle:{payment.pk}", 1, SETTLE_ASK_SECONDS):
        return
    payment_settle_enqueue(payment_id=payment.pk)


def payment_returned(*, customer: Customer, token: str) -> Payment | None:
    """A payment page's return door (`?paid=<checkout id>` and the like): the customer's payment, with its settling
    asked of the worker as the webhook would (whichever comes first settles it, once). None when `token` names no
    payment of this customer's."""
    try:
        checkout_id = uuid.UUID(token)
    except ValueError:
        return None
    payment = Payment.objects.filter(checkout_id=checkout_id, customer=customer).first()
    if payment is None:
        return None
    if not payment.is_settled:
        payment_settle_later(payment=payment)
        payment.refresh_from_db()
    return payment


def payment_settle_asked(*, payment_id: int) -> None:
    """The settle task failed (Stripe unreachable): the next poll may ask again at once."""
    cache.delete(f"payment-settle:{payment_id}")


def _intent(intent_id: str) -> Any:
    return stripe_client.call(
        "payment intent retrieve",
        lambda client: client.v1.payment_intents.retrieve(intent_id, params={"expand": ["latest_charge"]}),
    )


def _settle_authorised(payment: Payment) -> Payment:
    """Register the lines of an authorised payment (each once), then capture or release once."""
    if payment.status != Payment.Status.AUTHORISED:
        return payment
    _deliver_lines(payment)
    return _capture_when_decided(payment)


def _record_authorisation(payment: Payment, session: Any) -> Payment:
    intent = session.payment_intent
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        if payment.status != Payment.Status.CREATED:
            return payment  # another door got here first
        if session.status == "expired" or (intent is not None and intent.status == "canceled"):
            payment.status, payment.settled_at = Payment.Status.CANCELLED, timezone.now()
            payment.save(update_fields=["status", "settled_at", "updated_at"])
            redemptions_release(checkout_id=payment.checkout_id)  # never paid: a promotion's uses go back
            return payment
        if session.status != "complete" or intent is None or intent.status != "requires_capture":
            return payment  # not paid (yet): declined cards leave the session open
        payment.stripe_payment_intent_id = intent.id
        expected = stripe_client.to_minor(payment.amount, payment.currency)
        matches = (
            intent.amount_capturable == expected
            and intent.currency == payment.currency.lower()
            and session.client_reference_id == str(payment.checkout_id)
        )
        payment.amount_authorised = stripe_client.from_minor(intent.amount_capturable, intent.currency)
        payment.capture_before = stripe_client.capture_before(intent)
        payment.status = Payment.Status.AUTHORISED
        fields = ["stripe_payment_intent_id", "amount_authorised", "capture_before", "status", "updated_at"]
        payment.save(update_fields=fields)
    if not matches:
        # Never register on an authorisation for another amount than quoted: let it go, and tell staff.
        payment_flag(payment, f"authorised {payment.amount_authorised} {intent.currency}, quoted {payment.amount}")
        PaymentLine.objects.filter(payment=payment, status=PaymentLine.Status.PENDING).update(
            status=PaymentLine.Status.FAILED
        )
        redemptions_release(checkout_id=payment.checkout_id)
        return payment_release(payment=payment)
    card_save_from_intent(payment=payment, intent=intent)
    return payment


# --- Off-session: charging the saved card (auto-renew) ------------------------------------------------------------


def payment_charge_saved(*, customer: Customer, lines: Sequence[LineToPay], checkout_id: uuid.UUID) -> Payment:
    """Authorise the lines' total on the customer's saved card without them (manual capture), then register each
    line once and capture or release once, as a Checkout payment is settled. Safe to call again for the same
    `checkout_id` (the same Payment, and Stripe's answer to the same idempotency key): it charges once.

    A refused card leaves the payment CANCELLED with `failure_code` (nothing charged). Raises PaymentError when
    there is no saved card, PaymentUnavailable when Stripe cannot be asked (call again later).
    """
    return _settle_authorised(payment_authorise_saved(customer=customer, lines=lines, checkout_id=checkout_id))


def payment_authorise_saved(*, customer: Customer, lines: Sequence[LineToPay], checkout_id: uuid.UUID) -> Payment:
    """The first half of `payment_charge_saved`: the lines' total authorised on the saved card (once per
    `checkout_id`), nothing registered yet. A customer who confirmed a renewal with their saved card waits for the
    worker to register and capture (`payment_settle_later`), as after the payment page.

    A refused card (declined, or its bank asks for an authentication nobody can give off-session) leaves the payment
    CANCELLED with `failure_code`. Raises PaymentError (code "no_saved_card"; "already_paid" when this checkout went
    to the payment page), CheckoutChanged, PaymentUnavailable."""
    if settings.PAYMENTS_DISABLED:
        raise PaymentsDisabled("PAYMENTS_DISABLED is on")
    card = saved_card_for(customer)
    if card is None:
        raise PaymentError(f"customer {customer.pk} has no saved card", code="no_saved_card")
    _check_chargeable(lines)
    currency = lines[0].price.currency
    if any(line.price.currency != currency for line in lines):
        raise PaymentError("lines must share one currency")
    minimum_charge_check(lines)
    payment = _payment_for(customer=customer, lines=lines, checkout_id=checkout_id, currency=currency)
    if payment.stripe_session_id:
        # This checkout was sent to the payment page: never also charged off-session.
        raise PaymentError(f"payment {payment.pk} has a Checkout Session", code="already_paid")
    if payment.status == Payment.Status.CREATED:
        payment = _authorise_off_session(payment, card=card)
    return payment


def _authorise_off_session(payment: Payment, *, card: SavedCard) -> Payment:
    try:
        intent = saved_card_charge(
            card=card,
            amount=Money(payment.amount, payment.currency),
            capture_method="manual",
            description="; ".join(line.description for line in payment.lines.all()),
            metadata={"checkout_id": str(payment.checkout_id), "payment_id": str(payment.pk)},
            # Once per payment: a second run (or a lost answer) gets Stripe's first answer again.
            idempotency_key=f"checkout-{payment.checkout_id}-off-session",
        )
    except PaymentRefused as err:
        # The card was refused (nothing authorised, nothing to release): the payment ends here.
        with transaction.atomic():
            updated = Payment.objects.filter(pk=payment.pk, status=Payment.Status.CREATED).update(
                status=Payment.Status.CANCELLED, failure_code=(err.code or "refused")[:64], settled_at=timezone.now()
            )
            if updated:
                PaymentLine.objects.filter(payment=payment, status=PaymentLine.Status.PENDING).update(
                    status=PaymentLine.Status.FAILED
                )
                redemptions_release(checkout_id=payment.checkout_id)
        payment.refresh_from_db()
        return payment
    except PaymentOutcomeUnknown:
        # Maybe authorised: the next call (auto-renew's next run, or settling: payment_advance) sends the same key
        # and gets Stripe's answer, never a second charge.
        Payment.objects.filter(pk=payment.pk, status=Payment.Status.CREATED).update(failure_code=OFF_SESSION_UNKNOWN)
        payment_flag(payment, "the off-session charge's answer was lost; the next run asks again with the same key")
        raise
    return _record_off_session_intent(payment, intent)


def _record_off_session_intent(payment: Payment, intent: Any) -> Payment:
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        if payment.status != Payment.Status.CREATED:
            return payment
        if intent.status != "requires_capture":
            # Not authorised (e.g. it waits for an authentication nobody can give off-session): let it go.
            payment.failure_code = f"intent_{intent.status}"[:64]
            payment.save(update_fields=["failure_code", "updated_at"])
            matches = False
        else:
            expected = stripe_client.to_minor(payment.amount, payment.currency)
            matches = intent.amount_capturable == expected and intent.currency == payment.currency.lower()
            payment.failure_code = ""  # an earlier answer that was lost is known now
            payment.save(update_fields=["failure_code", "updated_at"])
        payment.stripe_payment_intent_id = intent.id
        payment.amount_authorised = stripe_client.from_minor(intent.amount_capturable or 0, intent.currency)
        payment.capture_before = stripe_client.capture_before(intent)
        payment.status = Payment.Status.AUTHORISED
        fields = ["stripe_payment_intent_id", "amount_authorised", "capture_before", "status", "updated_at"]
        payment.save(update_fields=fields)
    if not matches:
        PaymentLine.objects.filter(payment=payment, status=PaymentLine.Status.PENDING).update(
            status=PaymentLine.Status.FAILED
        )
        redemptions_release(checkout_id=payment.checkout_id)
        return payment_release(payment=payment)
    return payment


def _claim_line(line: PaymentLine) -> bool:
    """Whether this door takes the line's registration: pending, or a registering claim that was abandoned."""
    now = timezone.now()
    claimable = Q(status=PaymentLine.Status.PENDING) | Q(
        status=PaymentLine.Status.REGISTERING, claimed_at__lt=now - STALE_CLAIM
    )
    return bool(
        PaymentLine.objects.filter(claimable, pk=line.pk).update(status=PaymentLine.Status.REGISTERING, claimed_at=now)
    )


def _deliver_lines(payment: Payment) -> None:
    for line in payment.lines.filter(status__in=[PaymentLine.Status.PENDING, PaymentLine.Status.REGISTERING]):
        if not Payment.objects.filter(pk=payment.pk, status=Payment.Status.AUTHORISED).exists():
            return  # the hold lapsed (or was released) meanwhile: nothing more is registered on it
        kind = line_kind_of(line)
        if kind is None:
            payment_flag(payment, f"no app delivers lines of kind {line.details.get('kind')!r}: line {line.pk} waits")
            continue
        if not _claim_line(line):
            continue  # another door is delivering it
        try:
            result = kind.deliver(line)
        except Exception:
            # We cannot tell whether it was delivered: it holds its part until reconciled.
            logger.exception("delivering line %s of payment %s failed unexpectedly", line.pk, payment.pk)
            result = LineResult(LineOutcome.UNKNOWN)
        PaymentLine.objects.filter(pk=line.pk, status=PaymentLine.Status.REGISTERING).update(
            status=result.outcome.value,
            registration_ref=result.reference[:255],
            cost=result.cost if result.cost is not None else F("cost"),
        )
        if result.outcome == LineOutcome.FAILED:
            # Not delivered, not charged: a promotion's use on it goes back.
            redemptions_release(checkout_id=payment.checkout_id, references=[line.reference])


def payment_line_resolve(*, line: PaymentLine, registered: bool, reference: str = "") -> Payment:
    """Reconciliation's answer for a line whose outcome was unknown; captures or releases once all are decided."""
    PaymentLine.objects.filter(pk=line.pk, status=PaymentLine.Status.UNKNOWN).update(
        status=PaymentLine.Status.REGISTERED if registered else PaymentLine.Status.FAILED,
        registration_ref=reference[:255] or F("registration_ref"),
    )
    if not registered:
        redemptions_release(checkout_id=line.payment.checkout_id, references=[line.reference])
    payment = Payment.objects.get(pk=line.payment_id)
    if payment.status == Payment.Status.UNPAID:
        return payment_unpaid_line_resolved(payment=payment)
    return _capture_when_decided(payment)


def paid_lines_resolve(*, checkout_id: uuid.UUID | None = None) -> int:
    """Settle the paid lines whose delivery outcome was lost, once their kind can tell (a registration found in the
    provider's listing, a renewal's expiry moved), so their payment captures or releases their part (or, unpaid,
    is collected). Every such line, or those of one checkout. Lines resolved."""
    resolved = 0
    waiting = PaymentLine.objects.filter(
        status=PaymentLine.Status.UNKNOWN, payment__status__in=(Payment.Status.AUTHORISED, Payment.Status.UNPAID)
    )
    if checkout_id is not None:
        waiting = waiting.filter(payment__checkout_id=checkout_id)
    for line in waiting.select_related("payment__customer"):
        kind = line_kind_of(line)
        delivered = kind.resolve(line) if kind is not None else None
        if delivered is not None:
            payment_line_resolve(line=line, registered=delivered)
            resolved += 1
    return resolved


def _capture_when_decided(payment: Payment) -> Payment:
    statuses = set(payment.lines.values_list("status", flat=True))
    if statuses & {PaymentLine.Status.PENDING, PaymentLine.Status.REGISTERING}:
        return payment
    if PaymentLine.Status.UNKNOWN in statuses:
        payment_flag(payment, "a line's registration is unknown: its part is held until reconciliation settles it")
        return payment
    if PaymentLine.Status.REGISTERED in statuses:
        return payment_capture(payment=payment)
    return payment_release(payment=payment)


# --- Capture, release, refund -----------------------------------------------------------------------------------
# Idempotency keys are made of the checkout id (a UUID), never our row ids: a database may hand a rolled-back id
# out again, and Stripe would then answer another payment's request with this one's first answer.


def _claim_capture(payment: Payment) -> bool:
    now = timezone.now()
    return bool(
        Payment.objects.filter(pk=payment.pk, status=Payment.Status.AUTHORISED)
        .filter(Q(capture_started_at__isnull=True) | Q(capture_started_at__lt=now - STALE_CLAIM))
        .update(capture_started_at=now)
    )


def _unclaim(payment: Payment) -> None:
    # Nothing happened at Stripe, or its outcome is unknown: the next door retries (with the same idempotency key,
    # so a capture that did happen is answered again, never done twice).
    Payment.objects.filter(pk=payment.pk, status=Payment.Status.AUTHORISED).update(capture_started_at=None)


def _intent_change(
    payment: Payment,
    what: str,
    *,
    key: str,
    change: Callable[[stripe.StripeClient, stripe.RequestOptions], stripe.PaymentIntent],
) -> Payment:
    """Capture or release through stripe_client.change_state: claimed on the payment (capture_started_at), read back
    as the payment intent, and recorded once (record_intent)."""
    intent = stripe_client.change_state(
        f"payment intent {what}",
        claim=stripe_client.Claim(take=lambda: _claim_capture(payment), give_back=lambda: _unclaim(payment)),
        idempotency_key=key,
        change=change,
        read_back=lambda client: client.v1.payment_intents.retrieve(payment.stripe_payment_intent_id),
        unknown=lambda: payment_flag(
            payment, f"the {what}'s outcome is unknown; the next settle retries it with the same key"
        ),
    )
    if intent is None:
        payment.refresh_from_db()
        return payment
    return record_intent(payment=payment, intent=intent)


def payment_capture(*, payment: Payment) -> Payment:
    """Capture the amount of the registered lines (the rest of the authorisation is released). Once."""
    amount = sum((line.gross_amount for line in payment.lines.filter(status=PaymentLine.Status.REGISTERED)), Decimal(0))
    minor = stripe_client.to_minor(amount, payment.currency)
    return _intent_change(
        payment,
        "capture",
        key=f"checkout-{payment.checkout_id}-capture-{minor}",
        change=lambda client, options: client.v1.payment_intents.capture(
            payment.stripe_payment_intent_id, params={"amount_to_capture": minor}, options=options
        ),
    )


def payment_release(*, payment: Payment) -> Payment:
    """Cancel the authorisation (nothing registered, or the amount was not the quoted one). Once."""
    return _intent_change(
        payment,
        "release",
        key=f"checkout-{payment.checkout_id}-release",
        change=lambda client, options: client.v1.payment_intents.cancel(
            payment.stripe_payment_intent_id, options=options
        ),
    )


def record_intent(*, payment: Payment, intent: Any) -> Payment:
    """Take over what Stripe says the payment intent now is (captured or cancelled), once, with the receipt."""
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        if payment.status != Payment.Status.AUTHORISED:
            return payment
        if intent.status == "succeeded":
            payment.amount_captured = stripe_client.from_minor(intent.amount_received, intent.currency)
            full = payment.amount_captured == payment.amount_authorised
            payment.status = Payment.Status.CAPTURED if full else Payment.Status.PARTIALLY_CAPTURED
            # What held it (an unknown line, a lost answer) is settled now; a dispute recorded meanwhile (its event
            # came before this capture's answer was reconciled) keeps the payment in front of staff, with its reason.
            if not payment.disputes.filter(status__in=Dispute.OPEN_STATUSES).exists():
                payment.needs_attention, payment.attention_reason = False, ""
            ledger_capture_book(
                payment=payment,
                source_id=stripe_client.charge_id(intent),
                amount=payment.amount_captured,
                occurred_at=timezone.now(),
            )
            payment_fee_later(payment=payment, source_id=stripe_client.charge_id(intent))
        elif intent.status == "canceled" and payment.lines.filter(status__in=MAY_BE_DELIVERED).exists():
            # The hold lapsed (or was cancelled at Stripe) after lines were registered (or may have been): they are
            # collected now, and those still unknown once they turn out registered.
            payment_unpaid_mark(payment, since=stripe_client.when(getattr(intent, "canceled_at", None)))
            return payment
        elif intent.status == "canceled":
            payment.status = Payment.Status.CANCELLED
            redemptions_release(checkout_id=payment.checkout_id)
            activity_record(action="payment_released", payment=payment, detail={"currency": payment.currency})
        else:
            _unclaim(payment)
            payment_flag(payment, f"Stripe says the payment intent is {intent.status}")
            return payment
        payment.settled_at = timezone.now()
        fields = ["amount_captured", "status", "settled_at", "needs_attention", "attention_reason", "updated_at"]
        payment.save(update_fields=fields)
        if payment.amount_captured > 0:
            receipt_issue(payment=payment)
    return payment


def payments_needing_attention():
    """Payments staff should look at: flagged, or authorised and not settled after a while."""
    # The lines as a subquery, not a join: no DISTINCT over every payment and its lines (the admin's filter at
    # 100,000 payments).
    unknown = PaymentLine.objects.filter(status=PaymentLine.Status.UNKNOWN).values("payment_id")
    return Payment.objects.filter(
        Q(needs_attention=True)
        | Q(status=Payment.Status.AUTHORISED, updated_at__lt=timezone.now() - STALE_CLAIM)
        | Q(pk__in=unknown)
    )
