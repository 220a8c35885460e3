"""Checkout: review the cart with fresh availability, place the order once, and show each line's outcome.

The review (GET) asks MetaSearch again for every line's availability, bypassing the search cache, and re-quotes
its retail price (`pricing.quotes.requote`): the price the customer was quoted stands unless selling at it would
now lose money (then today's price is shown as a change); a lower price today is passed on. What changed is shown
and written to the cart, and the reviewed lines are kept in the session with a checkout id. The POST buys exactly
those lines at the reviewed prices, after re-quoting each once more: a line whose cost rose past its price since
the review is re-quoted and shown as changed, and nothing is bought. If the cart changed since the review, the
customer reviews again. The checkout id is the
idempotency key: a repeated or concurrent POST of the same checkout reuses the lines it recorded.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_safe

from accounts.models import Customer, customer_for_user
from accounts.verification import not_ready_to_buy
from billing.errors import CheckoutChanged, PaymentError, SessionClosed
from billing.models import Payment
from billing.services import payment_settle, payment_start
from domains.cart.basket import Cart, CartLine, line_quote, lines_total
from domains.checkout import registrations
from domains.checkout.acceptance import legal_acceptance_record
from domains.checkout.emails import queue_checkout_confirmation
from domains.checkout.forms import ACCEPT_ERROR, CheckoutForm
from domains.checkout.payments import lines_to_pay
from domains.checkout.tasks import place_checkout, reconcile_checkout
from domains.models import Registration
from domains.presentation import registration_outcome
from domains.search.services import why_not_buyable
from domains.terms import register_min_term
from pricing.models import Operation
from pricing.money import Money, format_money
from pricing.quotes import price_book, requote
from storefront.gateway import GatewayError, MetaSearchResult, gateway
from storefront.legal import legal_versions_current
from storefront.provider_errors import ProviderError, provider_error
from storefront.ratelimit import rate_limit
from storefront.request_helpers import AuthenticatedHttpRequest, client_address

SESSION_KEY = "checkout"
# Checkouts this browser placed, with their names, until the worker has recorded their lines.
PLACING_KEY = "checkouts_placing"
PLACINGS_KEPT = 5
PLACE_DEDUP_SECONDS = 10 * 60
# The confirmation page asks the worker to settle lost answers at most this often.
RECONCILE_EVERY_SECONDS = 15
# Set by a Buy without the terms accepted, read by the review it is sent back to (which shows the error).
ACCEPT_MISSING_KEY = "checkout_accept_missing"


def review_digest(*, checkout_id: uuid.UUID, lines: dict[str, Any]) -> str:
    """A fingerprint of the reviewed lines (names, terms, prices) and so of their totals, for this checkout.

    Two tabs share the session's review: the digest tells which review the pressed button was on, so a tab
    showing older prices never buys at the newer ones another tab reviewed.
    """
    canonical = json.dumps({"id": str(checkout_id), "lines": lines}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Change:
    domain_name: str
    text: str


@require_http_methods(["GET", "HEAD", "POST"])
@rate_limit("checkout")
def checkout(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return _place(request)
    return _review(request)


@login_required
@require_safe
def checkout_done(request: AuthenticatedHttpRequest, checkout_id: uuid.UUID) -> HttpResponse:
    """Each line's outcome. Unpaid checkouts: the worker registers the lines (place_checkout) and settles lost
    answers (reconcile_checkout, asked for here at most every few seconds); the page polls. Paid ones: this is
    also the payment's return door, which settles the payment as the webhook does (whichever comes first)."""
    customer = customer_for_user(request.user)
    payment = _settle_payment(request, customer, checkout_id)
    lines = _get_checkout_for_user(customer, checkout_id, queued=_queued(request, checkout_id), payment=payment)
    if any(_needs_reconciling(line) for line in lines) and cache.add(
        f"checkout-reconcile:{checkout_id}", 1, RECONCILE_EVERY_SECONDS
    ):
        transaction.on_commit(lambda: reconcile_checkout.enqueue(checkout_id=str(checkout_id)), robust=True)
        # A worker that answers at once (the immediate backend; a quick one) is shown on this very page.
        lines = _get_checkout_for_user(customer, checkout_id, queued=_queued(request, checkout_id), payment=payment)
    _apply_outcomes(Cart(request.session), lines)
    recorded = {line.domain_name for line in lines}
    queued = [name for name in _queued(request, checkout_id) if name not in recorded]
    if customer is not None and not queued:
        queue_checkout_confirmation(
            customer=customer, checkout_id=checkout_id, order_url=_order_url(request, checkout_id)
        )
    context = {
        "checkout_id": checkout_id,
        "lines": [{"registration": line, "outcome": registration_outcome(line)} for line in lines],
        "queued": queued,
        "registered": [line for line in lines if line.status == Registration.Status.REGISTERED],
        "failed": [line for line in lines if line.status == Registration.Status.FAILED],
        "waiting": bool(queued)
        or any(line.status in Registration.UNSETTLED_STATUSES for line in lines)
        or (payment is not None and not lines),
        "payment": payment,
        "receipt": getattr(payment, "receipt", None),  # issued with the capture
    }
    template = "domains/_checkout_outcomes.html" if request.htmx else "domains/checkout_done.html"
    return render(request, template, context)


