"""What a renewal pays for and how a paid renewal is made: one renewal as billing's line to pay, and the `renewal`
line kind billing hands each paid renewal line to (billing.ledger.lines).

A renewal line is renewed by domains.orders.renewals under the payment's checkout id as the renewal's token: the
same line renewed twice finds its Renewal row instead of renewing again, and the provider renews only from the
expiry the customer confirmed (checked afresh before it is asked).
"""

from __future__ import annotations

import logging
import uuid
from decimal import Decimal
from typing import Any

from django.utils.translation import ngettext

from accounts.language import customer_language
from billing.ledger.lines import LineKind, LineOutcome, LineResult, LineToPay, line_kind_register
from billing.models import PaymentLine, SaleCause
from domains.models import Order, Renewal
from domains.orders import renewals
from domains.orders.payment_marks import line_marks, renewal_refunded_mark
from pricing.money import Money
from storefront.gateway import GatewayError, OutcomeUnknown, RateLimited, Unauthorized, Unavailable

logger = logging.getLogger(__name__)

RENEWAL = "renewal"

_RENEWAL_OUTCOMES: dict[str, LineOutcome] = {
    Renewal.RENEWED: LineOutcome.REGISTERED,
    Renewal.FAILED: LineOutcome.FAILED,
    Renewal.UNKNOWN: LineOutcome.UNKNOWN,
    Renewal.PENDING: LineOutcome.UNKNOWN,
}


def renewal_line_to_pay(
    *, order: Order, request: renewals.RenewRequest, cause: str = SaleCause.RENEWAL, own_token: bool = False
) -> LineToPay:
    """One renewal at the retail price the customer confirmed (or auto-renew quoted: `cause`); its details are what
    renewing it needs. `own_token`: the line is one of several in its payment, so its renewal is claimed by the
    request's token (one per line) rather than by the payment's checkout id."""
    if request.price is None:
        raise ValueError("a renewal is paid for at a known price")
    # Stored and shown on the payment page and the receipt in the customer's language (also when auto-renew runs in
    # the worker, which has no request to take it from).
    with customer_language(order.customer):
        description = ngettext(
            "%(domain)s, renewal for %(years)d year", "%(domain)s, renewal for %(years)d years", request.duration
        ) % {"domain": order.domain_name, "years": request.duration}
    return LineToPay(
        reference=order.domain_name,
        description=description,
        price=Money(request.price, request.currency),
        details={
            "kind": RENEWAL,
            "order_id": order.order_id,
            "duration": request.duration,
            "shown_expiry_timestamp": request.shown_expiry_timestamp,
            "cost": None if request.cost is None else str(request.cost),
            **({"renewal_token": str(request.token)} if own_token else {}),
        },
        cause=cause,
        tld=order.domain_name.rpartition(".")[2].lower(),
        cost=None if request.cost is None else Money(request.cost, request.currency),
        list_price=Money(request.list_price, request.currency)
        if request.discount and request.list_price is not None
        else None,
        discount=Money(request.discount, request.currency) if request.discount else None,
        promotion_id=request.promotion_id if request.discount else None,
    )


def _renew_request(line: PaymentLine) -> tuple[Order | None, renewals.RenewRequest]:
    details: dict[str, Any] = line.details
    payment = line.payment
    order = Order.objects.filter(order_id=details["order_id"], customer=payment.customer).first()
    return order, renewals.RenewRequest(
        duration=int(details["duration"]),
        shown_expiry_timestamp=int(details["shown_expiry_timestamp"]),
        token=renewal_token_of(line),
        price=line.amount,
        currency=payment.currency,
        cost=None if details.get("cost") is None else Decimal(details["cost"]),
    )


def renewal_token_of(line: PaymentLine) -> uuid.UUID:
    """The token its renewal is claimed by: the line's own (several renewals in one payment), else the checkout id."""
    own = line.details.get("renewal_token")
    return uuid.UUID(str(own)) if own else line.payment.checkout_id


def renew_paid_line(line: PaymentLine) -> LineResult:
    """Renew one paid renewal line once, under the payment's checkout id as the renewal's token."""
    order, request = _renew_request(line)
    if order is None:
        return LineResult(LineOutcome.FAILED)  # no longer the customer's: nothing is renewed, nothing charged
    try:
        renewal = renewals.renewal_place(order=order, request=request)
    except renewals.RenewAlreadySubmitted:
        # This line's renewal was sent before (a door that took over an abandoned claim): its row tells.
        found = Renewal.objects.filter(token=request.token, order=order).first()
        if found is None:
            return LineResult(LineOutcome.FAILED)
        return LineResult(_RENEWAL_OUTCOMES[found.status], reference=str(found.pk))
    except OutcomeUnknown:
        found = Renewal.objects.get(token=request.token)
        return LineResult(LineOutcome.UNKNOWN, reference=str(found.pk))
    except (Unavailable, RateLimited, Unauthorized) as err:
        # Not sent (the provider away, busy or its breaker open): the paid renewal waits for the next settle; its
        # row is FAILED, which the same token claims again.
        logger.info("paid renewal of order %s waits: %s", order.order_id, type(err).__name__)
        return LineResult(LineOutcome.WAITING)
    except (renewals.RenewRefused, GatewayError) as err:
        # Certainly not renewed (expiry moved, refused): the line's part is released.
        logger.info("paid renewal of order %s not renewed: %s", order.order_id, type(err).__name__)
        found = Renewal.objects.filter(token=request.token).first()
        return LineResult(LineOutcome.FAILED, reference=str(found.pk) if found else "")
    return LineResult(LineOutcome.REGISTERED, reference=str(renewal.pk), cost=renewal.cost_price)


def renewal_resolved(line: PaymentLine) -> bool | None:
    """Whether a paid renewal whose answer was lost did renew (reconciled from the provider), None if not yet known."""
    renewal = Renewal.objects.filter(token=renewal_token_of(line)).select_related("order").first()
    if renewal is None:
        return None
    if renewal.status == Renewal.UNKNOWN:
        renewal = renewals.renewal_reconcile(renewal=renewal)
    outcome = _RENEWAL_OUTCOMES.get(renewal.status, LineOutcome.UNKNOWN)
    return None if outcome == LineOutcome.UNKNOWN else outcome == LineOutcome.REGISTERED


def _order(line: PaymentLine) -> Order | None:
    return Order.objects.filter(order_id=line.details.get("order_id"), customer=line.payment.customer).first()


def renewal_line_refunded(line: PaymentLine) -> None:
    """A renewal given back in full (refunded, or lost to a dispute) undoes that renewal's record, nothing more: the
    domain was paid for by its registration and stays renewable (marking it refunded would switch its auto-renew
    off and refuse its privacy for one renewal's money)."""
    renewal = Renewal.objects.filter(token=renewal_token_of(line)).first()
    if renewal is not None:
        renewal_refunded_mark(renewal=renewal)


# While a dispute of the renewal is open, its domain is flagged (its auto-renewals wait) as for any of its payments.
line_kind_register(
    LineKind(
        RENEWAL,
        deliver=renew_paid_line,
        resolve=renewal_resolved,
        refunded=renewal_line_refunded,
        disputed=line_marks(_order)["disputed"],
    )
)
