"""Checkout: review the cart with fresh prices, place the order once, and show each line's outcome.

The review (GET) asks MetaSearch again for every line, bypassing the search cache; what changed is shown and
written to the cart, and the reviewed lines are kept in the session with a checkout id. The POST buys exactly
those lines: if the cart changed since the review, the customer reviews again. The checkout id is the
idempotency key: a repeated or concurrent POST of the same checkout reuses the lines it recorded.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from accounts.models import Customer
from billing.errors import CheckoutChanged, PaymentError, SessionClosed
from billing.models import Payment
from billing.services import payment_settle, payment_start
from domains import services
from domains.cart import Cart, CartLine, format_totals, line_from_result, lines_total
from domains.emails import queue_checkout_confirmation
from domains.models import Registration
from domains.payments import lines_to_pay
from domains.terms import register_min_term
from storefront.gateway import GatewayError, MetaSearchResult, gateway
from storefront.provider_errors import ProviderError, provider_error
from storefront.ratelimit import rate_limit

SESSION_KEY = "checkout"


class CheckoutForm(forms.Form):
    checkout_id = forms.UUIDField(error_messages={"required": "expired", "invalid": "expired"})


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
def checkout_done(request: HttpRequest, checkout_id: uuid.UUID) -> HttpResponse:
    customer = _get_customer(request.user)
    payment = _settle_payment(request, customer, checkout_id)
    lines = _get_checkout_for_user(customer, checkout_id, payment=payment)
    # Lost answers are settled from the order listing by the worker every few minutes, and sooner when the
    # customer looks (or staff press the admin's button).
    lines = [
        services.registration_reconcile(registration=line) if line.status in _UNSETTLED else line for line in lines
    ]
    _apply_outcomes(Cart(request.session), lines)
    if customer is not None:
        queue_checkout_confirmation(
            customer=customer, checkout_id=checkout_id, order_url=_order_url(request, checkout_id)
        )
    context = {
        "checkout_id": checkout_id,
        "lines": [{"registration": line, "outcome": services.outcome(line)} for line in lines],
        "registered": [line for line in lines if line.status == Registration.REGISTERED],
        "failed": [line for line in lines if line.status == Registration.FAILED],
        "waiting": any(line.status in _UNSETTLED for line in lines) or (payment is not None and not lines),
    }
    template = "domains/_checkout_outcomes.html" if request.htmx else "domains/checkout_done.html"
    return render(request, template, context)


_UNSETTLED = (Registration.PENDING, Registration.UNKNOWN)


# --- Review -------------------------------------------------------------------------------------------------


def _review(request: HttpRequest) -> HttpResponse:
    basket = Cart(request.session)
    customer = _get_customer(request.user)
    changes: list[Change] = []
    if customer is not None:
        changes += _drop_already_bought(basket, customer)
    error: str | ProviderError = ""
    try:
        changes += _recheck(basket)
    except GatewayError as err:
        error = provider_error(err, what="check the latest prices")
    lines = basket.lines()

    can_buy = bool(lines) and not error and customer is not None and customer.customer_id is not None
    checkout_id = None
    if can_buy:
        assert customer is not None
        checkout_id = _checkout_id(request, customer)
        request.session[SESSION_KEY] = {
            "id": str(checkout_id),
            "lines": {line.domain_name: line.as_session() for line in lines},
        }
    context: dict[str, Any] = {
        "lines": lines,
        "totals": format_totals(lines_total(lines)),
        "changes": changes,
        "error": error,
        "customer": customer,
        "can_buy": can_buy,
        "checkout_id": checkout_id,
        "not_linked": request.user.is_authenticated and (customer is None or customer.customer_id is None),
        "next": reverse("checkout"),
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
        used = (
            Registration.objects.filter(checkout_id=current).exists()
            or Payment.objects.filter(checkout_id=current).exclude(status=Payment.Status.CREATED).exists()
        )
        if current is not None and not used:
            return current
    return uuid.uuid4()


def _recheck(basket: Cart) -> list[Change]:
    """Ask MetaSearch afresh for every line; update or drop lines whose price or availability changed."""
    changes = []
    for line in basket.lines():
        answer = gateway().metasearch(search_term=line.domain_name, autosuggest=False, aisuggest=False)
        row = next((r for r in answer.results if r.domain_name.lower() == line.domain_name), None)
        gone = _not_buyable(row)
        if gone:
            basket.remove(line.domain_name)
            changes.append(Change(line.domain_name, f"{line.domain_name} {gone}, so we removed it from your cart."))
            continue
        assert row is not None
        fresh = line_from_result(row, duration=line.duration, min_term=line.min_term)
        if not fresh.same_price(line):
            changes.append(Change(line.domain_name, _price_change(line, fresh)))
        if fresh != line:
            basket.put(fresh)
    return changes


def _not_buyable(row: MetaSearchResult | None) -> str:
    if row is None:
        return "could not be found any more"
    if row.premium:
        return "is now a premium name, which cannot be bought here"
    if not row.available or row.pricing is None:
        return "is no longer available"
    return ""


def _price_change(old: CartLine, new: CartLine) -> str:
    return (
        f"The price of {new.domain_name} changed: first year {old.first_year_display} → {new.first_year_display}, "
        f"renewal {old.renew_display} → {new.renew_display}/yr. Its total is now {new.total_display}."
    )


def _drop_already_bought(basket: Cart, customer: Customer) -> list[Change]:
    """Lines this customer already registered (or whose lost answer turns out to be a registration)."""
    names = [line.domain_name for line in basket.lines()]
    changes = []
    live = Registration.objects.filter(customer=customer, domain_name__in=names, status__in=Registration.LIVE_STATUSES)
    for registration in live:
        if registration.status in _UNSETTLED:
            registration = services.registration_reconcile(registration=registration)
        if registration.status == Registration.REGISTERED:
            basket.remove(registration.domain_name)
            changes.append(Change(registration.domain_name, f"{registration.domain_name} is already yours."))
    return changes


# --- Placing ------------------------------------------------------------------------------------------------


def _place(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("checkout"))
    customer = _get_customer(request.user)
    if customer is None or customer.customer_id is None:
        messages.error(request, "Your account is not linked to the domain service yet. Please contact support.")
        return redirect("checkout")
    form = CheckoutForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Please review your order and confirm it again.")
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
        if already_placed:
            # A repeat of an order already placed (double click, retry, back button): show what happened.
            return redirect("checkout_done", checkout_id=checkout_id)
        if reviewed is None:
            messages.error(request, "Please review your order and confirm it again.")
        else:
            messages.warning(request, "Your cart changed since you reviewed it. Please check it and confirm again.")
        return redirect("checkout")

    # Nothing to pay (free first years only): nothing to authorise either; Stripe refuses a session for 0.
    if not settings.PAYMENTS_DISABLED and any(lines_total(basket.lines()).values()):
        return _pay(request, customer=customer, basket=basket, checkout_id=checkout_id)
    placed = [
        services.registration_place(customer=customer, line=line, checkout_id=checkout_id) for line in basket.lines()
    ]
    _apply_outcomes(basket, placed)
    request.session.pop(SESSION_KEY, None)
    queue_checkout_confirmation(customer=customer, checkout_id=checkout_id, order_url=_order_url(request, checkout_id))
    return redirect("checkout_done", checkout_id=checkout_id)


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
        done = registration.status in (Registration.REGISTERED, Registration.UNKNOWN) or (
            registration.failure_kind == services.ALREADY_YOURS
        )
        if done:
            basket.remove(registration.domain_name)
        elif registration.failure_kind == services.MINIMUM_TERM:
            line = basket.get(registration.domain_name)
            if line is not None:
                minimum = max(register_min_term(line.tld), line.min_term)
                basket.put(replace(line, min_term=minimum, duration=max(line.duration, minimum)))


def _order_url(request: HttpRequest, checkout_id: uuid.UUID) -> str:
    return request.build_absolute_uri(reverse("checkout_done", kwargs={"checkout_id": checkout_id}))


# --- Lookups ------------------------------------------------------------------------------------------------


def _get_customer(user: Any) -> Customer | None:
    if not user.is_authenticated:
        return None
    return Customer.objects.filter(user=user).first()


def _get_checkout_for_user(
    customer: Customer | None, checkout_id: uuid.UUID, *, payment: Payment | None = None
) -> list[Registration]:
    """The checkout's lines if they belong to the signed-in customer; 404 otherwise (before any provider call).
    A checkout paid for but not registered yet has none so far (the page waits for them)."""
    if customer is None:
        raise Http404
    lines = list(
        Registration.objects.filter(checkout_id=checkout_id, customer=customer)
        .select_related("customer", "order")
        .order_by("domain_name")
    )
    if not lines and payment is None:
        raise Http404
    return lines
