"""Renewals: the terms a domain may be renewed for, and renewing it once.

Every renewal asked for is a `Renewal` row, claimed by the form's one-time token under a unique constraint
before the provider is called: the same form sent twice, from one tab or four, from one worker process or
another, renews once whatever the cache holds. The form also carries the expiry the customer saw; the provider
renews only from that expiry (it refuses another), so a stale tab never renews a second time by surprise.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts.staff.activity import activity_record
from domains.models import Order, Renewal
from domains.orders.emails import renewal_email_queue
from domains.orders.services import RENEW_YEARS, order_fetch, orders_cache_invalidate
from domains.terms import renew_min_term
from reseller_webhooks.events import DOMAIN_RENEWED, webhook_domain_event_emit
from storefront.errors import StoreError
from storefront.gateway import ExpiryChanged, GatewayError, MinimumTerm, OutcomeUnknown, RenewalRefused, gateway
from storefront.gateway import Order as ProviderOrder

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)

# Registries keep a domain's expiry within ten years of today; a renewal past that is refused (and may be
# charged before it is), so such terms are never offered.
REGISTRY_MAX_YEARS = 10

_ALREADY = {
    Renewal.PENDING: gettext_lazy("This renewal is already being processed. Please wait a moment and reload the page."),
    Renewal.RENEWED: gettext_lazy(
        "Already renewed: this form was submitted before, so the domain was renewed only once."
    ),
    Renewal.UNKNOWN: gettext_lazy(
        "This renewal was submitted before but its result could not be confirmed. "
        "Check the expiry date before renewing again."
    ),
}


class RenewRefused(StoreError):
    """A renewal we did not send; `message` is safe to show."""

    def __init__(self, message: StrOrPromise) -> None:
        super().__init__(message=message)


class RenewAlreadySubmitted(RenewRefused):
    pass


class ExpiryMoved(RenewRefused):
    """The expiry the form showed is not the current one (renewed in another tab, or by staff): nothing sent."""

    def __init__(self, expires_at: dt.datetime | None) -> None:
        self.expires_at = expires_at
        super().__init__(
            gettext(
                "This domain's expiry date changed since this page was opened, so nothing was renewed. "
                "Please check the new date and the terms below, and confirm again if you still want to renew."
            )
        )


def add_years(moment: dt.datetime, years: int) -> dt.datetime:
    """The same calendar day `years` later (29 February becomes 28 February), as registries count."""
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:
        return moment.replace(year=moment.year + years, day=28)


def renew_terms(*, domain_name: str, expires_at: dt.datetime | None, now: dt.datetime | None = None) -> list[int]:
    """Terms (years) this domain may be renewed for now: from its TLD's minimum renewal term, and only those
    keeping the new expiry within ten years of today. Empty when none does (it is already renewed that far)."""
    minimum = renew_min_term(domain_name.partition(".")[2])
    if expires_at is None:
        return [years for years in RENEW_YEARS if years >= minimum]
    limit = add_years(now or timezone.now(), REGISTRY_MAX_YEARS)
    return [years for years in RENEW_YEARS if years >= minimum and add_years(expires_at, years) <= limit]


def terms_sentence(terms: list[int]) -> str:
    """Why the term asked for cannot be renewed: the terms that can, or that none can now."""
    if not terms:
        return gettext(
            "This domain is already renewed as far as the registry allows (%(limit)d years "
            "from today). It can be renewed again later."
        ) % {"limit": REGISTRY_MAX_YEARS}
    return gettext("Choose a renewal term between %(shortest)d and %(longest)d years.") % {
        "shortest": terms[0],
        "longest": terms[-1],
    }


@dataclass(frozen=True)
class RenewRequest:
    """What the customer confirmed: the term, the expiry the page showed, its price, and the form's token."""

    duration: int
    shown_expiry_timestamp: int
    token: uuid.UUID
    price: Decimal | None
    currency: str
    cost: Decimal | None = None
    # A promotion's part: `price` is what is charged, after it (pricing.promotions).
    list_price: Decimal | None = None
    discount: Decimal | None = None
    promotion_id: int | None = None


