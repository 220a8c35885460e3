"""What the domain page shows: the provider's current view of the order (our copy when it cannot be asked), what a
renewal of it would cost and for which terms, its recent renewals, its auto-renew state, and what its payment
became (refunded; a payment due after a lapsed hold)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse

from billing.models import Payment, SavedCard
from billing.payments.cards import saved_card_for
from billing.payments.collection import payment_due_for
from domains.models import Order, Renewal, RenewalPriceNotice
from domains.orders import renewals
from domains.orders.auto_renew import AutoRenewWhen, auto_renew_when
from domains.orders.privacy import PrivacyState, privacy_state
from domains.orders.services import OrderRow, order_fetch, order_row, renew_options, renew_pricing
from domains.presentation import failure_reason
from domains.renewal_prices import NOTICE_DAYS, price_notice_shown
from pricing.money import Money
from pricing.quotes import Quote, one_price_book
from storefront.gateway import GatewayError

RENEWALS_SHOWN = 10


@dataclass(frozen=True)
class AutoRenewState:
    offered: bool
    on: bool
    card: SavedCard | None
    days: int
    failed_at: dt.datetime | None
    failure: str
    when: AutoRenewWhen | None = None  # when auto-renew (on, or if switched on) renews it
    # The renewal price rose since the customer last paid, and they were told (on auto-renew only: what it charges).
    price_notice: RenewalPriceNotice | None = None
    notice_days: int = NOTICE_DAYS


@dataclass(frozen=True)
class OrderPage:
    order: Order
    row: OrderRow
    listed: bool  # False: the provider no longer lists it (nothing can be done with it here)
    error: GatewayError | None  # the provider could not be asked: the row is our copy
    pricing: Quote | None  # renewing for one year, when renewable
    renew_options: list[tuple[int, Money | None]]
    terms: list[int]  # the renewal terms allowed now
    expiry_timestamp: int | None  # the expiry a renewal form is sent with
    renewals: list[Renewal]
    auto_renew: AutoRenewState
    # A registered-unpaid payment for this domain (its hold lapsed): the page asks for it, with the payment link.
    payment_due: Payment | None
    payment_due_url: str
    privacy: PrivacyState


def order_page(*, order: Order) -> OrderPage:
    """Asks the provider once for the order's current state (errors are kept, never raised); reads the TLD's prices
    once for everything the page says about them."""
    with one_price_book():
        return _order_page(order)


def _order_page(order: Order) -> OrderPage:
    error: GatewayError | None = None
    try:
        current = order_fetch(order=order)
    except GatewayError as err:
        current, error = None, err
    listed = current is not None or error is not None
    refunded = order.refunded_at is not None
    row = order_row(current, refunded=refunded) if current is not None else order_row(order)
    renewable = listed and row.can_renew
    terms = renewals.renew_terms(domain_name=order.domain_name, expires_at=row.expires_at)
    due = payment_due_for(customer=order.customer, reference=order.domain_name)
    options = [(years, total) for years, total in renew_options(domain_name=order.domain_name) if years in terms]
    return OrderPage(
        order=order,
        row=row,
        listed=listed,
        error=error,
        pricing=renew_pricing(domain_name=order.domain_name) if renewable else None,
        renew_options=options if renewable else [],
        terms=terms,
        expiry_timestamp=current.expiry_timestamp if current is not None else order.expiry_timestamp,
        renewals=list(order.renewals.all()[:RENEWALS_SHOWN]),
        auto_renew=_auto_renew_state(order, renewable=renewable, expires_at=row.expires_at),
        payment_due=due,
        payment_due_url=reverse("billing:pay_due", args=[due.checkout_id]) if due is not None else "",
        privacy=privacy_state(order=order),
    )


def _auto_renew_state(order: Order, *, renewable: bool, expires_at: dt.datetime | None) -> AutoRenewState:
    return AutoRenewState(
        offered=renewable and not settings.PAYMENTS_DISABLED,
        on=order.auto_renew,
        card=saved_card_for(order.customer),
        days=settings.AUTO_RENEW_DAYS_BEFORE,
        failed_at=order.auto_renew_failed_at,
        failure=failure_reason(order) if order.auto_renew_failed_at else "",
        when=auto_renew_when(expires_at=expires_at),
        price_notice=price_notice_shown(order) if order.auto_renew and renewable else None,
    )
