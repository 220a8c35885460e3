"""Auto-renew: domains switched to it are renewed AUTO_RENEW_DAYS_BEFORE days before expiry, on the saved card.

For each due domain, once per (order, expiry): the expiry is read afresh from the provider, the renewal's retail
price is authorised off-session on the customer's saved card (manual capture; the payment's checkout id, which is
also the renewal's token and Stripe's idempotency key, is derived from the order and that expiry), then the domain
is renewed by the same exactly-once machinery as a renewal paid on the page (renewal_place, from that expiry), then
the money is captured; a refused renewal releases it. So the job run twice, or by two workers, charges and renews
once: the second run finds the same payment, and after the renewal the domain is no longer due.

A declined charge or a refused renewal switches auto-renew off (the reminders take over), and the customer and
staff are emailed (through the outbox: domains.orders.emails). While a dispute of one of the customer's payments is
open, nothing is charged (the domain waits, its switch stays on); a refunded domain is never auto-renewed. A renewal
price that rose is charged only once the customer was told of it NOTICE_DAYS before (domains/renewal_prices.py):
until then, at the price they knew.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass
from enum import StrEnum

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import activity_record, current_actor
from billing.errors import CheckoutChanged, PaymentError, PaymentUnavailable
from billing.models import Payment, SaleCause, SavedCard
from billing.payments.cards import saved_card_for
from billing.payments.disputes import customer_disputes_open
from billing.payments.services import payment_charge_saved, payment_settle_later
from domains.models import Order
from domains.orders import renewals
from domains.orders.emails import auto_renew_failure_queue
from domains.orders.payments import renewal_line_to_pay
from domains.orders.privacy_payments import privacy_extension_line
from domains.orders.services import order_fetch, renew_quote
from domains.renewal_prices import auto_renew_cap
from pricing.currencies import currency_override
from storefront.background.scheduler import next_run_at
from storefront.errors import StoreError
from storefront.gateway import GatewayError
from storefront.requests.acting_rules import REFUSED_SENTENCE

logger = logging.getLogger(__name__)

# The checkout ids of auto-renewals: one per order and expiry, the same in every process and run.
_NAMESPACE = uuid.UUID("6f6b7a52-2d3c-4a51-9e55-61d2a8c3b0a1")
_RENEWABLE = (Order.Status.ACTIVE, Order.Status.EXPIRED)
# An expired domain is still renewed within this many days after expiry (then it is being deleted).
_AFTER_EXPIRY = dt.timedelta(days=25)
# When the auto-renew job runs (UTC, daily; domains/orders/tasks.py schedules it): a domain is renewed by the first run
# once it is AUTO_RENEW_DAYS_BEFORE days from expiry, which the pages say as a date.
AUTO_RENEW_CRON = "37 5 * * *"


class Outcome(StrEnum):
    RENEWED = "renewed"
    FAILED = "failed"
    HELD = "held"  # the renewal's answer was lost: the money is held until reconciliation settles it
    PAUSED = "paused"  # a dispute of one of the customer's payments is open: nothing is charged until it closes
    RETRY = "retry"  # Stripe or the provider could not be asked: the next run tries again
    NOT_DUE = "not_due"


class AutoRenewRefused(StoreError):
    """Auto-renew cannot be switched on: `message` says why and what to do instead."""


def order_auto_renew_set(*, order: Order, on: bool) -> SavedCard | None:
    """Switch auto-renew on (only with a saved card to charge: that card is returned) or off (None). A switch turned
    on clears the last failure, so the page and the alerts stop showing it."""
    if not on:
        if Order.objects.filter(pk=order.pk, auto_renew=True).update(auto_renew=False):
            activity_record(action="auto_renew_off", order=order)
        return None
    if current_actor().kind == Activity.Actor.STAFF_AS_CUSTOMER:
        raise ActingRefused(message=REFUSED_SENTENCE)  # it commits the customer's card to a future charge
    if settings.PAYMENTS_DISABLED:
        raise AutoRenewRefused(
            message=gettext("Auto-renew is not available on this store: renewals are billed separately.")
        )
    if order.refunded_at is not None:
        raise AutoRenewRefused(message=gettext("This domain was refunded, so it cannot be renewed here."))
    card = saved_card_for(order.customer)
    if card is None:
        raise AutoRenewRefused(
            message=gettext(
                "Auto-renew needs a saved card, and none is saved. Add one on your account page (nothing is "
                "charged), or pay for a renewal or a domain by card: the card you pay with is kept for auto-renew. "
                "Then switch it on here."
            )
        )
    switched = Order.objects.filter(pk=order.pk).exclude(auto_renew=True, auto_renew_failed_at=None)
    if switched.update(auto_renew=True, auto_renew_failed_at=None, auto_renew_failure=""):
        activity_record(action="auto_renew_on", order=order, detail={"last4": card.last4})
    return card


@dataclass(frozen=True)
class AutoRenewWhen:
    """When auto-renew renews a domain: the run's time, and whether the domain is already inside the window (it is
    then renewed by the very next run, not "AUTO_RENEW_DAYS_BEFORE days before expiry")."""

    at: dt.datetime
    due: bool


def auto_renew_when(*, expires_at: dt.datetime | None, now: dt.datetime | None = None) -> AutoRenewWhen | None:
    """When auto-renew, on, renews a domain expiring at `expires_at`; None when it no longer would (deleted soon)."""
    if expires_at is None:
        return None
    now = now or timezone.now()
    if expires_at <= now - _AFTER_EXPIRY:
        return None
    window_opens = expires_at - dt.timedelta(days=settings.AUTO_RENEW_DAYS_BEFORE)
    due = window_opens <= now
    return AutoRenewWhen(at=next_run_at(cron=AUTO_RENEW_CRON, after=max(window_opens, now)), due=due)


def auto_renew_on_sentence(*, order: Order, card: SavedCard, now: dt.datetime | None = None) -> str:
    """What switching auto-renew on means for this domain, said when it is switched on."""
    when = auto_renew_when(expires_at=order.expires_at, now=now)
    facts = {"domain": order.domain_name, "brand": card.brand.title(), "last4": card.last4}
    if when is None:
        return gettext("Auto-renew is on for %(domain)s, charged to your %(brand)s •••• %(last4)s.") % facts
    facts["date"] = date_format(when.at, "DATE_FORMAT")
    if when.due:
        text = gettext(
            "Auto-renew is on: %(domain)s expires within %(days)d days, so it will be renewed in the next auto-renew "
            "run, on %(date)s, charged to your %(brand)s •••• %(last4)s."
        )
    else:
        text = gettext(
            "Auto-renew is on: %(domain)s will be renewed on %(date)s, %(days)d days before it expires, charged to "
            "your %(brand)s •••• %(last4)s."
        )
    return text % {**facts, "days": settings.AUTO_RENEW_DAYS_BEFORE}


def auto_renew_failures_open() -> QuerySet[Order]:
    """Failed auto-renewals staff have not handled yet (the activity log holds their handling, newer than the failure):
    the dashboard lists them and the staff alert counts them until someone acts."""
    handled = Activity.objects.filter(
        action="alert_resolved",
        order_id=OuterRef("order_id"),
        detail__alert="auto_renew",
        at__gte=OuterRef("auto_renew_failed_at"),
    )
    return Order.objects.filter(auto_renew_failed_at__isnull=False).exclude(Exists(handled))


def auto_renew_failures_handle(*, orders: QuerySet[Order]) -> int:
    """Staff handled these failed auto-renewals (contacted the customer, renewed it another way): each is logged, and
    leaves the alert and the dashboard."""
    handled = 0
    for order in auto_renew_failures_open().filter(pk__in=orders.values("pk")):
        what = f"failed auto-renewal handled ({order.auto_renew_failure or 'failed'})"
        activity_record(action="alert_resolved", order=order, detail={"alert": "auto_renew", "what": what})
        handled += 1
    return handled


def auto_renew_checkout_id(*, order: Order, expiry_timestamp: int) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"auto-renew:{order.order_id}:{expiry_timestamp}")


def orders_due(*, now: dt.datetime) -> QuerySet[Order]:
    """Domains on auto-renew whose expiry (as last synced) is within AUTO_RENEW_DAYS_BEFORE days."""
    return Order.objects.filter(
        auto_renew=True,
        refunded_at__isnull=True,
        status__in=_RENEWABLE,
        expires_at__lte=now + dt.timedelta(days=settings.AUTO_RENEW_DAYS_BEFORE),
        expires_at__gt=now - _AFTER_EXPIRY,
    ).select_related("customer")


def auto_renew_all(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Renew every due domain (each once). Counts per outcome."""
    now = now or timezone.now()
    counts: dict[str, int] = {}
    for order in orders_due(now=now):
        try:
            outcome = str(auto_renew_order(order=order, now=now))
        except Exception:
            # One domain's surprise must not keep the others from being renewed; the run then fails, for staff.
            logger.exception("auto-renew of order %s failed unexpectedly", order.order_id)
            outcome = "error"
        counts[outcome] = counts.get(outcome, 0) + 1
    if counts.get("error"):
        raise RuntimeError(f"auto-renew: {counts['error']} domain(s) failed unexpectedly ({counts})")
    return counts


