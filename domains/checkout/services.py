"""Checkout: review the cart with fresh availability, place the order once, and follow each line's outcome.

The review checks every line's availability with at most one provider call whatever the number of lines: a line
that a fresh MetaSearch answer in the search cache calls taken or premium is dropped on its word, and every other
line is asked of the availability endpoint together (it takes many names at once; MetaSearch marks no premium
name, the availability endpoint does). A visitor who is not signed in (or whose
account is not linked to the provider yet) cannot buy from the review, so it asks the provider nothing for them. It
re-quotes every line's retail price (`pricing.quotes.requote`): the price the customer was quoted stands unless
selling at it would now lose money (then today's price is shown as a change); a lower price today is passed on. What
changed is shown and written to the cart, and the reviewed lines are kept in the session with a checkout id. Placing
buys exactly those lines at the reviewed prices, after re-quoting each once more: a line whose cost rose past its
price since the review is re-quoted and shown as changed, and nothing is bought. If the cart changed since the
review, the customer reviews again. The checkout id is the idempotency key: a repeated or concurrent Buy of the same
checkout reuses the lines it recorded.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import cache
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.models import Customer
from accounts.staff.activity import activity_record
from billing.errors import CheckoutChanged, PaymentError, SessionClosed
from billing.ledger.taxes import customer_tax_status
from billing.models import Document, Payment
from billing.payments.services import payment_settle_later, payment_start
from domains.cart.basket import Cart, CartLine, line_quote
from domains.cart.promotion import cart_code, cart_promotion_apply
from domains.checkout import registrations
from domains.checkout.acceptance import legal_acceptance_record
from domains.checkout.emails import checkout_email_queue
from domains.checkout.payments import lines_to_pay
from domains.checkout.tasks import place_checkout, reconcile_checkout
from domains.models import Registration
from domains.orders.privacy import privacy_offered
from domains.search.services import Buyable, availability_of, search_rows_cached, why_not_buyable
from domains.terms import register_min_term
from pricing.models import Operation
from pricing.money import Money, format_money
from pricing.promotions import PromotionRefused, redemptions_release, redemptions_take
from pricing.quotes import price_book, privacy_requote, requote
from pricing.tax import shown_tax_rules
from storefront.background.claims import claim_once
from storefront.errors import StoreError
from storefront.gateway import GatewayError
from storefront.site.domain_names import domain_to_unicode
from storefront.site.legal import legal_versions_current

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise

SESSION_KEY = "checkout"
# Checkouts this browser placed, with their names, until the worker has recorded their lines.
PLACING_KEY = "checkouts_placing"
PLACINGS_KEPT = 5
PLACE_DEDUP_SECONDS = 10 * 60
# The confirmation page asks the worker to settle lost answers at most this often.
RECONCILE_EVERY_SECONDS = 15


# --- What a review and a placing answer --------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    domain_name: str
    text: str


@dataclass(frozen=True)
class Review:
    """The cart as it can be bought now. `checkout_id` is set when it can be bought (Buy posts it back)."""

    lines: list[CartLine]
    changes: list[Change]
    error: StoreError | None = None
    checkout_id: uuid.UUID | None = None
    digest: str = ""
    promotion_code: str = ""  # the code kept from the cart, applied to the lines
    promotion_note: str = ""  # why the code kept from the cart could not be used (it was taken off)

    @property
    def can_buy(self) -> bool:
        return self.checkout_id is not None


@dataclass(frozen=True)
class Placed:
    """The order was placed: pay on the payment page first (`payment_url`), or follow it on its confirmation page."""

    checkout_id: uuid.UUID
    payment_url: str = ""


class NotPlaced(StoreError):
    """Nothing was bought: the customer reviews the order again, with these sentences (what changed)."""

    tone = "warn"

    def __init__(self, *sentences: StrOrPromise) -> None:
        super().__init__(message=sentences[0])
        self.sentences = sentences


class CannotBuy(NotPlaced):
    """Nothing was bought, and reviewing again will not help until something outside the order changes."""

    tone = "error"


class AlreadyPlaced(Exception):
    """This Buy repeats an order already placed (double click, retry, Back): its confirmation page tells."""


@dataclass(frozen=True)
class Progress:
    """A placed checkout's lines and what is still awaited, for its confirmation page."""

    lines: list[Registration]
    queued: list[str]  # names this browser bought that the worker has not recorded yet
    payment: Payment | None

    @property
    def registered(self) -> list[Registration]:
        return [line for line in self.lines if line.status == Registration.Status.REGISTERED]

    @property
    def failed(self) -> list[Registration]:
        return [line for line in self.lines if line.status == Registration.Status.FAILED]

    @property
    def waiting(self) -> bool:
        return (
            bool(self.queued)
            or any(line.status in Registration.UNSETTLED_STATUSES for line in self.lines)
            or (self.payment is not None and not self.lines)
        )

    @property
    def receipt(self) -> Document | None:
        return self.payment.receipt if self.payment is not None else None  # issued with the capture


