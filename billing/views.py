"""The webhook endpoint, the customer's Billing page, and the receipts and credit notes (printable pages and PDFs)."""

from __future__ import annotations

import logging
import uuid

import stripe
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import Customer, customer_for_user
from billing.documents.contents import (
    billing_documents,
    credit_note_context,
    document_for_user,
    einvoices_offered,
    receipt_context,
)
from billing.errors import PaymentError, PaymentUnavailable
from billing.forms import CardSetupForm
from billing.models import Document, Payment
from billing.payments import cards
from billing.payments.card_setup import card_setup_settle, card_setup_start
from billing.payments.collection import collection_session_open, payment_due_of_user, payments_due
from billing.payments.services import payment_settle_later
from billing.payments.webhooks import webhook_event_parse, webhook_event_receive
from storefront.errors import StoreError
from storefront.requests.acting_rules import acting_allowed, acting_refused
from storefront.requests.request_helpers import AuthenticatedHttpRequest

logger = logging.getLogger(__name__)


@acting_allowed
@csrf_exempt
@require_POST
def stripe_webhook(request: HttpRequest) -> HttpResponse:
    """Verify `Stripe-Signature` with STRIPE_WEBHOOK_SECRET (a bad one is a 400 and changes nothing), store the event
    and answer at once: the worker processes it (billing/payments/webhooks.py)."""
    if not settings.STRIPE_WEBHOOK_SECRET:
        logger.error("a Stripe webhook arrived but STRIPE_WEBHOOK_SECRET is not set")
        return HttpResponse("webhook secret not configured", status=503, content_type="text/plain")
    try:
        payload = request.body.decode("utf-8")
        stripe.WebhookSignature.verify_header(
            payload, request.headers.get("Stripe-Signature", ""), settings.STRIPE_WEBHOOK_SECRET
        )
    except (ValueError, stripe.SignatureVerificationError) as err:
        logger.warning("stripe webhook refused: %s", type(err).__name__)
        return HttpResponse("invalid payload or signature", status=400, content_type="text/plain")
    try:
        event = webhook_event_parse(payload)
    except ValueError as err:  # NotAnEvent, or not JSON at all
        logger.warning("stripe webhook refused, signed but not a Stripe event: %s", err)
        return HttpResponse("not a Stripe event", status=400, content_type="text/plain")
    webhook_event_receive(event=event)
    return HttpResponse("ok", content_type="text/plain")


