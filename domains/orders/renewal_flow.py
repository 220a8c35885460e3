"""The renewal a customer asks for on the domain page, in two steps: the chosen term's price and new expiry (from
the expiry as it is now), then, confirmed, a payment (authorise on the payment page, renew, capture: one payment per
renewal form, its token being the payment's checkout id) or, where the store bills offline, the renewal itself.

The payment's return to the domain page (and the payment service's webhook) renew it once; `renewal_paid_return`
settles it from that door. Auto-renew (domains.orders.auto_renew) charges the saved card instead.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, replace
from decimal import Decimal

from django.conf import settings
from django.utils.translation import gettext

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import activity_record, current_actor
from billing.errors import CheckoutChanged, PaymentError, PaymentOutcomeUnknown, SessionClosed
from billing.models import Payment, SavedCard
from billing.payments.cards import saved_card_for
from billing.payments.services import payment_authorise_saved, payment_returned, payment_settle_later, payment_start
from domains.models import Order, Renewal
from domains.orders import renewals
from domains.orders.payments import renewal_line_to_pay
from domains.orders.services import order_fetch, renew_quote
from pricing.models import Operation
from pricing.money import Money, format_money
from pricing.promotions import (
    LineAsk,
    LineDiscount,
    PromotionRefused,
    promotion_discounts,
    promotion_find,
    redemptions_release,
    redemptions_take,
)
from pricing.quotes import Quote
from storefront.requests.acting_rules import REFUSED_SENTENCE

# The return page asks this often (every 2 s) for a payment Stripe has not confirmed before it stops waiting.
RENEWAL_WAIT_POLLS = 15


@dataclass(frozen=True)
class RenewalAsked:
    """What the renewal form posted: its one-time token, the term, the expiry the page showed, and whether this
    is the confirmation (the second step)."""

    token: uuid.UUID
    duration: int
    shown_expiry_timestamp: int
    confirm: bool
    price_shown: Decimal | None = None  # what the confirmation said it costs
    pay_with_card: bool = False  # the confirmation's "pay with your saved card" button (else the payment page)
    promotion_code: str = ""  # typed on the confirmation


@dataclass(frozen=True)
class ToConfirm:
    """The first step's answer: what the renewal would cost and do."""

    duration: int
    price: Money | None
    old_expires_at: dt.datetime | None
    new_expires_at: dt.datetime | None
    token: uuid.UUID
    expiry_timestamp: int
    pay_online: bool
    card: SavedCard | None = None  # the saved card the confirmation offers to charge
    # Why the saved card was not charged (declined, its bank asks for authentication): said above the payment
    # page's button, the confirmation's only way on. This confirmation carries a new token (the old one's payment
    # is cancelled).
    card_problem: str = ""
    # A promotion code's part: `price` is after it; the price before it, the discount, and why a code was refused.
    list_price: Money | None = None
    discount: Money | None = None
    promotion_code: str = ""
    promotion_error: str = ""


@dataclass(frozen=True)
class ToPay:
    """Confirmed and paid for online: the payment page's address, or the domain page that waits for the renewal
    once the saved card is authorised (answer with a 303 to it)."""

    url: str


@dataclass(frozen=True)
class Renewed:
    renewal: Renewal


class PaymentAlreadyStarted(Exception):
    """This form's renewal was paid for already: its return page tells how it went."""