def auto_renew_order(*, order: Order, now: dt.datetime | None = None) -> Outcome:
    now = now or timezone.now()
    if settings.PAYMENTS_DISABLED:
        return Outcome.NOT_DUE  # the reseller bills offline: nothing can be charged (the switch is not offered)
    if saved_card_for(order.customer) is None:
        return _failed(order, "no_saved_card")
    if customer_disputes_open(order.customer):
        logger.info("auto-renew of order %s waits: a dispute of the customer's is open", order.order_id)
        return Outcome.PAUSED
    try:
        current = order_fetch(order=order)
    except GatewayError:
        return Outcome.RETRY
    if current is None or current.expires_at is None or current.expiry_timestamp is None:
        return Outcome.NOT_DUE
    if current.expires_at > now + dt.timedelta(days=settings.AUTO_RENEW_DAYS_BEFORE):
        return Outcome.NOT_DUE  # renewed meanwhile (on the page, or by an earlier run)
    token = auto_renew_checkout_id(order=order, expiry_timestamp=current.expiry_timestamp)
    started = Payment.objects.filter(checkout_id=token).exclude(status=Payment.Status.CREATED).first()
    if started is not None:
        # An earlier run charged this renewal already: its payment goes on (the worker and the reconciler move it),
        # never quoted again (today's price or rate may differ from the one it was charged at).
        if started.status in (Payment.Status.CAPTURED, Payment.Status.PARTIALLY_CAPTURED):
            return Outcome.RENEWED
        if started.status == Payment.Status.CANCELLED:
            return _failed(order, started.failure_code or "not_renewed")
        payment_settle_later(payment=started)
        return Outcome.HELD
    terms = renewals.renew_terms(domain_name=order.domain_name, expires_at=current.expires_at, now=now)
    with currency_override(order.customer.currency):  # charged in the customer's currency, as on their pages
        quote = renew_quote(domain_name=order.domain_name, years=terms[0]) if terms else None
    if quote is None:
        return _failed(order, "no_price")
    price = quote.retail
    # Never more than the customer knows: a rise told less than NOTICE_DAYS ago (or not yet) is not charged this time.
    cap = auto_renew_cap(order=order, years=terms[0], now=now)
    if cap is not None and cap.currency == price.currency and cap < price:
        logger.info(
            "auto-renew of order %s charged at %s, not %s: the rise was not told in time", order.order_id, cap, price
        )
        price = cap
    request = renewals.RenewRequest(
        duration=terms[0],
        shown_expiry_timestamp=current.expiry_timestamp,
        token=token,
        price=price.amount,
        currency=quote.retail.currency,
        cost=quote.cost.amount,
    )
    # Privacy paid for on the domain is renewed with it, for as long (charged as a line of its own, bought after the
    # renewal): a domain renewed to 2028 with privacy paid to 2027 would publish its owner's details for a year.
    with currency_override(order.customer.currency):
        privacy = privacy_extension_line(
            order=order, new_expires_at=renewals.add_years(current.expires_at, terms[0]), currency=request.currency
        )
    try:
        payment = payment_charge_saved(
            customer=order.customer,
            lines=[
                renewal_line_to_pay(order=order, request=request, cause=SaleCause.AUTO_RENEWAL),
                *([privacy] if privacy is not None else []),
            ],
            checkout_id=request.token,
        )
    except PaymentUnavailable:
        return Outcome.RETRY  # a lost answer too: the next run asks again with the same idempotency key
    except CheckoutChanged:
        # A first try whose answer was lost, at another price than today's: the reconciler settles that payment
        # with Stripe; nothing here may charge a second one, nor call the renewal failed.
        logger.info("auto-renew of order %s waits: its first charge is being settled", order.order_id)
        return Outcome.RETRY
    except PaymentError as err:
        return _failed(order, err.code or "payment_error")
    if payment.status in (Payment.Status.CAPTURED, Payment.Status.PARTIALLY_CAPTURED):
        return Outcome.RENEWED
    if payment.status == Payment.Status.CANCELLED:
        return _failed(order, payment.failure_code or "not_renewed")
    return Outcome.HELD


def _failed(order: Order, code: str) -> Outcome:
    """Switch auto-renew off (the reminders take over) and tell the customer and staff, once, in one transaction."""
    with transaction.atomic():
        switched = Order.objects.filter(pk=order.pk, auto_renew=True).update(
            auto_renew=False, auto_renew_failed_at=timezone.now(), auto_renew_failure=code[:200]
        )
        if switched:
            logger.warning("auto-renew of order %s failed: %s", order.order_id, code)
            order.refresh_from_db()
            activity_record(action="auto_renew_failed", order=order, detail={"reason": code[:200]})
            auto_renew_failure_queue(order=order)
    return Outcome.FAILED