def _claim(*, order: Order, request: RenewRequest) -> Renewal:
    """This form's renewal row, newly claimed for sending; RenewAlreadySubmitted if it was sent already.

    The unique token makes the second of two concurrent claims fail in the database; a renewal that certainly
    did not happen is claimed again by a conditional update, which also only one request can win.
    """
    fields = {
        "customer": order.customer,
        "order": order,
        "provider_order_id": order.order_id,
        "domain_name": order.domain_name,
        "duration": request.duration,
        "price": request.price,
        "currency": request.currency,
        "cost_price": request.cost,
        "old_expires_at": dt.datetime.fromtimestamp(request.shown_expiry_timestamp, tz=dt.UTC),
        "new_expires_at": None,
        "failure_kind": "",
        "provider_message": "",
    }
    try:
        with transaction.atomic():
            return Renewal.objects.create(token=request.token, status=Renewal.PENDING, **fields)
    except IntegrityError:
        pass
    retried = Renewal.objects.filter(token=request.token, order=order, status=Renewal.FAILED).update(
        status=Renewal.PENDING, updated_at=timezone.now(), **fields
    )
    existing = Renewal.objects.filter(token=request.token).first()
    if retried and existing is not None:
        return existing
    status = existing.status if existing is not None and existing.order_id == order.pk else Renewal.RENEWED
    raise RenewAlreadySubmitted(_ALREADY.get(status, _ALREADY[Renewal.RENEWED]))


def _settle(renewal: Renewal, *, status: str, kind: str = "", detail: str = "") -> None:
    renewal.status = status
    renewal.failure_kind = kind
    renewal.provider_message = detail
    renewal.save(update_fields=["status", "failure_kind", "provider_message", "new_expires_at", "updated_at"])
    if status == Renewal.RENEWED:
        facts = {"years": renewal.duration, "expires": renewal.new_expires_at}
        activity_record(action="renewed", customer=renewal.customer, order=renewal.order, detail=facts)
        webhook_domain_event_emit(
            DOMAIN_RENEWED,
            key=str(renewal.pk),
            order=renewal.order,
            expires_at=renewal.new_expires_at,
            facts={"years": renewal.duration},
        )
    elif status == Renewal.FAILED:
        activity_record(
            action="renewal_failed",
            customer=renewal.customer,
            order=renewal.order,
            domain_name=renewal.domain_name,
            detail={"reason": kind or "refused"},
        )


def _check(*, order: Order, current: ProviderOrder | None, request: RenewRequest) -> None:
    """Refusals known before anything is sent (the provider's own refusal would not say why)."""
    if current is None:
        raise RenewRefused(gettext("This domain is no longer listed in your account, so it cannot be renewed here."))
    if current.status == Order.Status.PENDING_DELETE_RESTORABLE:
        raise RenewRefused(
            gettext("This domain is pending deletion: it must be restored, not renewed. Please contact support.")
        )
    if current.expiry_timestamp != request.shown_expiry_timestamp:
        raise ExpiryMoved(current.expires_at)
    minimum = renew_min_term(order.domain_name.partition(".")[2])
    if request.duration < minimum:
        raise MinimumTerm(years=minimum)
    if request.duration not in renew_terms(domain_name=order.domain_name, expires_at=current.expires_at):
        raise RenewRefused(
            gettext(
                "Renewing for %(years)d years would take the expiry more than %(limit)d years "
                "from today, which the registry does not allow. Please choose a shorter term."
            )
            % {"years": request.duration, "limit": REGISTRY_MAX_YEARS}
        )


