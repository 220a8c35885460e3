"""What a checkout pays for and how a paid line is registered: the reviewed cart lines as billing's lines to pay,
and the `registration` line kind billing hands each paid line to (billing.ledger.lines).

Registration stays the exactly-once machinery of domains.checkout.registrations: a line is registered under the
payment's checkout id, so a second call for the same line (a door that took over an abandoned claim) reuses its row.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import ngettext

from billing.ledger.lines import DEFAULT_KIND, LineKind, LineOutcome, LineResult, LineToPay, line_kind_register
from billing.models import PaymentLine, SaleCause
from domains.cart.basket import CartLine, line_from_session
from domains.checkout import registrations
from domains.checkout.emails import checkout_email_queue
from domains.models import Order, Registration
from domains.orders.payment_marks import line_marks
from domains.orders.privacy_payments import privacy_line_to_pay
from pricing.currencies import currency_override
from pricing.models import Operation
from pricing.money import Money
from pricing.quotes import privacy_quote, retail_price
from storefront.site.domain_names import domain_both_forms

# A paid line's kind (details["kind"]): lines paid before kinds existed are registrations too.
REGISTRATION = DEFAULT_KIND

_OUTCOMES: dict[str, LineOutcome] = {
    Registration.Status.REGISTERED: LineOutcome.REGISTERED,
    Registration.Status.FAILED: LineOutcome.FAILED,
    Registration.Status.RELEASED: LineOutcome.FAILED,
    Registration.Status.UNKNOWN: LineOutcome.UNKNOWN,
    Registration.Status.PENDING: LineOutcome.UNKNOWN,
}


def lines_to_pay(lines: Iterable[CartLine], *, promotion_id: int | None = None) -> list[LineToPay]:
    """The reviewed cart lines at their quoted prices, then the WHOIS privacy added to them (delivered after the
    registrations, in this order); each carries what delivering it needs, and what it costs us today (for the books;
    the registration records its own cost when it is made). A promotion's discount is taken off the registration
    line it touches: its price is what is charged, its list price and discount are kept beside it."""
    lines = list(lines)
    return [*_registration_lines(lines, promotion_id=promotion_id), *_privacy_lines(lines)]


def _privacy_lines(lines: list[CartLine]) -> list[LineToPay]:
    paid = []
    for line in lines:
        if line.privacy_money is None:
            continue
        quote = privacy_quote(tld=line.tld, years=line.duration)
        paid.append(
            privacy_line_to_pay(
                domain_name=line.domain_name,
                years=line.duration,
                price=line.privacy_money,
                cost=quote.cost if quote is not None else None,
            )
        )
    return paid


def _registration_lines(lines: list[CartLine], *, promotion_id: int | None) -> list[LineToPay]:
    return [
        LineToPay(
            reference=line.domain_name,
            # Stored and shown on the payment page and the receipt, in the language the customer bought in.
            description=ngettext(
                "%(domain)s, registration for %(years)d year",
                "%(domain)s, registration for %(years)d years",
                line.duration,
            )
            % {"domain": domain_both_forms(line.domain_name), "years": line.duration},
            price=line.charged,
            list_price=line.total if line.discount_money else None,
            discount=line.discount_money,
            promotion_id=promotion_id if line.discount_money else None,
            details={**line.as_session(), "kind": REGISTRATION},
            cause=SaleCause.REGISTRATION,
            tld=line.tld,
            cost=_cost(line),
        )
        for line in lines
    ]


def _cost(line: CartLine) -> Money | None:
    quote = retail_price(tld=line.tld, operation=Operation.REGISTER, years=line.duration)
    return quote.cost if quote is not None else None


def _cart_line(line: PaymentLine) -> CartLine:
    """The paid line as the cart held it at review (`lines_to_pay` stored `CartLine.as_session()`)."""
    parsed = line_from_session(line.reference, line.details)
    if parsed is None:
        raise ValueError(f"payment line {line.pk}: unreadable details for {line.reference!r}")
    return parsed


def register_paid_line(line: PaymentLine) -> LineResult:
    """Register one paid line once, under the payment's checkout id; a line whose registration could not be sent
    (the provider away, its breaker open) waits, its part held, for the next settle."""
    payment = line.payment
    try:
        # Priced (the registration's cost) in the payment's currency, so the books can keep the line's cost.
        with currency_override(payment.currency):
            registration = registrations.registration_place(
                customer=payment.customer, line=_cart_line(line), checkout_id=payment.checkout_id
            )
    except registrations.RegistrationWaits:
        return LineResult(LineOutcome.WAITING)
    others = payment.lines.exclude(pk=line.pk).filter(
        status__in=[PaymentLine.Status.PENDING, PaymentLine.Status.REGISTERING]
    )
    if not others.exists():
        # The last line of the checkout: its confirmation is queued now, before the receipt the capture queues.
        checkout_email_queue(checkout_id=payment.checkout_id)
    return LineResult(
        _OUTCOMES.get(registration.status, LineOutcome.UNKNOWN),
        reference=str(registration.pk),
        cost=registration.cost_price if registration.currency == payment.currency else None,
    )


def registration_resolved(line: PaymentLine) -> bool | None:
    """Whether a paid registration whose answer was lost went through, once reconciling has settled its row."""
    registration = Registration.objects.filter(checkout_id=line.payment.checkout_id, domain_name=line.reference).first()
    if registration is None or _OUTCOMES.get(registration.status) == LineOutcome.UNKNOWN:
        return None
    return registration.status == Registration.Status.REGISTERED


def _order(line: PaymentLine) -> Order | None:
    """The domain a paid registration line bought (our copy of its order)."""
    payment = line.payment
    registration = (
        Registration.objects.filter(checkout_id=payment.checkout_id, domain_name=line.reference)
        .select_related("order")
        .first()
    )
    if registration is not None and registration.order is not None:
        return registration.order
    return Order.objects.filter(customer=payment.customer, domain_name=line.reference).first()


line_kind_register(
    LineKind(REGISTRATION, deliver=register_paid_line, resolve=registration_resolved, **line_marks(_order))
)