def renewal_request(
    *, order: Order, asked: RenewalAsked, token_issued: bool, return_url: str
) -> ToConfirm | ToPay | Renewed:
    """Take one step of the renewal the customer asked for. `token_issued`: the form's token is one this browser
    was given for this order; `return_url` is the domain page's absolute address (the payment returns there).

    Raises RenewRefused (RenewAlreadySubmitted, ExpiryMoved, a term or price that cannot be renewed), the gateway's
    errors (OutcomeUnknown: it may have been renewed), PaymentError, PaymentAlreadyStarted.
    """
    if not token_issued:
        raise renewals.RenewRefused(gettext("This form has expired. Please check and try again."))
    if order.refunded_at is not None:
        raise renewals.RenewRefused(gettext("This domain was refunded, so it cannot be renewed here."))
    shown_at = dt.datetime.fromtimestamp(asked.shown_expiry_timestamp, tz=dt.UTC)
    terms = renewals.renew_terms(domain_name=order.domain_name, expires_at=shown_at)
    if asked.duration not in terms:
        raise renewals.RenewRefused(renewals.terms_sentence(terms))
    # The retail price of this very term (the price list may price longer terms differently from n times one year).
    quote = renew_quote(domain_name=order.domain_name, years=asked.duration)
    currency = quote.retail.currency if quote else ""
    discounted, refusal = _renewal_discount(order, asked, quote)
    price = (discounted.charged.amount if discounted else quote.retail.amount) if quote else None
    if not asked.confirm:
        confirm = _to_confirm(order, asked, price=price, currency=currency)
        return _with_promotion(confirm, discounted, code=asked.promotion_code, refusal=refusal)
    if refusal:
        raise renewals.RenewRefused(refusal)
    if price != asked.price_shown:
        # Prices moved between the two steps (a price sync, a new rule): nothing is renewed at a price the
        # customer was not shown; the page shows today's, to confirm again.
        raise renewals.RenewRefused(_price_moved(asked.price_shown, price, currency))
    request = renewals.RenewRequest(
        duration=asked.duration,
        shown_expiry_timestamp=asked.shown_expiry_timestamp,
        token=asked.token,
        price=price,
        currency=currency,
        cost=quote.cost.amount if quote else None,
        list_price=discounted.list_price.amount if discounted else None,
        discount=discounted.discount.amount if discounted else None,
        promotion_id=_promotion_take(order, asked, discounted),
    )
    try:
        if renewal_is_paid(price) and asked.pay_with_card:
            return _charge_saved_card(order, request, asked=asked, return_url=return_url)
        if renewal_is_paid(price):
            return _to_pay(order, request, return_url=return_url)
    except (renewals.RenewRefused, PaymentError):
        redemptions_release(checkout_id=asked.token)  # nothing was charged: the code's use goes back
        raise
    if not settings.PAYMENTS_DISABLED and price is None:
        raise renewals.RenewRefused(
            gettext(
                "This renewal has no price in our list right now, so it cannot be paid online. "
                "Nothing was renewed or charged; please try again later or contact support."
            )
        )
    return Renewed(renewals.renewal_place(order=order, request=request))


def _renewal_discount(order: Order, asked: RenewalAsked, quote: Quote | None) -> tuple[LineDiscount | None, str]:
    """The typed code's discount on this renewal (None: no code, or it takes nothing off), or why it cannot be used.
    This form's own use (its token, taken by an earlier confirmation) is its own."""
    if not asked.promotion_code.strip() or quote is None:
        return None, ""
    line = LineAsk(order.domain_name, quote.tld, Operation.RENEW, quote.retail, quote.cost)
    try:
        promotion = promotion_find(asked.promotion_code)
        [found] = promotion_discounts(promotion, [line], customer_id=order.customer_id, exclude_checkout=asked.token)
    except PromotionRefused as refused:
        return None, refused.message
    return (found if not found.discount.is_zero else None), ""


def _promotion_take(order: Order, asked: RenewalAsked, discounted: LineDiscount | None) -> int | None:
    """The code's use, taken once for this form's token before anything is charged; RenewRefused if it ran out."""
    if discounted is None:
        return None
    promotion = promotion_find(asked.promotion_code)
    try:
        redemptions_take(
            promotion_id=promotion.pk, customer_id=order.customer_id, checkout_id=asked.token, lines=[discounted]
        )
    except PromotionRefused as refused:
        raise renewals.RenewRefused(refused.message) from refused
    return promotion.pk


