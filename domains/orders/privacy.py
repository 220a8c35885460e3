"""WHOIS privacy of a domain: what it costs, buying it once, and switching it on or off.

The provider sells privacy as a "coming soon" endpoint (`POST/PUT /api/v1/privacy-protection`, capability
`privacy`): off for the real provider until it ships, on with the sandbox. While it is off, nothing here calls the
provider and the pages say plainly that the contact details are public, and what to do instead.

A purchase is paid first (with an order at checkout, or on the domain page with the saved card or on the payment
page): the paid line is handed to `privacy_purchase_place` (domains/orders/privacy_payments.py), which records a
`PrivacyPurchase` under the payment's checkout id before the provider is asked, so a line delivered twice buys once.
Switching off is free; switching on privacy that is still paid for is free too.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import activity_record, current_actor
from domains.models import Order, PrivacyPurchase
from pricing.money import Money
from pricing.quotes import Quote, privacy_quote
from storefront.errors import StoreError
from storefront.gateway import GatewayError, OutcomeUnknown, PrivacyProtection, gateway
from storefront.requests.acting_rules import REFUSED_SENTENCE
from storefront.site.capabilities import PRIVACY, capability_enabled

MAX_YEARS = 10  # the provider sells privacy for 1 to 10 years

# Said wherever privacy would be offered while the provider does not sell it (the domain page, the checkout).
PRIVACY_OFF_SENTENCE = gettext_lazy(
    "WHOIS privacy is not available through us yet, so the name, address, email address and phone number in your "
    "contact details are shown as this domain's owner in public WHOIS lookups."
)
PRIVACY_OFF_INSTEAD = gettext_lazy(
    "If you would rather not publish your home address, use a business address or a post office box in your "
    "contact details before you buy."
)


class PrivacyRefused(StoreError):
    """Nothing was bought or switched: `message` is safe to show."""


@dataclass(frozen=True)
class PrivacyState:
    """What the domain page shows: offered at all, paid for (until when), shown now, and the price to add it."""

    offered: bool
    purchased: bool
    enabled: bool
    expires_at: dt.datetime | None
    years: int  # what buying it now covers: up to the domain's expiry
    quote: Quote | None  # None: not for sale now
    # Paid for, but ending before the domain (renewed since): buying `years` more takes it to the domain's expiry.
    extends: bool = False


def privacy_offered() -> bool:
    return capability_enabled(PRIVACY)


def privacy_years(*, expires_at: dt.datetime | None, now: dt.datetime | None = None) -> int:
    """Whole years of privacy that cover the domain up to its expiry (at least one, at most ten)."""
    if expires_at is None:
        return 1
    days = (expires_at - (now or timezone.now())).total_seconds() / 86400
    # A week's slack: a domain registered for a year today has 365 or 366 days left, which is one year of privacy.
    return min(MAX_YEARS, max(1, math.ceil((days - 7) / 365.2425)))


def privacy_paid(order: Order, *, now: dt.datetime | None = None) -> bool:
    return order.privacy_expires_at is not None and order.privacy_expires_at > (now or timezone.now())


def privacy_state(*, order: Order) -> PrivacyState:
    """The domain's privacy as our copy has it (the provider's last answer), and its price: no provider call."""
    offered = privacy_offered()
    paid = privacy_paid(order)
    extends = (
        paid
        and order.expires_at is not None
        and order.privacy_expires_at is not None
        and order.privacy_expires_at < order.expires_at - EXTENSION_SLACK
    )
    # The provider adds a purchase to the privacy still paid for: an extension counts from its end.
    years = privacy_years(expires_at=order.expires_at, now=order.privacy_expires_at if extends else None)
    return PrivacyState(
        offered=offered,
        purchased=paid,
        enabled=paid and order.privacy_enabled,
        expires_at=order.privacy_expires_at,
        years=years,
        quote=privacy_quote(tld=_tld(order.domain_name), years=years) if offered else None,
        extends=extends,
    )


# Privacy ending within this of the domain is taken to cover it (a year's privacy bought a few days after the domain).
EXTENSION_SLACK = dt.timedelta(days=7)


def privacy_record(*, order: Order, privacy: PrivacyProtection) -> None:
    """Keep the provider's answer about the domain's privacy on our copy of the order."""
    order.privacy_enabled = privacy.enabled
    order.privacy_expires_at = privacy.expires_at
    Order.objects.filter(pk=order.pk).update(
        privacy_enabled=order.privacy_enabled, privacy_expires_at=order.privacy_expires_at
    )


def privacy_switch(*, order: Order, enabled: bool) -> Order:
    """Show or hide the contact details of a domain whose privacy is paid for (free either way).

    Raises PrivacyRefused (not offered, or not paid for: buy it instead) and the gateway's errors."""
    if not privacy_offered():
        raise PrivacyRefused(message=PRIVACY_OFF_SENTENCE)
    if enabled and not privacy_paid(order):
        raise PrivacyRefused(message=gettext("WHOIS privacy is not paid for on this domain. Add it first."))
    changed = gateway().privacy_set(order_id=order.order_id, enabled=enabled)
    with transaction.atomic():
        privacy_record(order=order, privacy=changed.privacy)
        activity_record(action="privacy_on" if enabled else "privacy_off", order=order)
    return order


