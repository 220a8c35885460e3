"""What a refund or a dispute of a domain's payment marks on the domain (our copy of the order), as billing tells the
line kinds (billing.ledger.lines: `refunded`, `disputed`) in the transaction that records the money movement.

A refunded domain (refunded by staff, in Stripe's dashboard, or lost to a dispute) is not renewed here any more, its
auto-renew is switched off, its pages say so, and staff see it listed (Admin → Orders, "refunded"): the provider has
no delete call yet, so the registration itself stays until it expires or staff act at the provider. Meanwhile it is
locked for the customer: the reseller paid the provider for a domain the customer got their money back for, so no
transfer code, DNS change or control panel (where it could be moved away) is given for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Customer
from accounts.signup.services import panel_refusal_register
from billing.models import PaymentLine
from domains.models import Order, Renewal
from reseller_webhooks.events import DOMAIN_REFUNDED, webhook_domain_event_emit
from storefront.errors import StoreError

logger = logging.getLogger(__name__)


def order_refunded_mark(*, order: Order) -> bool:
    """Mark the domain refunded (once) and switch its auto-renew off. True when it changed."""
    changed = Order.objects.filter(pk=order.pk, refunded_at__isnull=True).update(
        refunded_at=timezone.now(), auto_renew=False
    )
    if changed:
        logger.warning("order %s (%s): its payment was refunded; not renewed here any more", order.order_id, order)
        webhook_domain_event_emit(DOMAIN_REFUNDED, key=str(order.pk), order=order)
    return bool(changed)


def order_disputed_mark(*, order: Order, open: bool) -> None:
    """Flag the domain while a dispute of its payment is open; clear the flag once it closes."""
    Order.objects.filter(pk=order.pk).update(disputed_at=timezone.now() if open else None)


def orders_refunded() -> QuerySet[Order]:
    """Refunded domains still held at the provider (for staff)."""
    return Order.objects.filter(refunded_at__isnull=False)


def line_marks(order_of: Callable[[PaymentLine], Order | None]) -> dict[str, Any]:
    """A line kind's `refunded` and `disputed` (billing.ledger.lines.LineKind), marking the domain `order_of` finds for
    a paid line."""

    def refunded(line: PaymentLine) -> None:
        order = order_of(line)
        if order is not None:
            order_refunded_mark(order=order)

    def disputed(line: PaymentLine, open: bool) -> None:
        order = order_of(line)
        if order is not None:
            order_disputed_mark(order=order, open=open)

    return {"refunded": refunded, "disputed": disputed}


def renewal_refunded_mark(*, renewal: Renewal) -> bool:
    """Mark one renewal's money given back (once). The domain stays as it is: paid up by its registration, renewable,
    its auto-renew and privacy untouched. True when it changed."""
    changed = Renewal.objects.filter(pk=renewal.pk, refunded_at__isnull=True).update(refunded_at=timezone.now())
    if changed:
        logger.warning("renewal %s (%s): its payment was refunded", renewal.pk, renewal.domain_name)
    return bool(changed)


class DomainRefunded(StoreError):
    """Asked to change, move or manage a domain whose payment was given back in full: refused before any call."""

    http_status = 403
    default_message = gettext_lazy(
        "This domain was refunded, so its transfer code, DNS records and control panel are closed. It stays "
        "registered until we remove it."
    )


def order_unlocked_check(*, order: Order) -> None:
    """Raise DomainRefunded when the domain is locked (refunded in full); nothing otherwise."""
    if order.refunded_at is not None:
        raise DomainRefunded(f"order {order.order_id} is refunded")


def _panel_refusal(customer: Customer) -> str:
    """The control panel manages every domain of the account, a refunded one among them: closed while one is held."""
    refunded = orders_refunded().filter(customer=customer).order_by("domain_name").first()
    if refunded is None:
        return ""
    return gettext(
        "The control panel is closed while %(domain)s, which was refunded, is still registered in your account."
    ) % {"domain": refunded.domain_name}


panel_refusal_register(_panel_refusal)