def _with_promotion(step: ToConfirm, discounted: LineDiscount | None, *, code: str, refusal: str) -> ToConfirm:
    if discounted is None:
        return replace(step, promotion_error=refusal)
    return replace(
        step, list_price=discounted.list_price, discount=discounted.discount, promotion_code=code.strip().upper()
    )


def _price_moved(shown: Decimal | None, now: Decimal | None, currency: str) -> str:
    if shown is None or now is None:
        return gettext("This renewal's price changed since it was shown, so nothing was renewed or charged.")
    return gettext(
        "The price of this renewal changed from %(old)s to %(new)s since it was shown, so nothing was renewed or "
        "charged. Please check it and confirm again."
    ) % {"old": format_money(Money(shown, currency)), "new": format_money(Money(now, currency))}


def renewal_is_paid(price: Decimal | None) -> bool:
    """Renewals are paid through the payment page like purchases, unless the reseller bills offline."""
    return not settings.PAYMENTS_DISABLED and price is not None and price > 0


def _check_expiry_unchanged(order: Order, shown_expiry_timestamp: int) -> dt.datetime | None:
    """The current expiry, when it is still the one the page showed; ExpiryMoved otherwise (nothing sent)."""
    current = order_fetch(order=order)
    if current is None or current.expiry_timestamp != shown_expiry_timestamp:
        raise renewals.ExpiryMoved(current.expires_at if current else None)
    return current.expires_at


def _to_confirm(
    order: Order, asked: RenewalAsked, *, price: Decimal | None, currency: str, card_problem: str = ""
) -> ToConfirm:
    """The price and the new expiry, from the expiry as it is now; a page showing an old one starts again."""
    expires_at = _check_expiry_unchanged(order, asked.shown_expiry_timestamp)
    pay_online = renewal_is_paid(price)
    return ToConfirm(
        duration=asked.duration,
        price=Money(price, currency) if price is not None else None,
        old_expires_at=expires_at,
        new_expires_at=renewals.add_years(expires_at, asked.duration) if expires_at else None,
        token=uuid.uuid4() if card_problem else asked.token,
        expiry_timestamp=asked.shown_expiry_timestamp,
        pay_online=pay_online,
        card=saved_card_for(order.customer) if pay_online and not card_problem else None,
        card_problem=card_problem,
    )


def _charge_saved_card(
    order: Order, request: renewals.RenewRequest, *, asked: RenewalAsked, return_url: str
) -> ToConfirm | ToPay:
    """One click: the renewal's price authorised on the saved card off-session (once per form token, whatever the
    number of clicks), then renewed and captured by the worker as after the payment page; the customer waits on the
    domain page. A card that is refused (or whose bank asks for authentication, which only the payment page can
    do) charges nothing: the confirmation comes back saying so, with the payment page as the way on."""
    if current_actor().kind == Activity.Actor.STAFF_AS_CUSTOMER:
        raise ActingRefused(message=REFUSED_SENTENCE)
    card = saved_card_for(order.customer)
    if not Payment.objects.filter(checkout_id=request.token).exists():
        _check_expiry_unchanged(order, request.shown_expiry_timestamp)  # nobody pays for a renewal that cannot be sent
    try:
        line = renewal_line_to_pay(order=order, request=request)
        payment = payment_authorise_saved(customer=order.customer, lines=[line], checkout_id=request.token)
    except CheckoutChanged as err:
        raise renewals.RenewRefused(err.message) from err
    except PaymentOutcomeUnknown as err:
        # The same form is being charged by another request (a double click) or the answer was lost: the domain
        # page waits for that payment; the worker or the reconciler asks Stripe again with the same key.
        raise PaymentAlreadyStarted from err
    except PaymentError as err:
        if err.code == "already_paid":
            raise PaymentAlreadyStarted from err
        if err.code != "no_saved_card":
            raise
        problem = gettext("No card is saved any more, so nothing was charged. Pay on the payment page to renew.")
        return _to_confirm(order, asked, price=request.price, currency=request.currency, card_problem=problem)
    if payment.status == Payment.Status.CANCELLED:
        _card_refused_record(order, payment, card)
        problem = card_problem_sentence(payment.failure_code, card)
        return _to_confirm(order, asked, price=request.price, currency=request.currency, card_problem=problem)
    if card is not None and not Activity.objects.filter(action="renewal_card_charged", payment_id=payment.pk).exists():
        detail = {"brand": card.brand.title(), "last4": card.last4}
        activity_record(action="renewal_card_charged", order=order, payment=payment, detail=detail)
    payment_settle_later(payment=payment)  # the worker renews it, then captures (or releases)
    return ToPay(url=f"{return_url}?renewal={request.token}")


