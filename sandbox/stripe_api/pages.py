"""The hosted payment page (Stripe Checkout's stand-in): a card form, Link when the session allows it, a confirm
step for cards that ask for one; in setup mode the same page saves the card without a payment.

After a card is authorised (or saved) the customer goes to the session's success_url (with
`{CHECKOUT_SESSION_ID}` filled in); "Back" leads to its cancel_url.
"""

from __future__ import annotations

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse

from sandbox.stripe_api import currencies, deadlines, payments
from sandbox.stripe_api.models import StripeObject


def success_redirect(session: StripeObject) -> HttpResponseRedirect:
    return HttpResponseRedirect(session.data["success_url"].replace("{CHECKOUT_SESSION_ID}", session.id))


def _session(session_id: str, *, lock: bool = False) -> StripeObject:
    rows = StripeObject.objects.select_for_update() if lock else StripeObject.objects
    found = rows.filter(pk=session_id, object="checkout.session").first()
    if found is None:
        raise Http404("No such checkout session")
    return found


def _context(session: StripeObject, **extra) -> dict:
    data = session.data
    currency = data["currency"] or ""
    expandable = data.get("_expandable", {})
    lines = (expandable.get("line_items") or {}).get("data", [])
    taxes = (expandable.get("total_details.breakdown") or {}).get("taxes", [])
    context = {
        "session": data,
        "setup_mode": data["mode"] == "setup",
        "offers_card": "card" in data["payment_method_types"],
        "offers_link": "link" in data["payment_method_types"],
        "adaptive_pricing": data["adaptive_pricing"]["enabled"],
        "items": [{**line, "shown": currencies.shown(line["amount_subtotal"], currency)} for line in lines],
        "taxes": [
            {
                "name": tax["rate"]["display_name"],
                "percentage": tax["rate"]["percentage"],
                "inclusive": tax["rate"]["inclusive"],
                "shown": currencies.shown(tax["amount"], currency),
            }
            for tax in taxes
        ],
        **extra,
    }
    if data["amount_total"] is not None:
        context["subtotal"] = currencies.shown(data["amount_subtotal"], currency)
        context["total"] = currencies.shown(data["amount_total"], currency)
    return context


def pay(request: HttpRequest, session_id: str) -> HttpResponse:
    deadlines.catch_up()
    if request.method == "POST":
        with transaction.atomic():
            session = _session(session_id, lock=True)
            if session.data["status"] != "open":
                return render(request, "stripe_api/pay.html", _context(session), status=409)
            result = payments.pay(
                session=session,
                card=request.POST.get("card_number", ""),
                link=request.POST.get("method") == "link",
            )
        if result.outcome == "authorised":
            return success_redirect(session)
        if result.outcome == "authenticate":
            return redirect(reverse("stripe_api:authenticate", args=[session_id]))
        return render(request, "stripe_api/pay.html", _context(session, error=result.message), status=402)
    return render(request, "stripe_api/pay.html", _context(_session(session_id)))


def authenticate(request: HttpRequest, session_id: str) -> HttpResponse:
    deadlines.catch_up()
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
