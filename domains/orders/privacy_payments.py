"""What WHOIS privacy pays for and how a paid privacy line is delivered: the `privacy` line kind (billing.ledger.lines).

A line bought with an order waits for its domain: it is delivered only once the same checkout's registration of that
name is registered (the payment's lines are delivered in order, registrations first), and released when that
registration fails. A line bought on the domain page names its order. Either way the purchase is made once per
checkout and domain (domains/orders/privacy.py), never before the payment is authorised (billing delivers only
authorised payments' lines).
"""

from __future__ import annotations

import datetime as dt
import logging
from decimal import Decimal
from typing import Any

from django.utils.translation import ngettext

from billing.ledger.lines import LineKind, LineOutcome, LineResult, LineToPay, line_kind_register
from billing.models import PaymentLine, SaleCause
from domains.models import Order, PrivacyPurchase, Registration
from domains.orders.privacy import (
    EXTENSION_SLACK,
    PrivacyAlreadySent,
    privacy_offered,
    privacy_paid,
    privacy_purchase_place,
    privacy_purchase_reconcile,
    privacy_years,
)
from pricing.money import Money
from pricing.quotes import privacy_quote
from storefront.gateway import GatewayError, OutcomeUnknown, RateLimited, Unauthorized, Unavailable
from storefront.site.domain_names import domain_both_forms

logger = logging.getLogger(__name__)

PRIVACY = "privacy"
REFERENCE_PREFIX = "privacy:"

_OUTCOMES: dict[str, LineOutcome] = {
    PrivacyPurchase.PURCHASED: LineOutcome.REGISTERED,
    PrivacyPurchase.FAILED: LineOutcome.FAILED,
    PrivacyPurchase.UNKNOWN: LineOutcome.UNKNOWN,
    PrivacyPurchase.PENDING: LineOutcome.UNKNOWN,
}


def privacy_line_to_pay(
    *, domain_name: str, years: int, price: Money, cost: Money | None, order_id: int | None = None
) -> LineToPay:
    """WHOIS privacy of one domain for `years` at the retail price the customer was shown (`order_id`: a domain
    already registered; None: one registered by the same payment)."""
    return LineToPay(
        reference=f"{REFERENCE_PREFIX}{domain_name}",
        # Stored and shown on the payment page and the receipt, in the language the customer bought in.
        description=ngettext(
            "%(domain)s, WHOIS privacy for %(years)d year",
            "%(domain)s, WHOIS privacy for %(years)d years",
            years,
        )
        % {"domain": domain_both_forms(domain_name), "years": years},
        price=price,
        details={
            "kind": PRIVACY,
            "domain_name": domain_name,
            "years": years,
            "order_id": order_id,
            "cost": None if cost is None else str(cost.amount),
        },
        cause=SaleCause.PRIVACY,
        tld=domain_name.rpartition(".")[2].lower(),
        cost=cost,
    )


def privacy_extension_line(*, order: Order, new_expires_at: dt.datetime, currency: str) -> LineToPay | None:
    """The WHOIS privacy that keeps a paid-for privacy as long as the domain a renewal takes to `new_expires_at`,
    at today's retail price in `currency` (the caller's currency override): None when privacy is not paid for now,
    already covers it, is not sold, or has no price in that currency."""
    if not privacy_offered() or not privacy_paid(order) or order.privacy_expires_at is None:
        return None
    if order.privacy_expires_at >= new_expires_at - EXTENSION_SLACK:
        return None
    years = privacy_years(expires_at=new_expires_at, now=order.privacy_expires_at)
    quote = privacy_quote(tld=order.domain_name.rpartition(".")[2].lower(), years=years)
    if quote is None or quote.retail.currency != currency:
        return None
    return privacy_line_to_pay(
        domain_name=order.domain_name, years=years, price=quote.retail, cost=quote.cost, order_id=order.order_id
    )


def _order_of(line: PaymentLine) -> Order | LineOutcome | None:
    """The domain the line protects, or what the line must do while there is none: wait for its registration, or
    fail with it."""
    details: dict[str, Any] = line.details
    customer = line.payment.customer
    if details.get("order_id") is not None:
        order = Order.objects.filter(order_id=details["order_id"], customer=customer).first()
        return order if order is not None else LineOutcome.FAILED
    registration = (
        Registration.objects.filter(checkout_id=line.payment.checkout_id, domain_name=details["domain_name"])
        .select_related("order")
        .first()
    )
    if registration is None or registration.status in Registration.UNSETTLED_STATUSES:
        return LineOutcome.WAITING
    if registration.status != Registration.Status.REGISTERED:
        return LineOutcome.FAILED
    return registration.order or Order.objects.filter(customer=customer, domain_name=details["domain_name"]).first()


def privacy_paid_line(line: PaymentLine) -> LineResult:
    """Buy the privacy of one paid line once, after its domain is registered."""
    order = _order_of(line)
    if isinstance(order, LineOutcome):
        return LineResult(order)
    if order is None:
        return LineResult(LineOutcome.WAITING)  # registered, our copy of the order not written yet
    details: dict[str, Any] = line.details
    cost = None if details.get("cost") is None else Money(Decimal(details["cost"]), line.payment.currency)
    try:
        purchase = privacy_purchase_place(
            order=order,
            checkout_id=line.payment.checkout_id,
            years=int(details["years"]),
            price=Money(line.amount, line.payment.currency),
            cost=cost,
        )
    except PrivacyAlreadySent as sent:
        return LineResult(_OUTCOMES[sent.purchase.status], reference=str(sent.purchase.pk))
    except OutcomeUnknown:
        return LineResult(LineOutcome.UNKNOWN)
    except (Unavailable, RateLimited, Unauthorized) as err:
        # Not sent: the paid line waits, its part held, for the next settle (its row is FAILED and claimed again).
        logger.info("paid privacy of order %s waits: %s", order.order_id, type(err).__name__)
        return LineResult(LineOutcome.WAITING)
    except GatewayError as err:
        # Certainly not bought (refused, or the capability switched off meanwhile): its part is released.
        logger.info("paid privacy of order %s not bought: %s", order.order_id, type(err).__name__)
        return LineResult(LineOutcome.FAILED)
    return LineResult(LineOutcome.REGISTERED, reference=str(purchase.pk), cost=purchase.cost_price)


def privacy_resolved(line: PaymentLine) -> bool | None:
    """Whether a paid privacy line whose answer was lost was bought; None while that is not known yet."""
    purchase = (
        PrivacyPurchase.objects.filter(
            checkout_id=line.payment.checkout_id, domain_name=line.details.get("domain_name", "")
        )
        .select_related("order", "customer")
        .first()
    )
    if purchase is None:
        return None
    purchase = privacy_purchase_reconcile(purchase=purchase)
    outcome = _OUTCOMES.get(purchase.status, LineOutcome.UNKNOWN)
    return None if outcome == LineOutcome.UNKNOWN else outcome == LineOutcome.REGISTERED


# Privacy given back (refunded, disputed) leaves the domain as it is: it stays registered and renewable here.
line_kind_register(LineKind(PRIVACY, deliver=privacy_paid_line, resolve=privacy_resolved))
