"""Registering domains: provider calls and the database writes that record them.

Exactly once: every line is written as a pending Registration *before* the provider is called. The database
allows one live registration per domain (`one_live_registration_per_domain`) and one line per checkout and
domain (`one_line_per_checkout_domain`), so double clicks, two tabs, browser retries and concurrent requests
all end up reusing the row of whoever got there first, and only that request calls the provider.

A registration whose answer was lost (timeout, dropped connection) is marked unknown and never retried blindly:
`registration_reconcile` looks the domain up in the customer's order listing first. One that certainly was not sent
(the provider unreachable, busy, refusing our key, or its breaker open) is not failed: its pending row is removed and
RegistrationWaits raised, and the worker tries it again until its outcome is known. A paid line is never given up
because its service is away for a while.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Customer
from accounts.staff.activity import activity_record
from domains.cart.basket import CartLine
from domains.models import Order, Registration
from domains.orders.services import order_pages
from domains.terms import register_min_term
from pricing.models import Operation
from pricing.quotes import Quote, retail_price
from reseller_webhooks.events import DOMAIN_REGISTERED, webhook_domain_event_emit
from storefront.gateway import (
    GatewayError,
    MetaSearchResult,
    MinimumTerm,
    NameUnavailable,
    NotFound,
    OutcomeUnknown,
    PremiumName,
    RateLimited,
    RegistrationRefused,
    TldRestricted,
    Unauthorized,
    Unavailable,
    ValidationRejected,
    gateway,
    missing_field_words,
)
from storefront.gateway import Order as ListedOrder

logger = logging.getLogger(__name__)

# An unknown line absent from the listing is only declared "not registered" after
# settings.REGISTRATION_UNKNOWN_LIMIT_HOURS (hours): the provider may still be working on a request whose answer
# we stopped waiting for, and declaring it early would invite the customer (or anyone) to buy it again. A line
# so declared is still looked for during settings.REGISTRATION_WATCH_DAYS and flips to registered if it shows.
# A pending line older than this was abandoned (the process died mid-call): reconcile treats it as unknown.
STALE_PENDING = dt.timedelta(minutes=5)
# A registration younger than this is never released: no domain expires that fast, and a listing may lag.
RELEASE_MIN_AGE = dt.timedelta(days=1)
# The order listing is searched at most this many pages deep for the domain.
_LISTING_PAGES = 10

_MESSAGE_UNKNOWN = "We could not confirm the result with the domain service. We are checking it."
_MESSAGE_NOT_REGISTERED = "The domain service has no order for this domain: it was not registered."
# Set on a line that was declared not registered and then appeared in the listing (its email is a correction).
MESSAGE_CONFIRMED_LATE = "Confirmed from the order listing after it had been declared not registered."


class RegistrationWaits(Exception):
    """The registration was not sent (its service cannot be asked now): nothing happened, try again later."""

    def __init__(self, domain_name: str, error: GatewayError) -> None:
        super().__init__(f"{domain_name}: not sent ({type(error).__name__})")
        self.error = error


def unknown_limit() -> dt.timedelta:
    return dt.timedelta(hours=settings.REGISTRATION_UNKNOWN_LIMIT_HOURS)


def _watch_period() -> dt.timedelta:
    return dt.timedelta(days=settings.REGISTRATION_WATCH_DAYS)


# --- Placing ------------------------------------------------------------------------------------------------


def registration_place(*, customer: Customer, line: CartLine, checkout_id: uuid.UUID) -> Registration:
    """Register one cart line for the customer, once per checkout and once per domain.

    Returns the line's Registration: newly settled (registered, failed or unknown), or the existing one when
    this checkout already recorded the line (no provider call then).
    """
    registration, created = _record(customer=customer, line=line, checkout_id=checkout_id)
    if not created:
        return registration
    return _register(registration)


def _record(*, customer: Customer, line: CartLine, checkout_id: uuid.UUID) -> tuple[Registration, bool]:
    """The checkout's row for this line, and whether we created it pending (and so must call the provider)."""
    for _ in range(3):
        existing = _line_of_checkout(checkout_id, line.domain_name)
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                registration = Registration.objects.create(
                    **_line_fields(customer=customer, line=line, checkout_id=checkout_id),
                    status=Registration.Status.PENDING,
                )
            return registration, True
        except IntegrityError:
            pass
        # Someone holds the domain (or this checkout's line appeared meanwhile): find out who.
        existing = _line_of_checkout(checkout_id, line.domain_name)
        if existing is not None:
            return existing, False
        live = Registration.objects.filter(domain_name=line.domain_name, status__in=Registration.LIVE_STATUSES).first()
        if live is None:
            continue  # released in between: try again
        if live.status in Registration.UNSETTLED_STATUSES:
            # Never register again before the listing says whether the earlier attempt went through.
            live = registration_reconcile(registration=live)
            if live.status == Registration.Status.FAILED:
                continue
        elif live.status == Registration.Status.REGISTERED and registration_release_if_gone(registration=live):
            continue
        return _record_refusal(customer=customer, line=line, checkout_id=checkout_id, holder=live), False
    # Three races lost in a row: say so rather than loop.
    return _record_refusal(customer=customer, line=line, checkout_id=checkout_id, holder=None), False


