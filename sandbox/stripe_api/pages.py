"""The hosted payment page (Stripe Checkout's stand-in): a card form, a confirm step for cards that ask for one.

After a card is authorised the customer goes to the session's success_url (with `{CHECKOUT_SESSION_ID}` filled
in); "Back" leads to its cancel_url.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse

from sandbox.stripe_api import payments
from sandbox.stripe_api.models import StripeObject

ZERO_DECIMAL = {
    "bif",
    "clp",
    "djf",
    "gnf",
    "jpy",
    "kmf",
    "krw",
    "mga",
    "pyg",
    "rwf",
    "ugx",
    "vnd",
    "vuv",
    "xaf",
    "xof",
    "xpf",
}


def success_redirect(session: StripeObject) -> HttpResponseRedirect:
    return HttpResponseRedirect(session.data["success_url"].replace("{CHECKOUT_SESSION_ID}", session.id))


def _session(session_id: str, *, lock: bool = False) -> StripeObject:
    rows = StripeObject.objects.select_for_update() if lock else StripeObject.objects
    found = rows.filter(pk=session_id, object="checkout.session").first()
    if found is None:
        raise Http404("No such checkout session")
    return found


def _context(session: StripeObject, **extra) -> dict:
    currency = session.data["currency"]
    exponent = 0 if currency in ZERO_DECIMAL else 2
    scale = Decimal(10) ** exponent
    items = [{**item, "shown": Decimal(item["amount_total"]) / scale} for item in session.data.get("_line_items", [])]
    return {
        "session": session.data,
        "items": items,
        "total": Decimal(session.data["amount_total"]) / scale,
        "currency": currency.upper(),
        **extra,
    }


def pay(request: HttpRequest, session_id: str) -> HttpResponse:
    if request.method == "POST":
        with transaction.atomic():
            session = _session(session_id, lock=True)
            if session.data["status"] != "open":
                return render(request, "stripe_api/pay.html", _context(session), status=409)
            result = payments.pay(session=session, card=request.POST.get("card_number", ""))
        if result.outcome == "authorised":
            return success_redirect(session)
        if result.outcome == "authenticate":
            return redirect(reverse("stripe_api:authenticate", args=[session_id]))
        return render(request, "stripe_api/pay.html", _context(session, error=result.message), status=402)
    session = _session(session_id)
    return render(request, "stripe_api/pay.html", _context(session))


def authenticate(request: HttpRequest, session_id: str) -> HttpResponse:
    if request.method == "POST":
        with transaction.atomic():
            session = _session(session_id, lock=True)
            try:
                result = payments.authenticate(session=session, passed=request.POST.get("result") == "complete")
            except payments.Unexpected as err:
                return render(request, "stripe_api/pay.html", _context(session, error=err.message), status=409)
        if result.outcome == "authorised":
            return success_redirect(session)
        return render(request, "stripe_api/pay.html", _context(session, error=result.message), status=402)
    return render(request, "stripe_api/authenticate.html", _context(_session(session_id)))