@acting_allowed
@login_required
@require_GET
def billing(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The customer's receipts and credit notes, newest first, a page at a time (`?page=`)."""
    customer = customer_for_user(request.user)  # staff may have no customer record
    page = request.GET.get("page", "")
    number = min(int(page), _LAST_PAGE) if page.isdigit() and int(page) > 0 else 1
    documents = billing_documents(customer=customer, page=number) if customer else None
    due = payments_due(customer=customer) if customer else []
    context = {"customer": customer, "documents": documents, "rows": documents.rows if documents else [], "due": due}
    return render(request, "billing/billing.html", context)


# A page number past any customer's documents reads nothing: the page says so and links to the first.
_LAST_PAGE = 10_000


@acting_allowed
@login_required
@require_GET
def receipt(request: AuthenticatedHttpRequest, number: int) -> HttpResponse:
    found = document_for_user(user=request.user, kind=Document.Kind.RECEIPT, number=number)
    if found is None:
        raise Http404("No such receipt")
    return render(request, "billing/receipt.html", receipt_context(found))


@acting_allowed
@login_required
@require_GET
def credit_note(request: AuthenticatedHttpRequest, number: int) -> HttpResponse:
    found = document_for_user(user=request.user, kind=Document.Kind.CREDIT_NOTE, number=number)
    if found is None:
        raise Http404("No such credit note")
    return render(request, "billing/credit_note.html", credit_note_context(found))


@acting_allowed
@login_required
@require_GET
def document_pdf_download(request: AuthenticatedHttpRequest, kind: str, number: int) -> HttpResponse:
    """The receipt or credit note as a PDF file, to its owner only (anyone else: 404, before anything is rendered)."""
    found = document_for_user(user=request.user, kind=kind, number=number)
    if found is None:
        raise Http404("No such document")
    # WeasyPrint only when a PDF is asked for: it and what it loads (fontTools, Pillow, Pango's bindings) are about
    # 20 MB in every web worker that imports it, and most workers never make a PDF (docs/benchmarks.md, Memory).
    from billing.documents.pdf import PDF_CONTENT_TYPE, document_pdf, document_pdf_filename

    response = HttpResponse(document_pdf(found), content_type=PDF_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{document_pdf_filename(found)}"'
    # A customer's bill: kept by no shared cache.
    response["Cache-Control"] = "private, no-store"
    return response


@acting_refused
@login_required
@require_GET
def document_einvoice_download(request: AuthenticatedHttpRequest, kind: str, number: int, form: str) -> HttpResponse:
    """The receipt or credit note as an e-invoice (`form`: the Factur-X PDF or the XRechnung XML), to its owner only
    and when the document comes as one (anything else: 404, before anything is made)."""
    found = document_for_user(user=request.user, kind=kind, number=number)
    if found is None or not einvoices_offered(found):
        raise Http404("No such e-invoice")
    # Factur-X, lxml and WeasyPrint only when an e-invoice is asked for (see document_pdf_download).
    from billing.documents.einvoices import (
        XML_CONTENT_TYPE,
        facturx_filename,
        facturx_pdf,
        xrechnung_filename,
        xrechnung_xml,
    )
    from billing.documents.pdf import PDF_CONTENT_TYPE

    if form == "facturx":
        content, content_type, filename = facturx_pdf(found), PDF_CONTENT_TYPE, facturx_filename(found)
    else:
        content, content_type, filename = xrechnung_xml(found), XML_CONTENT_TYPE, xrechnung_filename(found)
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@acting_refused
@login_required
@require_GET
def pay_due(request: AuthenticatedHttpRequest, checkout_id: uuid.UUID) -> HttpResponse:
    """The payment link of a registered-unpaid payment (emailed, and on the domain's page): opens a Checkout Session
    for what is owed and sends the customer there; back from it, the worker is asked to confirm the payment."""
    payment = payment_due_of_user(user=request.user, checkout_id=checkout_id)
    if payment is None:
        raise Http404("No such payment")
    billing_page = reverse("billing:billing")
    if "session_id" in request.GET:
        payment_settle_later(payment=payment)
        payment.refresh_from_db()
        if payment.status == Payment.Status.UNPAID:
            messages.info(request, gettext("Thank you. Your payment is being confirmed; the receipt follows by email."))
        else:
            messages.success(request, gettext("Thank you: your payment is complete. Your receipt is below."))
        return redirect(billing_page)
    here = request.build_absolute_uri(reverse("billing:pay_due", args=[checkout_id]))
    try:
        url = collection_session_open(
            payment=payment,
            success_url=here + "?session_id={CHECKOUT_SESSION_ID}",
            cancel_url=request.build_absolute_uri(billing_page),
        )
    except PaymentError as err:
        if err.code == "not_due":
            messages.info(request, gettext("Nothing is due on this payment any more."))
        else:
            messages.error(request, err.message)
        return redirect(billing_page)
    return HttpResponseRedirect(url, status=303)


@acting_refused
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def card_remove(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET (or a POST from an older page): what removing the saved card means, with the button that does it; POST
    with `confirm`: detach it at Stripe and forget it (auto-renew then falls back to reminders)."""
    customer = _customer_or_404(request)
    card = cards.saved_card_for(customer)
    if card is None:
        return redirect(_payment_method_section())
    if request.method != "POST" or request.POST.get("confirm") != "yes":
        return render(request, "billing/card_remove.html", {"card": card, "back": _payment_method_section()})
    try:
        removed = cards.card_remove(customer=customer)
    except PaymentError as err:
        messages.error(request, gettext("Your card could not be removed right now.") + " " + str(err.message))
    else:
        if removed:
            messages.success(
                request,
                gettext("Your saved card was removed. Domains on auto-renew get renewal reminders again instead."),
            )
    return redirect(_payment_method_section())


def _payment_method_section() -> str:
    return reverse("account") + "#payment-method"


def _customer_or_404(request: AuthenticatedHttpRequest) -> Customer:
    customer = customer_for_user(request.user)  # staff may have no customer record
    if customer is None:
        raise Http404("No customer")
    return customer


@acting_refused
@login_required
@require_POST
def card_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Save a card without buying: off to the payment provider's page in setup mode (billing/payments/card_setup.py)."""
    customer = _customer_or_404(request)
    form = CardSetupForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("This form has expired. Please try again."))
        return redirect(_payment_method_section())
    back = request.build_absolute_uri(reverse("billing:card_added"))
    try:
        url, session_id = card_setup_start(
            customer=customer,
            token=form.cleaned_data["setup_token"],
            success_url=back + "?session_id={CHECKOUT_SESSION_ID}",
            cancel_url=request.build_absolute_uri(_payment_method_section()),
        )
    except StoreError as err:
        messages.error(request, gettext("No card was added.") + " " + str(err.message))
        return redirect(_payment_method_section())
    # The return page asks Stripe only about a session this browser started (the last few).
    request.session[CARD_SETUP_SESSIONS] = [*request.session.get(CARD_SETUP_SESSIONS, [])[-4:], session_id]
    return HttpResponseRedirect(url, status=303)


CARD_SETUP_SESSIONS = "billing:card-setup-sessions"


@acting_allowed
@login_required
@require_GET
def card_added(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Back from saving a card: kept now (or by the webhook's event in a moment), said once on the account page."""
    customer = customer_for_user(request.user)
    session_id = request.GET.get("session_id", "")[:255]
    if customer is None or session_id not in request.session.get(CARD_SETUP_SESSIONS, []):
        # Not a session this browser started: nothing to ask Stripe (the webhook's event keeps a card saved anyway).
        return redirect(_payment_method_section())
    try:
        card = card_setup_settle(session_id=session_id, customer=customer)
    except PaymentUnavailable:
        card = None
    if card is None:
        messages.info(request, gettext("We are confirming your card with our payment provider: reload in a moment."))
    else:
        saved = gettext(
            "Your %(brand)s •••• %(last4)s is saved: renewals you confirm and auto-renew are charged to it."
        )
        messages.success(request, saved % {"brand": card.brand.title(), "last4": card.last4})
    return redirect(_payment_method_section())