def _record_refusal(
    *, customer: Customer, line: CartLine, checkout_id: uuid.UUID, holder: Registration | None
) -> Registration:
    if holder is not None and holder.customer_id == customer.pk:
        if holder.status == Registration.Status.REGISTERED:
            kind, message = Registration.FailureKind.ALREADY_YOURS, "This domain is already registered to you."
        else:
            kind, message = (
                Registration.FailureKind.IN_PROGRESS,
                "This domain is already being registered for you in another checkout.",
            )
    else:
        kind, message = Registration.FailureKind.UNAVAILABLE, "This domain is being registered by someone else."
    try:
        with transaction.atomic():
            return Registration.objects.create(
                **_line_fields(customer=customer, line=line, checkout_id=checkout_id),
                status=Registration.Status.FAILED,
                failure_kind=kind,
                provider_message=message,
            )
    except IntegrityError:
        # A concurrent request of the same checkout recorded it first.
        return Registration.objects.get(checkout_id=checkout_id, domain_name=line.domain_name)


def _line_fields(*, customer: Customer, line: CartLine, checkout_id: uuid.UUID) -> dict[str, object]:
    """What a Registration records of the cart line: the term, the retail price the customer was quoted (what is
    charged), and what that sale costs us now (the cost table's price for the term, just before registering)."""
    quote = retail_price(tld=line.tld, operation=Operation.REGISTER, years=line.duration)
    if quote is None:
        logger.warning("register %s: no cost for its term, recorded without one", line.domain_name)
    cost = quote.cost if quote is not None and quote.cost.currency == line.currency else None
    return {
        "customer": customer,
        "domain_name": line.domain_name,
        "duration": line.duration,
        "currency": line.currency,
        "register_price": line.price,
        "renew_price": line.renew,
        "total_price": line.price,
        "cost_price": cost.amount if cost is not None else None,
        "provider_cost": quote.provider_cost.amount if quote is not None else None,
        "price_rule": _rule_text(quote, charged=line.price),
        "checkout_id": checkout_id,
    }


def _rule_text(quote: Quote | None, *, charged: Decimal) -> str:
    if quote is None:
        return ""
    # An earlier quote honoured (the price moved since the customer saw it) is said, so the margin is explained.
    text = quote.rule if quote.retail.amount == charged else f"quote honoured; today: {quote.rule}"
    return text[:200]


def _line_of_checkout(checkout_id: uuid.UUID, domain_name: str) -> Registration | None:
    return Registration.objects.filter(checkout_id=checkout_id, domain_name=domain_name).first()


