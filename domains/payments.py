"""Where checkout meets billing: the cart's reviewed lines as lines to pay, and the registrar that billing's
`payment_settle` hands each paid line to (settings.BILLING_LINE_REGISTRAR points here).

Registration stays the exactly-once machinery of domains.services: a line is registered under the payment's
checkout id, so a second call for the same line (a door that took over an abandoned claim) reuses its row.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.utils.translation import ngettext

from billing.models import Payment, PaymentLine
from billing.services import LineOutcome, LineResult, LineToPay, payment_line_resolve
from domains import services
from domains.cart import CartLine, line_from_session
from domains.models import Registration

logger = logging.getLogger(__name__)

_OUTCOMES = {
    Registration.REGISTERED: LineOutcome.REGISTERED,
    Registration.FAILED: LineOutcome.FAILED,
    Registration.RELEASED: LineOutcome.FAILED,
    Registration.UNKNOWN: LineOutcome.UNKNOWN,
    Registration.PENDING: LineOutcome.UNKNOWN,
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
            details=line.as_session(),
        )
        for line in lines
    ]


def _cart_line(line: PaymentLine) -> CartLine:
    """The paid line as the cart held it at review (`lines_to_pay` stored `CartLine.as_session()`)."""
    parsed = line_from_session(line.reference, line.details)
    if parsed is None:
        raise ValueError(f"payment line {line.pk}: unreadable details for {line.reference!r}")
    return parsed


def register_paid_line(line: PaymentLine) -> LineResult:
    """billing's Registrar: register one paid line once, under the payment's checkout id."""
    payment = line.payment
    registration = services.registration_place(
        customer=payment.customer, line=_cart_line(line), checkout_id=payment.checkout_id
    )
    return LineResult(_OUTCOMES.get(registration.status, LineOutcome.UNKNOWN), reference=str(registration.pk))


def paid_lines_resolve() -> int:
    """Hand billing the outcome of paid lines whose registration was unknown and has since been reconciled, so
    their payment captures (or releases) their part. Returns how many lines were resolved."""
    resolved = 0
    waiting = PaymentLine.objects.filter(status=PaymentLine.Status.UNKNOWN, payment__status=Payment.Status.AUTHORISED)
    for line in waiting.select_related("payment"):
        registration = Registration.objects.filter(
            checkout_id=line.payment.checkout_id, domain_name=line.reference
        ).first()
        if registration is None or _OUTCOMES.get(registration.status) == LineOutcome.UNKNOWN:
            continue
        payment_line_resolve(
            line=line, registered=registration.status == Registration.REGISTERED, reference=str(registration.pk)
        )
        resolved += 1
    return resolved