def renewal_place(*, order: Order, request: RenewRequest) -> Renewal:
    """Renew once per form token, from the expiry the customer saw. Returns the RENEWED renewal.

    Raises RenewRefused (RenewAlreadySubmitted, ExpiryMoved), MinimumTerm, or the gateway's errors; the row
    records each outcome for staff and the customer's order page.
    """
    if request.duration not in RENEW_YEARS:
        raise ValueError("duration must be 1 to 9 years")
    renewal = _claim(order=order, request=request)
    try:
        current = order_fetch(order=order)
        _check(order=order, current=current, request=request)
        assert current is not None
        renewal.old_expires_at = current.expires_at
        # The expiry the customer saw: the provider refuses it if it moved meanwhile (renewed concurrently).
        gateway().domain_renew(
            order_id=order.order_id, duration=request.duration, expiry_timestamp=request.shown_expiry_timestamp
        )
    except OutcomeUnknown:
        # It may have been renewed: this form never sends it again.
        _settle(renewal, status=Renewal.UNKNOWN, kind="outcome_unknown")
        orders_cache_invalidate(customer=order.customer)
        raise
    except ExpiryChanged as err:
        _settle(renewal, status=Renewal.FAILED, kind="expiry_changed", detail=err.provider_message or "")
        fresh = _fetch_quietly(order)
        raise ExpiryMoved(fresh.expires_at if fresh else None) from err
    except Exception as err:
        # Certainly not renewed: the same form may be sent again.
        detail = getattr(err, "provider_message", "") or ""
        _settle(renewal, status=Renewal.FAILED, kind=_failure_kind(err), detail=str(detail))
        if isinstance(err, RenewalRefused):
            logger.error("renew order %s refused by the provider: %r", order.order_id, detail)
        raise
    orders_cache_invalidate(customer=order.customer)
    refreshed = _fetch_quietly(order)
    renewal.new_expires_at = (
        refreshed.expires_at if refreshed is not None else add_years(current.expires_at, request.duration)
    )
    with transaction.atomic():
        _settle(renewal, status=Renewal.RENEWED)
        _queue_email(renewal)
    return renewal


def _fetch_quietly(order: Order) -> ProviderOrder | None:
    try:
        return order_fetch(order=order)
    except GatewayError:
        return None


def _failure_kind(err: Exception) -> str:
    if isinstance(err, ExpiryMoved):
        return "expiry_changed"
    if isinstance(err, MinimumTerm):
        return "minimum_term"
    if isinstance(err, RenewRefused):
        return "not_renewable"
    if isinstance(err, GatewayError):
        return type(err).__name__.lower()[:32]
    return "error"


def _queue_email(renewal: Renewal) -> None:
    renewal_email_queue(renewal=renewal)


# A renewal whose answer was lost is only called "not renewed" once the provider's listing has had this long to
# show it: until then it stays unknown (and a paid one keeps its money held, not captured and not released).
RECONCILE_AFTER = dt.timedelta(minutes=10)


def renewal_reconcile(*, renewal: Renewal, now: dt.datetime | None = None) -> Renewal:
    """Settle a renewal whose answer was lost from the provider's current expiry: moved on from the expiry it was
    sent from (and no other renewal of the order from that expiry succeeded) means it renewed; still there after
    RECONCILE_AFTER means it did not. Provider errors leave it unknown for the next run."""
    if renewal.status != Renewal.UNKNOWN or renewal.order is None or renewal.old_expires_at is None:
        return renewal
    try:
        current = order_fetch(order=renewal.order)
    except GatewayError:
        return renewal
    if current is None or current.expires_at is None:
        return renewal
    now = now or timezone.now()
    others = Renewal.objects.filter(
        order=renewal.order, old_expires_at=renewal.old_expires_at, status=Renewal.RENEWED
    ).exclude(pk=renewal.pk)
    if current.expires_at > renewal.old_expires_at and not others.exists():
        renewal.new_expires_at = current.expires_at
        with transaction.atomic():
            _settle(renewal, status=Renewal.RENEWED)
            _queue_email(renewal)
    elif current.expires_at > renewal.old_expires_at or renewal.updated_at < now - RECONCILE_AFTER:
        renewal.new_expires_at = None
        _settle(renewal, status=Renewal.FAILED, kind="not_renewed")
    return renewal