def _register(registration: Registration) -> Registration:
    customer = registration.customer
    if customer.customer_id is None:
        return _settle(
            registration,
            status=Registration.Status.FAILED,
            failure_kind=Registration.FailureKind.INVALID_CUSTOMER,
            message="Your account is not linked to the domain service yet. Please contact support.",
        )
    try:
        result = gateway().domain_register(
            customer_id=customer.customer_id, domain_name=registration.domain_name, duration=registration.duration
        )
    except OutcomeUnknown as err:
        logger.warning("register %s: outcome unknown (%s), to be reconciled", registration.domain_name, err.status)
        return _settle(registration, status=Registration.Status.UNKNOWN, failure_kind="", message=_MESSAGE_UNKNOWN)
    except NotFound as err:
        return _settle(
            registration,
            status=Registration.Status.FAILED,
            failure_kind=Registration.FailureKind.INVALID_CUSTOMER,
            message=err.provider_message or str(err.message),
        )
    except TldRestricted as err:
        return _settle(
            registration,
            status=Registration.Status.FAILED,
            failure_kind=Registration.FailureKind.RESTRICTED,
            message=err.provider_message,
            requirements=missing_field_words(err.missing),
        )
    except ValidationRejected as err:
        kind, refusal = _explain_refusal(registration, err)
        return _settle(
            registration, status=Registration.Status.FAILED, failure_kind=kind, message=refusal.provider_message
        )
    except (Unauthorized, RateLimited, Unavailable) as err:
        # Not OutcomeUnknown (caught above): the request certainly was not acted on. The line waits for the service
        # (the row goes, so the next attempt sends it) instead of failing: a paid line must not lose its domain.
        logger.warning("register %s: not sent (%s), tried again later", registration.domain_name, type(err).__name__)
        Registration.objects.filter(pk=registration.pk, status=Registration.Status.PENDING).delete()
        raise RegistrationWaits(registration.domain_name, err) from err
    except GatewayError as err:
        return _settle(
            registration,
            status=Registration.Status.UNKNOWN,
            failure_kind="",
            message=err.provider_message or str(err.message),
        )
    except Exception:
        # A bug of ours after the request may have gone out: hold the domain until the listing says.
        logger.exception("register %s: unexpected error, to be reconciled", registration.domain_name)
        return _settle(registration, status=Registration.Status.UNKNOWN, failure_kind="", message=_MESSAGE_UNKNOWN)

    order = _remember_order(customer=customer, order_id=result.order_id, domain_name=registration.domain_name)
    return _settle(
        registration,
        status=Registration.Status.REGISTERED,
        failure_kind="",
        message=result.message,
        order=order,
        provider_order_id=result.order_id,
    )


def _explain_refusal(registration: Registration, err: ValidationRejected) -> tuple[str, ValidationRejected]:
    """Why the provider refused: its one documented text ("Unable to register domain") covers a taken name and a
    failed billing settlement alike, so we find out another way: the TLD's minimum term from the price list,
    then the name looked up again. What stays unexplained is said honestly and logged for staff."""
    name, duration = registration.domain_name, registration.duration
    tld = name.partition(".")[2]
    minimum = register_min_term(tld, fresh=True)  # a refusal is rare, and the list may have changed
    if duration < minimum:
        return Registration.FailureKind.MINIMUM_TERM, MinimumTerm(
            err.provider_message, years=minimum, status=err.status
        )
    row = _looked_up_again(name)
    if row is not None and row.premium:
        return Registration.FailureKind.PREMIUM, PremiumName(err.provider_message, status=err.status)
    if row is not None and not row.available:
        return Registration.FailureKind.UNAVAILABLE, NameUnavailable(err.provider_message, status=err.status)
    logger.error(
        "register %s (%d years) refused by the provider (%r, HTTP %s) with the name free and the term allowed: "
        "a billing settlement failure is likely; staff must check the partner balance",
        name,
        duration,
        err.provider_message,
        err.status,
    )
    return Registration.FailureKind.REJECTED, RegistrationRefused(err.provider_message, status=err.status)


def _looked_up_again(domain_name: str) -> MetaSearchResult | None:
    try:
        answer = gateway().metasearch(search_term=domain_name, autosuggest=False, aisuggest=False)
    except GatewayError:
        return None
    return next((row for row in answer.results if row.domain_name.lower() == domain_name.lower()), None)