# The card's bank asks the customer to authenticate: possible on the payment page, never off-session.
_AUTHENTICATION_CODES = frozenset({"authentication_required", "intent_requires_action"})


def card_problem_sentence(code: str, card: SavedCard | None) -> str:
    """Why the saved card was not charged, as the customer reads it (nothing was charged either way)."""
    name = f"{card.brand.title()} •••• {card.last4}" if card is not None else gettext("saved card")
    if code in _AUTHENTICATION_CODES:
        return gettext(
            "Your bank wants to confirm this payment with you, which it can only do on the payment page. Nothing was "
            "charged to your %(card)s and nothing was renewed: pay on the payment page to renew."
        ) % {"card": name}
    return gettext(
        "Your %(card)s was declined, so nothing was charged and nothing was renewed. Pay with another card on the "
        "payment page to renew."
    ) % {"card": name}


def _card_refused_record(order: Order, payment: Payment, card: SavedCard | None) -> None:
    if Activity.objects.filter(action="renewal_card_refused", payment_id=payment.pk).exists():
        return  # the same form posted again: logged once
    detail = {"reason": payment.failure_code or "refused", "last4": card.last4 if card else ""}
    activity_record(action="renewal_card_refused", order=order, payment=payment, detail=detail)


def _to_pay(order: Order, request: renewals.RenewRequest, *, return_url: str) -> ToPay:
    if not Payment.objects.filter(checkout_id=request.token).exists():
        # Nobody pays for a renewal that can no longer be sent: the expiry is checked before the payment page.
        _check_expiry_unchanged(order, request.shown_expiry_timestamp)
    try:
        started = payment_start(
            customer=order.customer,
            lines=[renewal_line_to_pay(order=order, request=request)],
            checkout_id=request.token,
            success_url=f"{return_url}?renewal={request.token}",
            cancel_url=return_url,
        )
    except (CheckoutChanged, SessionClosed) as err:
        raise renewals.RenewRefused(err.message) from err
    except PaymentError as err:
        if err.code == "already_paid":
            raise PaymentAlreadyStarted from err
        raise
    return ToPay(url=started.url)


def renewal_paid_return(*, order: Order, token: str) -> tuple[Payment, Renewal | None] | None:
    """The return door of a renewal's payment: settled as the webhook does (whichever comes first renews it, once).
    The payment and its renewal, or None when `token` names no payment of this order's customer."""
    payment = payment_returned(customer=order.customer, token=token)  # the worker renews it, or the webhook has
    if payment is None:
        return None
    return payment, Renewal.objects.filter(token=payment.checkout_id, order=order).first()


def renewal_in_progress(payment: Payment, renewal: Renewal | None, *, polls: int = 0) -> bool:
    """Whether the customer, back from paying for a renewal, should wait for the worker (the page updates by itself):
    the authorisation is recorded and the renewal not sent or answered yet; or the payment is not confirmed yet and
    the page has not asked RENEWAL_WAIT_POLLS times already (a payment that never comes is said so, not waited for).
    A renewal whose answer was lost is not waited for either (the page says so)."""
    if payment.is_settled or (renewal is not None and renewal.status != Renewal.PENDING):
        return False
    return payment.status != Payment.Status.CREATED or polls < RENEWAL_WAIT_POLLS
