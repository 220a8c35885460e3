"""Renewing several domains in one payment, from the order list: the domains ticked are shown with their shortest
term, price and new expiry; confirmed, one payment pays for them all (the saved card in one click, or the payment
page), and each line is renewed once, then the renewed lines are captured and the rest released, exactly as a
single renewal's payment is settled (billing/payments/services.py). The outcome page says what became of each line.

Each line's renewal is claimed by a token of its own (derived from the payment's checkout id and the order), so the
lines of one payment never share a Renewal row, and the form posted twice pays and renews once.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext

from accounts.models import Activity, Customer
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import activity_record, current_actor
from billing.errors import CheckoutChanged, PaymentError, SessionClosed
from billing.models import Payment, PaymentLine, SavedCard
from billing.payments.cards import saved_card_for
from billing.payments.services import payment_authorise_saved, payment_settle_later, payment_start
from domains.models import Order, Renewal
from domains.orders import renewals
from domains.orders.payments import renewal_line_to_pay, renewal_token_of
from domains.orders.renewal_flow import card_problem_sentence, renewal_is_paid
from domains.orders.services import order_fetch, renew_quote
from pricing.money import Money
from storefront.errors import StoreError
from storefront.requests.acting_rules import REFUSED_SENTENCE

# One payment renews at most this many domains (each is one provider call to check and one to renew).
MAX_DOMAINS = 20
_NAMESPACE = uuid.UUID("0c8f5f0e-2b8a-4d43-9a57-3f1c2d9e6b21")


class RenewManyRefused(StoreError):
    """Nothing was renewed or charged: `message` says why."""


@dataclass(frozen=True)
class LineAsked:
    """One line of the confirmation, as posted: the domain, the term, the expiry and the price it showed."""

    order_id: int
    duration: int
    expiry_timestamp: int
    price: Decimal


@dataclass(frozen=True)
class ManyLine:
    order: Order
    duration: int
    price: Money
    old_expires_at: dt.datetime
    new_expires_at: dt.datetime
    expiry_timestamp: int

    @property
    def posted(self) -> str:
        """The line as the confirmation form posts it back (order:years:expiry:price)."""
        return f"{self.order.order_id}:{self.duration}:{self.expiry_timestamp}:{self.price.amount}"


@dataclass(frozen=True)
class ManyToConfirm:
    lines: list[ManyLine]
    skipped: list[tuple[Order, str]]  # domains ticked that cannot be renewed here now, and why
    token: uuid.UUID
    card: SavedCard | None
    notice: str = ""  # why the customer confirms again (the card refused, a price or expiry that moved)

    @property
    def total(self) -> Money | None:
        if not self.lines:
            return None
        return Money(sum((line.price.amount for line in self.lines), Decimal(0)), self.lines[0].price.currency)


@dataclass(frozen=True)
class ManyToPay:
    url: str  # the payment page, or the outcome page once the saved card is authorised


@dataclass(frozen=True)
class LineOutcome:
    domain_name: str
    amount: Money
    state: str  # renewed, failed, waiting, unknown
    new_expires_at: dt.datetime | None = None


@dataclass(frozen=True)
class ManyOutcome:
    payment: Payment
    lines: list[LineOutcome] = field(default_factory=list)

    @property
    def charged(self) -> Money | None:
        captured = self.payment.amount_captured
        return Money(captured, self.payment.currency) if captured else None

    @property
    def in_progress(self) -> bool:
        return not self.payment.is_settled and any(line.state == "waiting" for line in self.lines)


def owned_orders(*, customer: Customer, order_ids: list[int]) -> list[Order]:
    """The customer's orders among `order_ids`, in that order; None of another's (the caller answers 404 when the
    lengths differ, before any outside call)."""
    found = {order.order_id: order for order in Order.objects.filter(customer=customer, order_id__in=order_ids)}
    return [found[order_id] for order_id in dict.fromkeys(order_ids) if order_id in found]


def renew_many_quote(*, orders: list[Order], notice: str = "") -> ManyToConfirm:
    """The confirmation: each domain for its shortest term from its expiry as the provider has it now."""
    if not orders:
        raise RenewManyRefused(message=gettext("Tick the domains you want to renew."))
    if len(orders) > MAX_DOMAINS:
        raise RenewManyRefused(message=gettext("Renew at most %(count)d domains at a time.") % {"count": MAX_DOMAINS})
    lines, skipped = [], []
    for order in orders:
        line = _quote_line(order)
        if isinstance(line, ManyLine):
            lines.append(line)
        else:
            skipped.append((order, line))
    currencies = {line.price.currency for line in lines}
    if len(currencies) > 1:
        raise RenewManyRefused(message=gettext("These domains are priced in different currencies: renew them apart."))
    card = saved_card_for(orders[0].customer) if lines else None
    return ManyToConfirm(lines=lines, skipped=skipped, token=uuid.uuid4(), card=card, notice=notice)


def _quote_line(order: Order) -> ManyLine | str:
    """The line for this domain, or the sentence saying why it cannot be renewed here now."""
    if order.refunded_at is not None:
        return gettext("It was refunded, so it cannot be renewed here.")
    current = order_fetch(order=order)
    if current is None or current.expires_at is None or current.expiry_timestamp is None:
        return gettext("It is no longer listed in your account.")
    if current.status == Order.Status.PENDING_DELETE_RESTORABLE:
        return gettext("It is pending deletion: it must be restored, not renewed. Please contact support.")
    terms = renewals.renew_terms(domain_name=order.domain_name, expires_at=current.expires_at)
    if not terms:
        return renewals.terms_sentence(terms)
    quote = renew_quote(domain_name=order.domain_name, years=terms[0])
    if quote is None or not renewal_is_paid(quote.retail.amount):
        return gettext("It has no renewal price here right now: renew it from its own page.")
    return ManyLine(
        order=order,
        duration=terms[0],
        price=quote.retail,
        old_expires_at=current.expires_at,
        new_expires_at=renewals.add_years(current.expires_at, terms[0]),
        expiry_timestamp=current.expiry_timestamp,
    )


def renew_many_confirm(
    *, customer: Customer, orders: list[Order], asked: list[LineAsked], token: uuid.UUID, pay_with_card: bool,
    outcome_url: str, cancel_url: str,
) -> ManyToConfirm | ManyToPay:  # fmt: skip
    """Pay for the confirmed lines in one payment and have each renewed, once per `token`. A line whose price or
    expiry moved since it was shown sends the customer back to a fresh confirmation (nothing charged); so does a
    saved card that is refused (with the reason)."""
    if current_actor().kind == Activity.Actor.STAFF_AS_CUSTOMER:
        raise ActingRefused(message=REFUSED_SENTENCE)
    already = Payment.objects.filter(checkout_id=token, customer=customer).first()
    if already is not None and already.status == Payment.Status.CANCELLED:
        # The same form again after its card was refused (or its payment page expired): nothing was charged.
        problem = card_problem_sentence(already.failure_code, saved_card_for(customer)) if already.failure_code else ""
        return _again(renew_many_quote(orders=orders), problem or gettext("Nothing was charged: confirm again."))
    if already is not None and (already.status != Payment.Status.CREATED or already.stripe_payment_intent_id):
        return ManyToPay(url=outcome_url)  # the same form again: its payment tells how it went
    if already is None:
        fresh = renew_many_quote(orders=orders)
        if _moved(fresh, asked):
            moved = gettext(
                "Something changed since the page was shown (a price or an expiry date): check and confirm again."
            )
            return _again(fresh, moved, keep_card=True)
    lines = [_to_pay(order, line, token) for order, line in zip(orders, asked, strict=True)]
    if not pay_with_card:
        return _to_page(customer, lines, token=token, outcome_url=outcome_url, cancel_url=cancel_url)
    card = saved_card_for(customer)
    try:
        payment = payment_authorise_saved(customer=customer, lines=lines, checkout_id=token)
    except CheckoutChanged as err:
        raise RenewManyRefused(message=err.message) from err
    except PaymentError as err:
        if err.code == "already_paid":
            return ManyToPay(url=outcome_url)
        if err.code != "no_saved_card":
            raise
        problem = gettext("No card is saved any more, so nothing was charged. Pay on the payment page to renew.")
        return _again(renew_many_quote(orders=orders), problem)
    if payment.status == Payment.Status.CANCELLED:
        _log_once("renewal_card_refused", payment, orders, reason=payment.failure_code, card=card)
        return _again(renew_many_quote(orders=orders), card_problem_sentence(payment.failure_code, card))
    _log_once("renewal_card_charged", payment, orders, card=card)
    payment_settle_later(payment=payment)
    return ManyToPay(url=outcome_url)


def _moved(fresh: ManyToConfirm, asked: list[LineAsked]) -> bool:
    shown = {(line.order_id, line.duration, line.expiry_timestamp, line.price) for line in asked}
    now = {(line.order.order_id, line.duration, line.expiry_timestamp, line.price.amount) for line in fresh.lines}
    return bool(fresh.skipped) or shown != now


def _again(fresh: ManyToConfirm, notice: str, *, keep_card: bool = False) -> ManyToConfirm:
    """A fresh confirmation (a new token) saying why; the saved card is not offered again once it was refused."""
    card = fresh.card if keep_card else None
    return ManyToConfirm(lines=fresh.lines, skipped=fresh.skipped, token=fresh.token, card=card, notice=notice)


def _to_pay(order: Order, line: LineAsked, token: uuid.UUID) -> Any:
    quote = renew_quote(domain_name=order.domain_name, years=line.duration)
    request = renewals.RenewRequest(
        duration=line.duration,
        shown_expiry_timestamp=line.expiry_timestamp,
        token=uuid.uuid5(_NAMESPACE, f"{token}:{order.order_id}"),
        price=line.price,
        currency=quote.retail.currency if quote else "",
        cost=quote.cost.amount if quote else None,
    )
    return renewal_line_to_pay(order=order, request=request, own_token=True)


def _to_page(customer: Customer, lines: list[Any], *, token: uuid.UUID, outcome_url: str, cancel_url: str) -> ManyToPay:
    try:
        started = payment_start(
            customer=customer, lines=lines, checkout_id=token, success_url=outcome_url, cancel_url=cancel_url
        )
    except (CheckoutChanged, SessionClosed) as err:
        raise RenewManyRefused(message=err.message) from err
    except PaymentError as err:
        if err.code == "already_paid":
            return ManyToPay(url=outcome_url)
        raise
    return ManyToPay(url=started.url)


def _log_once(action: str, payment: Payment, orders: list[Order], *, card: SavedCard | None, reason: str = "") -> None:
    if Activity.objects.filter(action=action, payment_id=payment.pk).exists():
        return  # the same form posted again: logged once
    for order in orders:
        detail = {"brand": card.brand.title() if card else "", "last4": card.last4 if card else ""}
        if reason:
            detail["reason"] = reason
        activity_record(action=action, order=order, payment=payment, detail=detail)


# --- The outcome ----------------------------------------------------------------------------------------------------

_STATES: dict[str, str] = {
    PaymentLine.Status.REGISTERED: "renewed",
    PaymentLine.Status.FAILED: "failed",
    PaymentLine.Status.UNKNOWN: "unknown",
}


def renew_many_outcome(*, customer: Customer, checkout_id: uuid.UUID) -> ManyOutcome | None:
    """What became of each line of this customer's several-domain renewal (None: no such payment of theirs). Asks
    the worker to move it on while it is not settled (the page polls)."""
    payment = Payment.objects.filter(checkout_id=checkout_id, customer=customer).first()
    if payment is None or not payment.lines.filter(details__renewal_token__isnull=False).exists():
        return None
    if not payment.is_settled:
        payment_settle_later(payment=payment)
        payment.refresh_from_db()
    lines = []
    for line in payment.lines.select_related("payment").order_by("position"):
        renewal = Renewal.objects.filter(token=renewal_token_of(line)).first()
        state = _STATES.get(str(line.status), "waiting")
        if payment.status == Payment.Status.CANCELLED and state == "waiting":
            state = "failed"  # nothing authorised (the page abandoned, the card refused): nothing renewed
        lines.append(
            LineOutcome(
                domain_name=line.reference,
                amount=Money(line.amount, payment.currency),
                state=state,
                new_expires_at=renewal.new_expires_at if renewal is not None and state == "renewed" else None,
            )
        )
    return ManyOutcome(payment=payment, lines=lines)


def renew_many_request(
    *, customer: Customer, orders: list[Order], cleaned: dict[str, Any], token_issued: bool, outcome_url: str,
    cancel_url: str,
) -> ManyToConfirm | ManyToPay:  # fmt: skip
    """One step of renewing several domains: the confirmation of the ticked ones, or, confirmed, paying for them.
    `cleaned` is RenewManyForm's; `outcome_url` names the form's token's outcome page."""
    if not cleaned.get("confirm"):
        return renew_many_quote(orders=orders)
    if not token_issued:
        raise RenewManyRefused(message=gettext("This form has expired. Please tick the domains again."))
    asked = [LineAsked(*line) for line in cleaned["lines"]]
    return renew_many_confirm(
        customer=customer,
        orders=orders,
        asked=asked,
        token=cleaned["token"],
        pay_with_card=cleaned.get("pay_with") == "card",
        outcome_url=outcome_url,
        cancel_url=cancel_url,
    )