def _settle(
    registration: Registration,
    *,
    status: str,
    failure_kind: str,
    message: str,
    order: Order | None = None,
    provider_order_id: int | None = None,
    from_statuses: tuple[str, ...] = (Registration.Status.PENDING,),
    requirements: str = "",
) -> Registration:
    """Record an outcome, only if the row is still in one of `from_statuses` (nobody settled it meanwhile)."""
    fields = {
        "status": status,
        "failure_kind": failure_kind,
        "provider_message": message,
        "requirements": requirements[:300],
        "updated_at": timezone.now(),
    }
    if order is not None:
        fields["order"] = order
    if provider_order_id is not None:
        fields["provider_order_id"] = provider_order_id
    changed = Registration.objects.filter(pk=registration.pk, status__in=from_statuses).update(**fields)
    registration.refresh_from_db()
    if changed and status in (Registration.Status.REGISTERED, Registration.Status.FAILED):
        _log_outcome(registration)
    return registration


def _log_outcome(registration: Registration) -> None:
    """The activity log's row for a line's outcome (once: only the update that settled it writes one)."""
    if registration.status == Registration.Status.REGISTERED:
        activity_record(
            action="registered",
            customer=registration.customer,
            order=registration.order,
            domain_name=registration.domain_name,
            detail={"years": registration.duration},
        )
        webhook_domain_event_emit(
            DOMAIN_REGISTERED,
            key=str(registration.pk),
            order=registration.order,
            domain_name=registration.domain_name,
            customer_id=registration.customer_id,
            facts={"years": registration.duration},
        )
    else:
        activity_record(
            action="registration_failed",
            customer=registration.customer,
            domain_name=registration.domain_name,
            detail={"reason": registration.get_failure_kind_display() or "refused"},
        )


def _remember_order(*, customer: Customer, order_id: int, domain_name: str) -> Order:
    """Our copy of the new order, so its pages pass the ownership check at once; expiry from the listing."""
    # Insert first, read on conflict: a read-then-write transaction can deadlock on SQLite under concurrency.
    try:
        with transaction.atomic():
            order = Order.objects.create(
                order_id=order_id,
                customer=customer,
                domain_name=domain_name,
                status=Order.Status.ACTIVE,
                verification_started_at=timezone.now(),
            )
    except IntegrityError:
        order = Order.objects.get(order_id=order_id)
        # Our copy was made by the listing sync first: the registration still starts the registrant's check.
        Order.objects.filter(pk=order.pk, verification_started_at__isnull=True).update(
            verification_started_at=timezone.now()
        )
        order.refresh_from_db()
    if order.expiry_timestamp is None and customer.customer_id is not None:
        try:
            listed = _find_in_listing(customer_id=customer.customer_id, domain_name=domain_name)
        except GatewayError:
            listed = None  # the dashboard's listing sync fills it in later
        if listed is not None and listed.order_id == order_id:
            order.status = listed.status if listed.status in Order.Status.values else order.status
            order.expiry_timestamp = listed.expiry_timestamp
            order.expires_at = listed.expires_at
            order.last_synced_at = timezone.now()
            order.save(update_fields=["status", "expiry_timestamp", "expires_at", "last_synced_at"])
    return order


# --- Reconciling --------------------------------------------------------------------------------------------


def registration_reconcile(*, registration: Registration) -> Registration:
    """Settle a line whose outcome is unknown from the customer's order listing.

    Present in the listing: registered, with its order id, whatever the line said before (a line declared not
    registered that shows up later flips too). Absent: declared not registered only once the unknown limit
    (hours) has passed since the line was placed. A listing error changes nothing. Other lines, and pending
    lines still being worked on, are returned unchanged.
    """
    registration.refresh_from_db()
    now = timezone.now()
    if registration.status == Registration.Status.PENDING and registration.updated_at > now - STALE_PENDING:
        return registration
    if not (registration.status in Registration.UNSETTLED_STATUSES or _watched(registration, now)):
        return registration
    customer = registration.customer
    if customer.customer_id is None:
        return registration
    try:
        listed = _find_in_listing(customer_id=customer.customer_id, domain_name=registration.domain_name)
    except GatewayError as err:
        logger.warning("reconcile %s: listing failed: %s", registration.domain_name, type(err).__name__)
        return registration
    unsettled = Registration.UNSETTLED_STATUSES
    if listed is not None:
        return _confirm_from_listing(registration, listed=listed, unsettled=unsettled)
    if registration.status not in unsettled or registration.created_at > now - unknown_limit():
        return registration
    logger.warning(
        "reconcile %s: not in the listing after the limit, declared not registered", registration.domain_name
    )
    return _settle(
        registration,
        status=Registration.Status.FAILED,
        failure_kind=Registration.FailureKind.NOT_REGISTERED,
        message=_MESSAGE_NOT_REGISTERED,
        from_statuses=unsettled,
    )


