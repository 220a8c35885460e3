"""Where checkout and renewals meet billing: what is paid for as lines to pay, and the registrar that billing's
`payment_settle` hands each paid line to (settings.BILLING_LINE_REGISTRAR points here), by the line's kind.

Registration stays the exactly-once machinery of domains.registrations: a line is registered under the payment's
checkout id, so a second call for the same line (a door that took over an abandoned claim) reuses its row. A
renewal line is renewed by domains.renewals under the payment's checkout id as the renewal's token: the same line
renewed twice finds its Renewal row instead of renewing again, and the provider renews only from the expiry the
customer confirmed (checked afresh before it is asked).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils.translation import ngettext

from billing.models import Payment, PaymentLine
from billing.services import LineOutcome, LineResult, LineToPay, payment_line_resolve
from domains import registrations, renewals
from domains.cart import CartLine, line_from_session
from domains.models import Order, Registration, Renewal
from pricing.money import Money
from storefront.gateway import GatewayError, OutcomeUnknown

logger = logging.getLogger(__name__)

# A paid line's kind (details["kind"]); lines paid before kinds existed are registrations.
REGISTRATION = "registration"
RENEWAL = "renewal"

_RENEWAL_OUTCOMES: dict[str, LineOutcome] = {
    Renewal.RENEWED: LineOutcome.REGISTERED,
    Renewal.FAILED: LineOutcome.FAILED,
    Renewal.UNKNOWN: LineOutcome.UNKNOWN,
    Renewal.PENDING: LineOutcome.UNKNOWN,
}

_OUTCOMES: dict[str, LineOutcome] = {
    Registration.Status.REGISTERED: LineOutcome.REGISTERED,
    Registration.Status.FAILED: LineOutcome.FAILED,
    Registration.Status.RELEASED: LineOutcome.FAILED,
    Registration.Status.UNKNOWN: LineOutcome.UNKNOWN,
    Registration.Status.PENDING: LineOutcome.UNKNOWN,
}


def lines_to_pay(lines: Iterable[CartLine]) -> list[LineToPay]:
    """The reviewed cart lines at their quoted prices; each carries what registering it needs."""
    return [
        LineToPay(
            reference=line.domain_name,
            # Stored and shown on the payment page and the receipt, in the language the customer bought in.
            description=ngettext(
                "%(domain)s, registration for %(years)d year",
                "%(domain)s, registration for %(years)d years",
                line.duration,
            )
            % {"domain": line.domain_name, "years": line.duration},
            price=line.total,
            details={**line.as_session(), "kind": REGISTRATION},
        )
        for line in lines
    ]


def renewal_line_to_pay(*, order: Order, request: renewals.RenewRequest) -> LineToPay:
    """One renewal at the retail price the customer confirmed; its details are what renewing it needs."""
    if request.price is None:
        raise ValueError("a renewal is paid for at a known price")
    years = f"{request.duration} year{'s' if request.duration != 1 else ''}"
    return LineToPay(
        reference=order.domain_name,
        description=f"{order.domain_name}, renewal for {years}",
        price=Money(request.price, request.currency),
        details={
            "kind": RENEWAL,
            "order_id": order.order_id,
            "duration": request.duration,
            "shown_expiry_timestamp": request.shown_expiry_timestamp,
            "cost": None if request.cost is None else str(request.cost),
        },
    )


def _cart_line(line: PaymentLine) -> CartLine:
    """The paid line as the cart held it at review (`lines_to_pay` stored `CartLine.as_session()`)."""
    parsed = line_from_session(line.reference, line.details)
    if parsed is None:
        raise ValueError(f"payment line {line.pk}: unreadable details for {line.reference!r}")
    return parsed


def register_paid_line(line: PaymentLine) -> LineResult:
    """billing's Registrar: register (or renew) one paid line once, under the payment's checkout id."""
    if line.details.get("kind") == RENEWAL:
        return _renew_paid_line(line)
    payment = line.payment
    registration = registrations.registration_place(
        customer=payment.customer, line=_cart_line(line), checkout_id=payment.checkout_id
    )
    return LineResult(_OUTCOMES.get(registration.status, LineOutcome.UNKNOWN), reference=str(registration.pk))


def _renew_request(line: PaymentLine) -> tuple[Order | None, renewals.RenewRequest]:
    details: dict[str, Any] = line.details
    payment = line.payment
    order = Order.objects.filter(order_id=details["order_id"], customer=payment.customer).first()
    return order, renewals.RenewRequest(
        duration=int(details["duration"]),
        shown_expiry_timestamp=int(details["shown_expiry_timestamp"]),
        token=payment.checkout_id,
        price=line.amount,
        currency=payment.currency,
        cost=None if details.get("cost") is None else Decimal(details["cost"]),
    )


def _renew_paid_line(line: PaymentLine) -> LineResult:
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
    except (renewals.RenewRefused, GatewayError) as err:
        # Certainly not renewed (expiry moved, refused, provider down): the line's part is released.
        logger.info("paid renewal of order %s not renewed: %s", order.order_id, type(err).__name__)
        found = Renewal.objects.filter(token=request.token).first()
        return LineResult(LineOutcome.FAILED, reference=str(found.pk) if found else "")
    return LineResult(LineOutcome.REGISTERED, reference=str(renewal.pk))


def _renewal_resolved(line: PaymentLine) -> bool | None:
    """Whether a paid renewal whose answer was lost did renew (reconciled from the provider), None if not yet known."""
    renewal = Renewal.objects.filter(token=line.payment.checkout_id).select_related("order").first()
    if renewal is None:
        return None
    if renewal.status == Renewal.UNKNOWN:
        renewal = renewals.renewal_reconcile(renewal=renewal)
    outcome = _RENEWAL_OUTCOMES.get(renewal.status, LineOutcome.UNKNOWN)
    return None if outcome == LineOutcome.UNKNOWN else outcome == LineOutcome.REGISTERED


def paid_lines_resolve() -> int:
    """Hand billing the outcome of paid lines whose registration was unknown and has since been reconciled, so
    their payment captures (or releases) their part. Returns how many lines were resolved."""
    resolved = 0
    waiting = PaymentLine.objects.filter(status=PaymentLine.Status.UNKNOWN, payment__status=Payment.Status.AUTHORISED)
    for line in waiting.select_related("payment"):
        if line.details.get("kind") == RENEWAL:
            renewed = _renewal_resolved(line)
            if renewed is not None:
                payment_line_resolve(line=line, registered=renewed)
                resolved += 1
            continue
        registration = Registration.objects.filter(
            checkout_id=line.payment.checkout_id, domain_name=line.reference
        ).first()
        if registration is None or _OUTCOMES.get(registration.status) == LineOutcome.UNKNOWN:
            continue
        payment_line_resolve(
            line=line, registered=registration.status == Registration.Status.REGISTERED, reference=str(registration.pk)
        )
        resolved += 1
    return resolved
