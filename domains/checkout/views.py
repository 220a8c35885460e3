"""`/checkout/`: the review (GET) and Buy (POST); `/checkout/<id>/`: each line's outcome (also the payment's return).

The work is domains.checkout.services'; these views read the request, call one service and draw its answer.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_safe

from accounts.models import customer_for_user
from accounts.signup.verification import not_ready_to_buy
from billing.errors import PaymentError
from billing.ledger.taxes import VAT_UNCONFIRMED_NOTE, vat_refund_pending
from domains.cart.basket import lines_total, privacy_offers
from domains.checkout.forms import ACCEPT_ERROR, CheckoutForm
from domains.checkout.outcome_lines import outcome_lines
from domains.checkout.services import AlreadyPlaced, NotPlaced, checkout_place, checkout_progress, checkout_review
from domains.models import Registration
from domains.orders.privacy import PRIVACY_OFF_SENTENCE, privacy_offered
from domains.verification import Verification, verification_for_registered
from storefront.errors import error_status
from storefront.requests.acting_rules import acting_allowed, acting_refused
from storefront.requests.provider_errors import provider_error
from storefront.requests.request_helpers import AuthenticatedHttpRequest, client_address
from storefront.resilience.ratelimit import rate_limit
from storefront.site.legal import legal_versions_current

# Set by a Buy without the terms accepted, read by the review it is sent back to (which shows the error).
ACCEPT_MISSING_KEY = "checkout_accept_missing"


@acting_refused(methods=("POST",))
@require_http_methods(["GET", "HEAD", "POST"])
@rate_limit("checkout")
def checkout(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return _place(request)
    return _review(request)


def _review(request: HttpRequest) -> HttpResponse:
    customer = customer_for_user(request.user)
    review = checkout_review(session=request.session, customer=customer)
    signed_in_unlinked = request.user.is_authenticated and (customer is None or customer.customer_id is None)
    offers = privacy_offers(review.lines)
    context = {
        "lines": review.lines,
        # Each line with its WHOIS privacy at today's price (None: not sold), or why it cannot be had at all.
        "priced_lines": [(line, offers[line.domain_name]) for line in review.lines],
        "privacy_off": "" if privacy_offered() else PRIVACY_OFF_SENTENCE,
        # Charged VAT only because VIES has not confirmed the number yet: said before Buy, with the refund to come.
        "vat_unconfirmed_note": VAT_UNCONFIRMED_NOTE if customer is not None and vat_refund_pending(customer) else "",
        "totals": lines_total(review.lines),
        "changes": review.changes,
        "promotion_code": review.promotion_code,
        "promotion_error": review.promotion_note,
        "error": provider_error(review.error, what=_("check the latest prices")) if review.error else "",
        "customer": customer,
        "can_buy": review.can_buy,
        # The reseller may bill offline (PAYMENTS_DISABLED): the page must not promise a payment page then.
        "payments_online": not settings.PAYMENTS_DISABLED,
        "checkout_id": review.checkout_id,
        "review_digest": review.digest,
        "not_linked": not_ready_to_buy(request.user) if signed_in_unlinked else "",
        "next": reverse("checkout"),
        "legal_versions": legal_versions_current() if review.can_buy else "",
        "accept_error": ACCEPT_ERROR if request.session.pop(ACCEPT_MISSING_KEY, False) and review.can_buy else "",
    }
    status = error_status(review.error) if review.error else 200
    return render(request, "domains/checkout.html", context, status=status)


def _place(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("checkout"))
    customer = customer_for_user(request.user)
    if customer is None or customer.customer_id is None:
        # The provider customer exists only for a confirmed address (accounts/signup/verification.py): must be verified.
        messages.error(request, not_ready_to_buy(request.user))
        return redirect("checkout")
    form = CheckoutForm(request.POST)
    if not form.is_valid():
        if set(form.errors) == {"accept_terms"}:
            request.session[ACCEPT_MISSING_KEY] = True  # the review shows the error beside the box
        else:
            messages.error(request, gettext("Please review your order and confirm it again."))
        return redirect("checkout")
    checkout_id: uuid.UUID = form.cleaned_data["checkout_id"]
    try:
        placed = checkout_place(
            session=request.session,
            customer=customer,
            checkout_id=checkout_id,
            digest=form.cleaned_data["review_digest"],
            legal_versions=form.cleaned_data["legal_versions"],
            ip=client_address(request),
            done_url=_done_url(request, checkout_id),
            cancel_url=request.build_absolute_uri(reverse("checkout")),
        )
    except AlreadyPlaced:
        return redirect("checkout_done", checkout_id=checkout_id)
    except NotPlaced as err:
        level = messages.WARNING if err.tone == "warn" else messages.ERROR
        for sentence in err.sentences:
            messages.add_message(request, level, sentence)
        return redirect("checkout")
    except PaymentError as err:
        messages.error(request, err.message)
        return redirect("checkout")
    if placed.payment_url:
        return HttpResponseRedirect(placed.payment_url, status=303)
    return redirect("checkout_done", checkout_id=checkout_id)


def _verification(request: AuthenticatedHttpRequest, registered: list[Registration]) -> Verification | None:
    customer = customer_for_user(request.user)
    if customer is None:
        return None
    return verification_for_registered(customer=customer, domains=[line.domain_name for line in registered])


@acting_allowed
@login_required
@require_safe
def checkout_done(request: AuthenticatedHttpRequest, checkout_id: uuid.UUID) -> HttpResponse:
    """Each line's outcome; the page polls while something is awaited (the worker, the payment)."""
    progress = checkout_progress(
        session=request.session,
        customer=customer_for_user(request.user),
        checkout_id=checkout_id,
        order_url=_done_url(request, checkout_id),
    )
    context = {
        "checkout_id": checkout_id,
        "lines": outcome_lines(progress.lines, payment=progress.payment),
        "queued": progress.queued,
        "registered": progress.registered,
        "failed": progress.failed,
        "waiting": progress.waiting,
        "payment": progress.payment,
        "receipt": progress.receipt,
        "verification": _verification(request, progress.registered),
    }
    template = "domains/_checkout_outcomes.html" if request.htmx else "domains/checkout_done.html"
    return render(request, template, context)


def _done_url(request: HttpRequest, checkout_id: uuid.UUID) -> str:
    return request.build_absolute_uri(reverse("checkout_done", kwargs={"checkout_id": checkout_id}))