def privacy_pay_check() -> None:
    """Paying stays with the customer: staff acting as them are refused before any payment is started."""
    if current_actor().kind == Activity.Actor.STAFF_AS_CUSTOMER:
        raise ActingRefused(message=REFUSED_SENTENCE)


# --- Buying it once, for a paid line -----------------------------------------------------------------------------


class PrivacyAlreadySent(Exception):
    """This checkout's purchase for the domain was sent before: its row tells how it went."""

    def __init__(self, purchase: PrivacyPurchase) -> None:
        super().__init__(purchase.status)
        self.purchase = purchase


def privacy_purchase_place(
    *, order: Order, checkout_id: uuid.UUID, years: int, price: Money, cost: Money | None
) -> PrivacyPurchase:
    """Buy privacy for `years` once per (checkout, domain): the row is claimed before the provider is asked.

    Raises PrivacyAlreadySent (sent before), OutcomeUnknown (it may have been bought: the row is UNKNOWN) and the
    gateway's other errors (certainly not bought: the row is FAILED and may be claimed again)."""
    purchase = _claim(order=order, checkout_id=checkout_id, years=years, price=price, cost=cost)
    try:
        changed = gateway().privacy_purchase(order_id=order.order_id, duration=years)
    except OutcomeUnknown:
        _settle(purchase, status=PrivacyPurchase.UNKNOWN)
        raise
    except GatewayError as err:
        _settle(purchase, status=PrivacyPurchase.FAILED, detail=err.provider_message or type(err).__name__)
        raise
    with transaction.atomic():
        privacy_record(order=order, privacy=changed.privacy)
        purchase.expires_after = changed.privacy.expires_at
        _settle(purchase, status=PrivacyPurchase.PURCHASED)
    return purchase


def _claim(*, order: Order, checkout_id: uuid.UUID, years: int, price: Money, cost: Money | None) -> PrivacyPurchase:
    fields = {
        "customer": order.customer,
        "order": order,
        "domain_name": order.domain_name,
        "years": years,
        "price": price.amount,
        "currency": price.currency,
        "cost_price": cost.amount if cost is not None and cost.currency == price.currency else None,
        "expires_before": order.privacy_expires_at,
        "expires_after": None,
        "provider_message": "",
    }
    try:
        with transaction.atomic():
            return PrivacyPurchase.objects.create(
                checkout_id=checkout_id, provider_order_id=order.order_id, status=PrivacyPurchase.PENDING, **fields
            )
    except IntegrityError:
        pass
    mine = PrivacyPurchase.objects.filter(checkout_id=checkout_id, provider_order_id=order.order_id)
    # Certainly not bought before (the provider refused or was away): the same line may try again, once at a time.
    if mine.filter(status=PrivacyPurchase.FAILED).update(
        status=PrivacyPurchase.PENDING, updated_at=timezone.now(), **fields
    ):
        return mine.get()
    raise PrivacyAlreadySent(mine.get())


def _settle(purchase: PrivacyPurchase, *, status: str, detail: str = "") -> None:
    purchase.status = status
    purchase.provider_message = detail[:2000]
    purchase.save(update_fields=["status", "provider_message", "expires_after", "updated_at"])
    if status == PrivacyPurchase.PURCHASED:
        activity_record(
            action="privacy_purchased",
            customer=purchase.customer,
            order=purchase.order,
            domain_name=purchase.domain_name,
            detail={"years": purchase.years, "until": purchase.expires_after},
        )
    elif status == PrivacyPurchase.FAILED:
        activity_record(
            action="privacy_failed",
            customer=purchase.customer,
            order=purchase.order,
            domain_name=purchase.domain_name,
            detail={"reason": detail or "refused"},
        )


# A purchase whose answer was lost is called "not bought" only once the provider has had this long to show it.
RECONCILE_AFTER = dt.timedelta(minutes=10)


def privacy_purchase_reconcile(*, purchase: PrivacyPurchase, now: dt.datetime | None = None) -> PrivacyPurchase:
    """Settle a purchase whose answer was lost from the domain's privacy as the provider tells it now (its details,
    a "coming soon" endpoint too): paid further than before means bought; unchanged after RECONCILE_AFTER means not.
    Without that endpoint, or with the provider away, it stays unknown for the next run (or staff)."""
    if purchase.status != PrivacyPurchase.UNKNOWN or purchase.order is None:
        return purchase
    try:
        details = gateway().domain_details(order_id=purchase.provider_order_id)
    except GatewayError:
        return purchase
    after = details.privacy.expires_at
    if after is not None and (purchase.expires_before is None or after > purchase.expires_before):
        with transaction.atomic():
            privacy_record(order=purchase.order, privacy=details.privacy)
            purchase.expires_after = after
            _settle(purchase, status=PrivacyPurchase.PURCHASED)
    elif purchase.updated_at < (now or timezone.now()) - RECONCILE_AFTER:
        _settle(purchase, status=PrivacyPurchase.FAILED, detail="not_purchased")
    return purchase


def _tld(domain_name: str) -> str:
    return domain_name.rpartition(".")[2].lower()