def review_digest(*, checkout_id: uuid.UUID, lines: dict[str, Any], tax: dict[str, str] | None = None) -> str:
    """A fingerprint of the reviewed lines (names, terms, prices) and of the tax they were shown with (rate, reverse
    charge: billing.ledger.taxes.customer_tax_status), and so of their totals, for this checkout.

    Two tabs share the session's review: the digest tells which review the pressed button was on, so a tab
    showing older prices or another tax never buys at the newer ones another tab reviewed.
    """
    reviewed: dict[str, Any] = {"id": str(checkout_id), "lines": lines, **({"tax": tax} if tax is not None else {})}
    canonical = json.dumps(reviewed, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


# --- Review --------------------------------------------------------------------------------------------------------


def checkout_review(*, session: SessionBase, customer: Customer | None) -> Review:
    """Re-check every line (availability, price), drop or update what changed, and keep what can be bought now in
    the session under a checkout id."""
    basket = Cart(session)
    changes: list[Change] = []
    if customer is not None:
        changes += _drop_already_bought(basket, customer)
    may_buy = customer is not None and customer.customer_id is not None
    try:
        changes += _recheck(basket, ask_provider=may_buy)
    except GatewayError as err:
        return Review(lines=basket.lines(), changes=changes, error=err)
    checkout_id = _checkout_id(session) if basket.lines() and may_buy else None
    # The code's discounts for the lines as they are now; this checkout's own uses (taken by an earlier Buy of it)
    # are its own, not someone else's.
    note = ""
    if cart_code(session):
        note = cart_promotion_apply(
            session, customer_id=customer.pk if customer else None, exclude_checkout=checkout_id
        )[2]
    code = cart_code(session)
    lines = basket.lines()
    if not lines or customer is None or checkout_id is None:
        return Review(lines=lines, changes=changes, promotion_code=code, promotion_note=note)
    reviewed = {line.domain_name: line.as_session() for line in lines}
    tax = customer_tax_status(customer, shown_tax_rules())
    session[SESSION_KEY] = {"id": str(checkout_id), "lines": reviewed, "tax": tax}
    return Review(
        lines=lines,
        changes=changes,
        checkout_id=checkout_id,
        digest=review_digest(checkout_id=checkout_id, lines=reviewed, tax=tax),
        promotion_code=code,
        promotion_note=note,
    )


def _checkout_id(session: SessionBase) -> uuid.UUID:
    """The session's checkout id (two tabs share it) unless it was already used to place an order."""
    stored = session.get(SESSION_KEY)
    if isinstance(stored, dict):
        try:
            current = uuid.UUID(str(stored.get("id")))
        except ValueError:
            current = None
        used = current is not None and (
            Registration.objects.filter(checkout_id=current).exists()
            or Payment.objects.filter(checkout_id=current).exclude(status=Payment.Status.CREATED).exists()
        )
        if current is not None and not used:
            return current
    return uuid.uuid4()


def _recheck(basket: Cart, *, ask_provider: bool) -> list[Change]:
    """Whether every line can still be bought (`ask_provider`: fresh search rows, else one availability call for the
    rest), and its price re-quoted; update or drop the lines that changed."""
    lines = basket.lines()
    rows: dict[str, Buyable] = {}
    if ask_provider and lines:
        names = [line.domain_name for line in lines]
        # MetaSearch's word is taken only when it says no: as documented it marks no premium name (its `pricing` is
        # null whenever `available` is false), so a name it calls available is asked of the availability endpoint,
        # whose `premium` flag says what `register` would refuse after the customer paid.
        rows.update({name: row for name, row in search_rows_cached(names).items() if not row.sellable})
        unchecked = [name for name in names if name not in rows]
        if unchecked:
            rows.update(availability_of(unchecked))
    changes = []
    for line in lines:
        gone = _not_buyable(rows.get(line.domain_name)) if ask_provider else ""
        if gone:
            basket.remove(line.domain_name)
            changes.append(Change(line.domain_name, gone % {"domain": line.domain_name}))
            continue
        changes += _requote_line(basket, line, lower_too=True)
    return changes


def _requote_lines(basket: Cart) -> list[Change]:
    """At Buy: re-quote every line; a line whose quoted price would now sell below cost is re-priced."""
    changes = []
    for line in basket.lines():
        changes += _requote_line(basket, line, lower_too=False)
    return changes


def _requote_line(basket: Cart, line: CartLine, *, lower_too: bool) -> list[Change]:
    """The quoted price stands unless it would lose money; at review, a lower price today is passed on too.

    A term no longer sold (the TLD's minimum rose) is raised to the next one sold, at that term's price.
    """
    name = line.domain_name
    today = line_quote(
        book=price_book(tlds=[line.tld]), domain_name=name, duration=line.duration, min_term=line.min_term
    )
    if today is None:
        basket.remove(name)
        return [Change(name, _not_sold_any_more(name))]
    if today.duration != line.duration:
        basket.put(today)
        text = gettext(
            "Domains ending in .%(tld)s are sold for at least %(years)d years, so %(domain)s is now "
            "%(years)d years at %(price)s."
        ) % {"tld": line.tld, "years": today.duration, "domain": name, "price": format_money(today.total)}
        return [Change(name, text)]
    quoted = line.total
    again = requote(tld=line.tld, operation=Operation.REGISTER, years=line.duration, quoted=quoted)
    if again.price is None or again.quote is None:
        basket.remove(name)
        return [Change(name, _not_sold_any_more(name))]
    price = again.price
    if lower_too and again.quote.retail < price:
        price = again.quote.retail
    privacy, changes = _requote_privacy(line, lower_too=lower_too)
    # Today's renewal price and text go with the honoured price: they are information, not a quote.
    # The promotion's discount stays as it was; the code's figures are worked out again after (cart.promotion).
    fresh = replace(
        today,
        price=price.amount,
        currency=price.currency,
        privacy=privacy,
        discount=line.discount,
        promotion=line.promotion,
    )
    if fresh != line:
        basket.put(fresh)
    if price != quoted:
        changes.insert(0, Change(name, _price_change(name, old=quoted, new=price, years=line.duration)))
    return changes


def _requote_privacy(line: CartLine, *, lower_too: bool) -> tuple[Decimal | None, list[Change]]:
    """The line's WHOIS privacy price that stands (as `_requote_line` for the domain), or None with why it was taken
    off (the provider stopped offering it, or it has no price now)."""
    quoted = line.privacy_money
    if quoted is None:
        return None, []
    name = domain_to_unicode(line.domain_name)
    if not privacy_offered():
        return None, [Change(line.domain_name, _privacy_gone(name))]
    again = privacy_requote(tld=line.tld, years=line.duration, quoted=quoted)
    if again.price is None or again.quote is None:
        return None, [Change(line.domain_name, _privacy_gone(name))]
    price = again.quote.retail if lower_too and again.quote.retail < again.price else again.price
    if price == quoted:
        return price.amount, []
    text = gettext("The price of WHOIS privacy for %(domain)s changed from %(old)s to %(new)s.") % {
        "domain": name,
        "old": format_money(quoted),
        "new": format_money(price),
    }
    return price.amount, [Change(line.domain_name, text)]


def _privacy_gone(name: str) -> str:
    return gettext(
        "WHOIS privacy cannot be added to %(domain)s right now, so we took it off your order: its contact details "
        "will be public."
    ) % {"domain": name}


def _not_sold_any_more(name: str) -> str:
    return gettext("%(domain)s is not sold here any more, so we removed it from your cart.") % {"domain": name}


def _not_buyable(row: Buyable | None) -> str:
    """Why a line cannot be bought any more, as a sentence with a `%(domain)s` placeholder; empty when it can."""
    reason = why_not_buyable(row)
    if reason == "not_found":
        return gettext("%(domain)s could not be found any more, so we removed it from your cart.")
    if reason == "premium":
        return gettext(
            "%(domain)s is now a premium name, which cannot be bought here, so we removed it from your cart."
        )
    if reason == "taken":
        return gettext("%(domain)s is no longer available, so we removed it from your cart.")
    return ""


def _price_change(domain_name: str, *, old: Money, new: Money, years: int) -> str:
    text = ngettext(
        "The price of %(domain)s for %(years)d year changed from %(old)s to %(new)s.",
        "The price of %(domain)s for %(years)d years changed from %(old)s to %(new)s.",
        years,
    )
    return text % {"domain": domain_name, "years": years, "old": format_money(old), "new": format_money(new)}


def _drop_already_bought(basket: Cart, customer: Customer) -> list[Change]:
    """Lines this customer already registered, or is still being confirmed for from an earlier order (whose lost
    answer the worker settles: the review itself asks the provider nothing for them)."""
    names = [line.domain_name for line in basket.lines()]
    changes = []
    live = Registration.objects.filter(customer=customer, domain_name__in=names, status__in=Registration.LIVE_STATUSES)
    for registration in live:
        if registration.status == Registration.Status.REGISTERED:
            text = gettext("%(domain)s is already yours.") % {"domain": registration.domain_name}
        elif registration.status in Registration.UNSETTLED_STATUSES:
            _reconcile_soon(registration.checkout_id)
            text = gettext(
                "We are still confirming %(domain)s from your earlier order, so it is not in this one. We will "
                "email you as soon as it is settled."
            ) % {"domain": registration.domain_name}
        else:
            continue
        basket.remove(registration.domain_name)
        changes.append(Change(registration.domain_name, text))
    return changes


def _reconcile_soon(checkout_id: uuid.UUID) -> bool:
    """Hand the checkout's lost answers to the worker, at most every few seconds (pages that show them are
    reloaded). True when handed over now."""
    if not cache.add(f"checkout-reconcile:{checkout_id}", 1, RECONCILE_EVERY_SECONDS):
        return False
    transaction.on_commit(lambda: reconcile_checkout.enqueue(checkout_id=str(checkout_id)), robust=True)
    return True


# --- Placing -------------------------------------------------------------------------------------------------------

_REVIEW_AGAIN = _("Please review your order and confirm it again.")


def checkout_place(
    *,
    session: SessionBase,
    customer: Customer,
    checkout_id: uuid.UUID,
    digest: str,
    legal_versions: str,
    ip: str,
    done_url: str,
    cancel_url: str,
) -> Placed:
    """Buy exactly the reviewed lines of `checkout_id` at their reviewed prices, once.

    `done_url` is the checkout's confirmation page (absolute), `cancel_url` where the payment page's Back leads.
    Raises Http404 (someone else's checkout), AlreadyPlaced, NotPlaced (nothing bought: review again, with why).
    """
    if customer.customer_id is None:
        raise ValueError("a customer must be linked to the provider to buy")
    recorded = Registration.objects.filter(checkout_id=checkout_id)
    if recorded.exclude(customer=customer).exists():
        raise Http404
    basket = Cart(session)
    reviewed = _reviewed_lines(session, checkout_id)
    if reviewed is None or reviewed != {line.domain_name: line.as_session() for line in basket.lines()}:
        if recorded.exists() or str(checkout_id) in _placing(session):
            raise AlreadyPlaced
        if reviewed is None:
            raise CannotBuy(_REVIEW_AGAIN)
        raise NotPlaced(_("Your cart changed since you reviewed it. Please check it and confirm again."))
    _check_still_as_reviewed(
        basket,
        checkout_id=checkout_id,
        reviewed=reviewed,
        digest=digest,
        versions=legal_versions,
        tax=_reviewed_tax(session),
    )
    if _reviewed_tax(session) != customer_tax_status(customer):
        # The tax details changed (another tab, /account/tax/) since the review: its total is not what is charged.
        raise NotPlaced(
            _(
                "Your tax details changed since this page was shown, so the tax on your order changed. Nothing was "
                "bought: please check the order below and confirm again."
            )
        )
    # What the customer accepted is recorded before anything is charged or registered.
    if legal_acceptance_record(customer=customer, checkout_id=checkout_id, ip=ip) is None:
        raise CannotBuy(
            _(
                "Our terms of service or registration agreement cannot be shown right now, so nothing can be "
                "bought. Please try again later."
            )
        )
    # Something to pay: the customer authorises it on the payment page first; the lines are registered when the
    # payment is settled (return or webhook). Nothing to pay (free first years only): Stripe refuses a session for 0.
    activity_record(
        action="checkout_placed",
        customer=customer,
        detail={"domains": ", ".join(sorted(reviewed)), "checkout": str(checkout_id)},
    )
    promotion_id = _promotion_take(session, customer=customer, checkout_id=checkout_id, reviewed=reviewed)
    if not settings.PAYMENTS_DISABLED and any(not line.due.is_zero for line in basket.lines()):
        try:
            return _pay(
                session,
                customer=customer,
                basket=basket,
                checkout_id=checkout_id,
                urls=(done_url, cancel_url),
                promotion_id=promotion_id,
            )
        except (NotPlaced, PaymentError):
            redemptions_release(checkout_id=checkout_id)  # nothing was bought: the uses go back
            raise
    _enqueue_placing(session, customer=customer, checkout_id=checkout_id, reviewed=reviewed, done_url=done_url)
    return Placed(checkout_id=checkout_id)


def _check_still_as_reviewed(
    basket: Cart,
    *,
    checkout_id: uuid.UUID,
    reviewed: dict[str, Any],
    digest: str,
    versions: str,
    tax: dict[str, str] | None,
) -> None:
    """NotPlaced unless this tab showed the session's latest review, at prices that still hold, under the terms
    published now."""
    if digest != review_digest(checkout_id=checkout_id, lines=reviewed, tax=tax):
        # This tab showed another review (older prices, other lines) than the session's latest.
        raise NotPlaced(
            _(
                "Your order changed since this page was shown (another tab reviewed it again). "
                "Nothing was bought: please check the order below and confirm again."
            )
        )
    # The reviewed price is what is charged, unless the cost rose past it since.
    changes = _requote_lines(basket)
    if changes:
        raise NotPlaced(*(change.text for change in changes))
    if versions and versions != legal_versions_current():
        raise NotPlaced(
            _(
                "Our terms of service or domain registration agreement changed since this page was shown. Nothing "
                "was bought: please read them and confirm again."
            )
        )


def _promotion_take(
    session: SessionBase, *, customer: Customer, checkout_id: uuid.UUID, reviewed: dict[str, Any]
) -> int | None:
    """The code's discounts must be those reviewed (it may have run out, or ended, since): then its uses are taken,
    once, under a lock on the promotion. Otherwise NotPlaced, with why, and nothing is charged at the old prices.
    Returns the promotion's id (None: no code)."""
    if not cart_code(session):
        return None
    promotion, discounts, note = cart_promotion_apply(session, customer_id=customer.pk, exclude_checkout=checkout_id)
    basket = Cart(session)
    if {line.domain_name: line.as_session() for line in basket.lines()} != reviewed:
        session.pop(SESSION_KEY, None)
        raise NotPlaced(note or _("The promotion's discount changed since you reviewed your order."), _NOTHING_BOUGHT)
    if promotion is None:
        return None
    try:
        redemptions_take(promotion_id=promotion.pk, customer_id=customer.pk, checkout_id=checkout_id, lines=discounts)
    except PromotionRefused as refused:
        cart_promotion_apply(session, customer_id=customer.pk, exclude_checkout=checkout_id)
        session.pop(SESSION_KEY, None)
        raise NotPlaced(refused.message, _NOTHING_BOUGHT) from refused
    return promotion.pk


_NOTHING_BOUGHT = _("Nothing was bought: please check the new prices and confirm again.")


def _enqueue_placing(
    session: SessionBase, *, customer: Customer, checkout_id: uuid.UUID, reviewed: dict[str, Any], done_url: str
) -> None:
    """Nothing to pay: the worker registers the lines (place_checkout), never the request, so a request's provider
    calls stay bounded however many lines the cart holds. The checkout id makes a second enqueue a no-op."""
    placing = dict(_placing(session))
    placing[str(checkout_id)] = sorted(reviewed)
    session[PLACING_KEY] = dict(list(placing.items())[-PLACINGS_KEPT:])
    session.pop(SESSION_KEY, None)
    if claim_once(key=f"checkout-placed:{checkout_id}", seconds=PLACE_DEDUP_SECONDS):
        transaction.on_commit(
            lambda: place_checkout.enqueue(
                customer_pk=customer.pk, checkout_id=str(checkout_id), lines=reviewed, order_url=done_url
            ),
            robust=True,
        )


def _pay(
    session: SessionBase,
    *,
    customer: Customer,
    basket: Cart,
    checkout_id: uuid.UUID,
    urls: tuple[str, str],
    promotion_id: int | None,
) -> Placed:
    """Authorise, register, then capture: the customer authorises the reviewed lines' total on the payment page;
    the return to the confirmation page and the payment service's webhook settle it, which registers the lines."""
    done_url, cancel_url = urls
    try:
        started = payment_start(
            customer=customer,
            lines=lines_to_pay(basket.lines(), promotion_id=promotion_id),
            checkout_id=checkout_id,
            success_url=done_url + "?session_id={CHECKOUT_SESSION_ID}",
            cancel_url=cancel_url,
        )
    except (CheckoutChanged, SessionClosed) as err:
        session.pop(SESSION_KEY, None)  # a new review gets a new checkout id
        raise NotPlaced(err.message) from err
    except PaymentError as err:
        if err.code == "already_paid":
            raise AlreadyPlaced from err
        raise
    return Placed(checkout_id=checkout_id, payment_url=started.url)


def _placing(session: SessionBase) -> dict[str, Any]:
    placing = session.get(PLACING_KEY)
    return placing if isinstance(placing, dict) else {}


def _reviewed_lines(session: SessionBase, checkout_id: uuid.UUID) -> dict[str, Any] | None:
    stored = session.get(SESSION_KEY)
    if not isinstance(stored, dict) or stored.get("id") != str(checkout_id):
        return None
    lines = stored.get("lines")
    return lines if isinstance(lines, dict) else None


def _reviewed_tax(session: SessionBase) -> dict[str, str] | None:
    stored = session.get(SESSION_KEY)
    tax = stored.get("tax") if isinstance(stored, dict) else None
    return tax if isinstance(tax, dict) else None


# --- After Buy: the confirmation page ------------------------------------------------------------------------------


def checkout_progress(
    *, session: SessionBase, customer: Customer | None, checkout_id: uuid.UUID, order_url: str
) -> Progress:
    """Where a placed checkout stands. Paid ones are settled as far as the payment service allows first (this page
    is the payment's return door, as the webhook is). Lost answers are handed to the worker at most every few
    seconds; lines that settled leave the cart; the checkout's email is queued once it has news.

    Raises Http404 for a checkout that is not this customer's (before any outside call).
    """
    payment = _settle_payment(customer, checkout_id)
    queued = _queued(session, checkout_id)
    lines = checkout_lines_for_customer(customer, checkout_id, queued=queued, payment=payment)
    if any(_needs_reconciling(line) for line in lines) and _reconcile_soon(checkout_id):
        # A worker that answers at once (the immediate backend; a quick one) is shown on this very page.
        lines = checkout_lines_for_customer(customer, checkout_id, queued=queued, payment=payment)
    _apply_outcomes(Cart(session), lines)
    recorded = {line.domain_name for line in lines}
    still_queued = [name for name in queued if name not in recorded]
    if customer is not None and not still_queued:
        checkout_email_queue(checkout_id=checkout_id, order_url=order_url)
    return Progress(lines=lines, queued=still_queued, payment=payment)


def checkout_lines_for_customer(
    customer: Customer | None,
    checkout_id: uuid.UUID,
    *,
    queued: list[str] | None = None,
    payment: Payment | None = None,
) -> list[Registration]:
    """The checkout's recorded lines if they belong to the signed-in customer; Http404 otherwise (before any
    provider call), unless this browser placed it a moment ago and the worker has not recorded a line yet, or it
    was paid for and its lines are not registered yet (the page waits for them)."""
    if customer is None:
        raise Http404
    lines = list(
        Registration.objects.filter(checkout_id=checkout_id, customer=customer)
        .select_related("customer", "order")
        .order_by("domain_name")
    )
    if not lines and not queued and payment is None:
        raise Http404
    if Registration.objects.filter(checkout_id=checkout_id).exclude(customer=customer).exists():
        raise Http404
    return lines


def _settle_payment(customer: Customer | None, checkout_id: uuid.UUID) -> Payment | None:
    """The customer's payment for this checkout, with the worker asked to settle it (this page is the payment's
    return door, as the webhook is: whichever asks first, the worker does the work once). None when the checkout had
    no payment."""
    payment = Payment.objects.filter(checkout_id=checkout_id, customer=customer).first() if customer else None
    if payment is not None and not payment.is_settled:
        payment_settle_later(payment=payment)
        payment.refresh_from_db()  # a worker that answers at once (the immediate backend) is shown on this page
    return payment


def _queued(session: SessionBase, checkout_id: uuid.UUID) -> list[str]:
    """Names this browser bought in this checkout that the worker may not have recorded yet."""
    names = _placing(session).get(str(checkout_id))
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def _needs_reconciling(line: Registration) -> bool:
    if line.status == Registration.Status.UNKNOWN:
        return True
    # A pending line nobody has touched for a while: its worker died mid-call.
    return line.status == Registration.Status.PENDING and line.updated_at < timezone.now() - registrations.STALE_PENDING


def _apply_outcomes(basket: Cart, lines: list[Registration]) -> None:
    """Bought lines leave the cart; failed ones stay, a line refused for its term raised to the TLD's minimum.

    A line whose answer was lost leaves the cart too: it may well be registered, so the customer is not invited
    to buy it again while it is being confirmed (the follow-up email says how it settled).
    """
    for registration in lines:
        done = registration.status in (Registration.Status.REGISTERED, Registration.Status.UNKNOWN) or (
            registration.failure_kind == Registration.FailureKind.ALREADY_YOURS
        )
        if done:
            basket.remove(registration.domain_name)
        elif registration.failure_kind == Registration.FailureKind.MINIMUM_TERM:
            _raise_to_minimum(basket, registration.domain_name)


def _raise_to_minimum(basket: Cart, domain_name: str) -> None:
    line = basket.get(domain_name)
    if line is None:
        return
    # The refusal looked the minimum up afresh (registrations), which register_min_term now knows.
    minimum = max(register_min_term(line.tld), line.min_term)
    # A longer term is a new quote: priced for it, never the shorter term's price.
    priced = line_quote(
        book=price_book(tlds=[line.tld]),
        domain_name=line.domain_name,
        duration=max(line.duration, minimum),
        min_term=minimum,
    )
    if priced is None:
        basket.remove(line.domain_name)
    else:
        basket.put(priced)
