"""Adding WHOIS privacy on the domain page: paid with the saved card (one confirmation) or on the payment page,
then bought once (the `privacy` line kind, domains/orders/privacy_payments.py). The button's one-time token is the
payment's checkout id, so a double click or a replay charges and buys once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.utils.translation import gettext

from billing.errors import CheckoutChanged, PaymentError, SessionClosed
from billing.models import Payment, SaleCause
from billing.payments.cards import saved_card_for
from billing.payments.services import payment_charge_saved, payment_returned, payment_start
from domains.models import Order, PrivacyPurchase
from domains.orders.privacy import (
    PRIVACY_OFF_SENTENCE,
    PrivacyAlreadySent,
    PrivacyRefused,
    privacy_offered,
    privacy_pay_check,
    privacy_purchase_place,
    privacy_state,
)
from domains.orders.privacy_payments import privacy_line_to_pay
from domains.orders.renewal_flow import ToPay
from pricing.money import Money, format_money
from storefront.gateway import GatewayError, OutcomeUnknown
from storefront.site.domain_names import domain_to_unicode


@dataclass(frozen=True)
class PrivacyOutcome:
    """What happened, as the domain page says it: `tone` success, info or error."""

    tone: str
    text: str


def privacy_buy(
    *, order: Order, token: uuid.UUID, price_shown: Decimal, saved_card: bool, return_url: str
) -> ToPay | PrivacyOutcome:
    """Buy WHOIS privacy up to the domain's expiry at the price the page showed: charged to the saved card when
    `saved_card` and there is one, else on the payment page (returning to `return_url`).

    Raises ActingRefused (staff acting as the customer), PrivacyRefused (nothing bought or charged), PaymentError."""
    privacy_pay_check()
    if not privacy_offered():
        raise PrivacyRefused(message=PRIVACY_OFF_SENTENCE)
    if order.refunded_at is not None:
        raise PrivacyRefused(message=gettext("This domain was refunded, so nothing more can be bought for it here."))
    own = Payment.objects.filter(checkout_id=token, customer=order.customer).first()
    if own is not None and own.status != Payment.Status.CREATED:
        # This form was sent already (a double click, a reload): its outcome, never a second charge.
        return privacy_payment_outcome(order=order, payment=own)
    state = privacy_state(order=order)
    if own is None and ((state.purchased and not state.extends) or _purchase_in_flight(order)):
        # Another tab's form, or a purchase still being sent: privacy is bought once per domain.
        raise PrivacyRefused(
            message=gettext("WHOIS privacy is already paid for on this domain (or being added). Nothing was charged.")
        )
    if state.quote is None:
        raise PrivacyRefused(message=gettext("WHOIS privacy has no price right now. Nothing was charged."))
    price = state.quote.retail
    if price.amount != price_shown:
        raise PrivacyRefused(
            message=gettext(
                "The price of WHOIS privacy changed to %(price)s since this page was shown. Nothing was charged: "
                "please check it and confirm again."
            )
            % {"price": format_money(price)}
        )
    if settings.PAYMENTS_DISABLED or price.is_zero:
        return _buy_now(order, token=token, years=state.years, price=price, cost=state.quote.cost)
    line = privacy_line_to_pay(
        domain_name=order.domain_name, years=state.years, price=price, cost=state.quote.cost, order_id=order.order_id
    )
    try:
        if saved_card and saved_card_for(order.customer) is not None:
            payment = payment_charge_saved(customer=order.customer, lines=[line], checkout_id=token)
            return privacy_payment_outcome(order=order, payment=payment)
        started = payment_start(
            customer=order.customer,
            lines=[line],
            checkout_id=token,
            success_url=f"{return_url}?privacy={token}",
            cancel_url=return_url,
        )
    except (CheckoutChanged, SessionClosed) as err:
        raise PrivacyRefused(message=err.message) from err
    except PaymentError as err:
        if err.code != "already_paid":
            raise
        started = None
    if started is None:
        return privacy_payment_outcome(order=order, payment=Payment.objects.get(checkout_id=token))
    return ToPay(url=started.url)


def _purchase_in_flight(order: Order) -> bool:
    """A payment of this domain's privacy that is authorised or being paid and not delivered yet."""
    waiting = (PrivacyPurchase.PENDING, PrivacyPurchase.UNKNOWN)
    if PrivacyPurchase.objects.filter(provider_order_id=order.order_id, status__in=waiting).exists():
        return True
    return Payment.objects.filter(
        customer=order.customer,
        status__in=(Payment.Status.CREATED, Payment.Status.AUTHORISED),
        lines__cause=SaleCause.PRIVACY,
        lines__details__order_id=order.order_id,
    ).exists()


def _buy_now(order: Order, *, token: uuid.UUID, years: int, price: Money, cost: Money) -> PrivacyOutcome:
    """Billed offline (or free): bought at once, as renewals are."""
    try:
        privacy_purchase_place(order=order, checkout_id=token, years=years, price=price, cost=cost)
    except PrivacyAlreadySent as sent:
        return _purchase_outcome(order, sent.purchase)
    except OutcomeUnknown:
        return PrivacyOutcome("info", _confirming(order))
    except GatewayError as err:
        raise PrivacyRefused(message=err.message) from err
    return _purchase_outcome(order, PrivacyPurchase.objects.get(checkout_id=token, provider_order_id=order.order_id))


def privacy_paid_return(*, order: Order, token: str) -> PrivacyOutcome | None:
    """The payment page's return to the domain page: settled as the webhook does (whichever comes first buys it,
    once). None when `token` names no payment of this domain's customer."""
    payment = payment_returned(customer=order.customer, token=token)  # the worker buys it, or the webhook has
    return None if payment is None else privacy_payment_outcome(order=order, payment=payment)


def privacy_payment_outcome(*, order: Order, payment: Payment) -> PrivacyOutcome:
    purchase = PrivacyPurchase.objects.filter(checkout_id=payment.checkout_id, provider_order_id=order.order_id).first()
    if purchase is not None:
        return _purchase_outcome(order, purchase)
    if payment.status == Payment.Status.CANCELLED:
        return PrivacyOutcome(
            "error",
            gettext(
                "Your saved card was refused, so nothing was charged and privacy was not added. You can pay on the "
                "payment page instead."
            ),
        )
    return PrivacyOutcome(
        "info",
        gettext("Your payment is being confirmed. WHOIS privacy is added to %(domain)s as soon as it is.")
        % {"domain": domain_to_unicode(order.domain_name)},
    )


def _purchase_outcome(order: Order, purchase: PrivacyPurchase) -> PrivacyOutcome:
    domain = domain_to_unicode(order.domain_name)
    if purchase.status == PrivacyPurchase.PURCHASED:
        return PrivacyOutcome(
            "success",
            gettext("WHOIS privacy is on: the contact details of %(domain)s are hidden in public lookups.")
            % {"domain": domain},
        )
    if purchase.status == PrivacyPurchase.FAILED:
        return PrivacyOutcome(
            "error",
            gettext("WHOIS privacy could not be added to %(domain)s, so nothing was charged for it.")
            % {"domain": domain},
        )
    return PrivacyOutcome("info", _confirming(order))


def _confirming(order: Order) -> str:
    return gettext(
        "We could not confirm yet whether WHOIS privacy was added to %(domain)s. We check again shortly; you are only "
        "charged once it is."
    ) % {"domain": domain_to_unicode(order.domain_name)}