def _needs_reconciling(line: Registration) -> bool:
    if line.status == Registration.Status.UNKNOWN:
        return True
    # A pending line nobody has touched for a while: its worker died mid-call.
    return line.status == Registration.Status.PENDING and line.updated_at < timezone.now() - registrations.STALE_PENDING


def _queued(request: HttpRequest, checkout_id: uuid.UUID) -> list[str]:
    """Names this browser bought in this checkout that the worker may not have recorded yet."""
    placing = request.session.get(PLACING_KEY)
    names = placing.get(str(checkout_id)) if isinstance(placing, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


# --- Review -------------------------------------------------------------------------------------------------


def _review(request: HttpRequest) -> HttpResponse:
    basket = Cart(request.session)
    customer = customer_for_user(request.user)
    changes: list[Change] = []
    if customer is not None:
        changes += _drop_already_bought(basket, customer)
    error: str | ProviderError = ""
    try:
        changes += _recheck(basket)
    except GatewayError as err:
        error = provider_error(err, what=_("check the latest prices"))
    lines = basket.lines()

    can_buy = bool(lines) and not error and customer is not None and customer.customer_id is not None
    checkout_id = None
    digest = ""
    if can_buy:
        assert customer is not None
        checkout_id = _checkout_id(request, customer)
        reviewed = {line.domain_name: line.as_session() for line in lines}
        request.session[SESSION_KEY] = {"id": str(checkout_id), "lines": reviewed}
        digest = review_digest(checkout_id=checkout_id, lines=reviewed)
    context: dict[str, Any] = {
        "lines": lines,
        "totals": lines_total(lines),
        "changes": changes,
        "error": error,
        "customer": customer,
        "can_buy": can_buy,
        # The reseller may bill offline (PAYMENTS_DISABLED): the page must not promise a payment page then.
        "payments_online": not settings.PAYMENTS_DISABLED,
        "checkout_id": checkout_id,
        "review_digest": digest,
        "not_linked": not_ready_to_buy(request.user)
        if request.user.is_authenticated and (customer is None or customer.customer_id is None)
        else "",
        "next": reverse("checkout"),
        "legal_versions": legal_versions_current() if can_buy else "",
        "accept_error": ACCEPT_ERROR if request.session.pop(ACCEPT_MISSING_KEY, False) and can_buy else "",
    }
    return render(request, "domains/checkout.html", context, status=503 if error else 200)


def _checkout_id(request: HttpRequest, customer: Customer) -> uuid.UUID:
    """The session's checkout id (two tabs share it) unless it was already used to place an order."""
    stored = request.session.get(SESSION_KEY)
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


def _recheck(basket: Cart) -> list[Change]:
    """Ask MetaSearch afresh whether every line can still be bought, and re-quote its price; update or drop the
    lines that changed."""
    changes = []
    for line in basket.lines():
        answer = gateway().metasearch(search_term=line.domain_name, autosuggest=False, aisuggest=False)
        row = next((r for r in answer.results if r.domain_name.lower() == line.domain_name), None)
        gone = _not_buyable(row)
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
    # Today's renewal price and text go with the honoured price: they are information, not a quote.
    fresh = _repriced(today, price)
    if fresh != line:
        basket.put(fresh)
    if price == quoted:
        return []
    return [Change(name, _price_change(name, old=quoted, new=price, years=line.duration))]


def _repriced(line: CartLine, price: Money) -> CartLine:
    return replace(line, price=price.amount, currency=price.currency)


def _not_sold_any_more(name: str) -> str:
    return gettext("%(domain)s is not sold here any more, so we removed it from your cart.") % {"domain": name}


def _not_buyable(row: MetaSearchResult | None) -> str:
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
    """Lines this customer already registered (or whose lost answer turns out to be a registration)."""
    names = [line.domain_name for line in basket.lines()]
    changes = []
    live = Registration.objects.filter(customer=customer, domain_name__in=names, status__in=Registration.LIVE_STATUSES)
    for registration in live:
        if registration.status in Registration.UNSETTLED_STATUSES:
            registration = registrations.registration_reconcile(registration=registration)
        if registration.status == Registration.Status.REGISTERED:
            basket.remove(registration.domain_name)
            changes.append(
                Change(
                    registration.domain_name,
                    gettext("%(domain)s is already yours.") % {"domain": registration.domain_name},
                )
            )
    return changes


# --- Placing ------------------------------------------------------------------------------------------------


def _place(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("checkout"))
    customer = customer_for_user(request.user)
    if customer is None or customer.customer_id is None:
        # The provider customer exists only for a confirmed address (accounts/registrations.py): must be verified.
        messages.error(request, not_ready_to_buy(request.user))
        return redirect("checkout")
    form = CheckoutForm(request.POST)
    if not form.is_valid():
        if set(form.errors) == {"accept_terms"}:
            # Nothing is bought: the review shows the error beside the box (the cart and review stand).
            request.session[ACCEPT_MISSING_KEY] = True
        else:
            messages.error(request, gettext("Please review your order and confirm it again."))
        return redirect("checkout")
    checkout_id: uuid.UUID = form.cleaned_data["checkout_id"]
    recorded = Registration.objects.filter(checkout_id=checkout_id)
    if recorded.exclude(customer=customer).exists():
        raise Http404
    already_placed = recorded.exists()

    basket = Cart(request.session)
    reviewed = _reviewed_lines(request, checkout_id)
    current = {line.domain_name: line.as_session() for line in basket.lines()}
    if reviewed is None or reviewed != current:
        if already_placed or str(checkout_id) in _placing(request):
            # A repeat of an order already placed (double click, retry, back button): show what happened.
            return redirect("checkout_done", checkout_id=checkout_id)
        if reviewed is None:
            messages.error(request, gettext("Please review your order and confirm it again."))
        else:
            messages.warning(
                request, gettext("Your cart changed since you reviewed it. Please check it and confirm again.")
            )
        return redirect("checkout")
    if form.cleaned_data["review_digest"] != review_digest(checkout_id=checkout_id, lines=reviewed):
        # This tab showed another review (older prices, other lines) than the session's latest: nothing is
        # bought, and the customer sees the current review before confirming again.
        messages.warning(
            request,
            gettext(
                "Your order changed since this page was shown (another tab reviewed it again). "
                "Nothing was bought: please check the order below and confirm again."
            ),
        )
        return redirect("checkout")

    # The reviewed price is what is charged, unless the cost rose past it since: then nothing is bought and the
    # customer reviews the new price.
    changes = _requote_lines(basket)
    if changes:
        for change in changes:
            messages.warning(request, change.text)
        return redirect("checkout")

    shown_versions = form.cleaned_data["legal_versions"]
    if shown_versions and shown_versions != legal_versions_current():
        messages.warning(
            request,
            gettext(
                "Our terms of service or domain registration agreement changed since this page was shown. Nothing "
                "was bought: please read them and confirm again."
            ),
        )
        return redirect("checkout")
    # What the customer accepted is recorded before anything is charged or registered.
    accepted = legal_acceptance_record(customer=customer, checkout_id=checkout_id, ip=client_address(request))
    if accepted is None:
        messages.error(
            request,
            gettext(
                "Our terms of service or registration agreement cannot be shown right now, so nothing can be "
                "bought. Please try again later."
            ),
        )
        return redirect("checkout")

    # Something to pay: the customer authorises it on the payment page first; the lines are registered when the
    # payment is settled (return or webhook). Nothing to pay (free first years only): Stripe refuses a session for 0.
    if not settings.PAYMENTS_DISABLED and any(not total.is_zero for total in lines_total(basket.lines())):
        return _pay(request, customer=customer, basket=basket, checkout_id=checkout_id)

    # The provider is called by the worker (place_checkout), never here: a request's provider calls stay bounded
    # however many lines the cart holds. The checkout id makes a second enqueue (double click) a no-op.
    placing = request.session.get(PLACING_KEY)
    placing = dict(placing) if isinstance(placing, dict) else {}
    placing[str(checkout_id)] = sorted(reviewed)
    request.session[PLACING_KEY] = dict(list(placing.items())[-PLACINGS_KEPT:])
    request.session.pop(SESSION_KEY, None)
    if cache.add(f"checkout-placed:{checkout_id}", 1, PLACE_DEDUP_SECONDS):
        transaction.on_commit(
            lambda: place_checkout.enqueue(
                customer_pk=customer.pk,
                checkout_id=str(checkout_id),
                lines=reviewed,
                order_url=_order_url(request, checkout_id),
            ),
            robust=True,
        )
    return redirect("checkout_done", checkout_id=checkout_id)


def _placing(request: HttpRequest) -> dict[str, Any]:
    placing = request.session.get(PLACING_KEY)
    return placing if isinstance(placing, dict) else {}


def _pay(request: HttpRequest, *, customer: Customer, basket: Cart, checkout_id: uuid.UUID) -> HttpResponse:
    """Authorise, register, then capture: the customer authorises the reviewed lines' total on Stripe's page;
    the return here (checkout_done) and Stripe's webhook settle it, which registers the lines."""
    try:
        started = payment_start(
            customer=customer,
            lines=lines_to_pay(basket.lines()),
            checkout_id=checkout_id,
            success_url=_order_url(request, checkout_id) + "?session_id={CHECKOUT_SESSION_ID}",
            cancel_url=request.build_absolute_uri(reverse("checkout")),
        )
    except (CheckoutChanged, SessionClosed) as err:
        request.session.pop(SESSION_KEY, None)  # a new review gets a new checkout id
        messages.warning(request, err.message)
        return redirect("checkout")
    except PaymentError as err:
        if err.code == "already_paid":
            return redirect("checkout_done", checkout_id=checkout_id)
        messages.error(request, err.message)
        return redirect("checkout")
    return HttpResponseRedirect(started.url, status=303)


def _settle_payment(request: HttpRequest, customer: Customer | None, checkout_id: uuid.UUID) -> Payment | None:
    """The return door: the customer's payment for this checkout, settled as far as Stripe's state allows (the
    webhook does the same; whichever comes first does the work). None when the checkout had no payment."""
    payment = Payment.objects.filter(checkout_id=checkout_id, customer=customer).first() if customer else None
    if payment is None or payment.is_final or not payment.stripe_session_id:
        return payment
    try:
        return payment_settle(session_id=payment.stripe_session_id)
    except PaymentError:
        # The webhook (or the page's next poll) finishes it; the page says it is being confirmed.
        return payment


def _reviewed_lines(request: HttpRequest, checkout_id: uuid.UUID) -> dict[str, Any] | None:
    stored = request.session.get(SESSION_KEY)
    if not isinstance(stored, dict) or stored.get("id") != str(checkout_id):
        return None
    lines = stored.get("lines")
    return lines if isinstance(lines, dict) else None


def _apply_outcomes(basket: Cart, registrations: list[Registration]) -> None:
    """Bought lines leave the cart; failed ones stay, a line refused for its term raised to the TLD's minimum.

    A line whose answer was lost leaves the cart too: it may well be registered, so the customer is not invited
    to buy it again while it is being confirmed (the follow-up email says how it settled).
    """
    for registration in registrations:
        done = registration.status in (Registration.Status.REGISTERED, Registration.Status.UNKNOWN) or (
            registration.failure_kind == Registration.FailureKind.ALREADY_YOURS
        )
        if done:
            basket.remove(registration.domain_name)
        elif registration.failure_kind == Registration.FailureKind.MINIMUM_TERM:
            line = basket.get(registration.domain_name)
            if line is not None:
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


def _order_url(request: HttpRequest, checkout_id: uuid.UUID) -> str:
    return request.build_absolute_uri(reverse("checkout_done", kwargs={"checkout_id": checkout_id}))


# --- Lookups ------------------------------------------------------------------------------------------------


def _get_checkout_for_user(
    customer: Customer | None,
    checkout_id: uuid.UUID,
    *,
    queued: list[str] | None = None,
    payment: Payment | None = None,
) -> list[Registration]:
    """The checkout's recorded lines if they belong to the signed-in customer; 404 otherwise (before any
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