def _watched(registration: Registration, now: dt.datetime) -> bool:
    """A line declared not registered recently enough that the listing is still checked for it."""
    return (
        registration.status == Registration.Status.FAILED
        and registration.failure_kind == Registration.FailureKind.NOT_REGISTERED
        and registration.updated_at > now - _watch_period()
    )


def _confirm_from_listing(
    registration: Registration, *, listed: ListedOrder, unsettled: tuple[str, ...]
) -> Registration:
    customer = registration.customer
    order = _remember_order(customer=customer, order_id=listed.order_id, domain_name=registration.domain_name)
    was_declared = registration.status == Registration.Status.FAILED
    try:
        with transaction.atomic():
            settled = _settle(
                registration,
                status=Registration.Status.REGISTERED,
                failure_kind="",
                message=MESSAGE_CONFIRMED_LATE if was_declared else "Confirmed from the order listing.",
                order=order,
                provider_order_id=listed.order_id,
                from_statuses=(*unsettled, Registration.Status.FAILED) if was_declared else unsettled,
            )
            if was_declared and settled.status == Registration.Status.REGISTERED:
                # The customer was told it failed: the worker sends the correction.
                Registration.objects.filter(pk=settled.pk).update(emailed_at=None)
                settled.emailed_at = None
                logger.warning("reconcile %s: declared not registered, now in the listing", settled.domain_name)
    except IntegrityError:
        # Another live line holds the name meanwhile; the customer's order exists (Order above), staff decide.
        logger.error("reconcile %s: in the listing but another line holds the name", registration.domain_name)
        registration.refresh_from_db()
        return registration
    return settled


def registration_release_if_gone(*, registration: Registration) -> bool:
    """Stop a registered row holding its name once the owner's order listing no longer has the domain.

    Only asked when someone buys a name our database still holds, which MetaSearch showed as available: the
    domain expired and was deleted since. True if the row was released; a listing error keeps the hold.
    """
    customer = registration.customer
    if customer.customer_id is None or registration.updated_at > timezone.now() - RELEASE_MIN_AGE:
        return False
    try:
        listed = _find_in_listing(customer_id=customer.customer_id, domain_name=registration.domain_name)
    except GatewayError:
        return False
    if listed is not None:
        return False
    released = Registration.objects.filter(pk=registration.pk, status=Registration.Status.REGISTERED).update(
        status=Registration.Status.RELEASED, updated_at=timezone.now()
    )
    if released:
        logger.info("released %s: no longer in its owner's order listing", registration.domain_name)
    return bool(released)


def registrations_to_reconcile() -> QuerySet[Registration]:
    """Unknown lines, pending ones abandoned mid-call, and lines recently declared not registered."""
    now = timezone.now()
    return Registration.objects.filter(
        Q(status=Registration.Status.UNKNOWN)
        | Q(status=Registration.Status.PENDING, updated_at__lt=now - STALE_PENDING)
        | Q(
            status=Registration.Status.FAILED,
            failure_kind=Registration.FailureKind.NOT_REGISTERED,
            updated_at__gt=now - _watch_period(),
        )
    ).select_related("customer")


def registrations_needing_attention() -> QuerySet[Registration]:
    """Lines still unknown past the limit (the listing could not be read), for staff."""
    return Registration.objects.filter(
        status=Registration.Status.UNKNOWN, created_at__lt=timezone.now() - unknown_limit()
    )


def _find_in_listing(*, customer_id: int, domain_name: str) -> ListedOrder | None:
    wanted = domain_name.lower()
    pages = order_pages(
        lambda page: gateway().domain_orders(customer_id=customer_id, page=page, search=wanted),
        max_pages=_LISTING_PAGES,
    )
    for answer in pages:
        for order in answer.orders:
            if order.domain_name.lower() == wanted:
                return order
    return None
