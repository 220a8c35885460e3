"""The order dashboard (issue 7): the list of the customer's domains, one domain, renewal, transfer code."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from decimal import Decimal
from functools import wraps
from typing import Any

from allauth.account.decorators import reauthentication_required
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils import formats
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from accounts.models import customer_for_user
from accounts.notices import security_notice
from billing.cards import saved_card_for
from billing.errors import CheckoutChanged, PaymentError, PaymentUnavailable, SessionClosed
from billing.models import Payment
from billing.services import payment_settle, payment_start
from domains.models import Order, Renewal
from domains.orders import auto_renew, renewals
from domains.orders import services as domain_orders
from domains.orders.forms import AutoRenewForm, OrdersFilterForm, RenewForm, TransferCodeForm
from domains.orders.ownership import get_order_for_user
from domains.orders.payments import renewal_line_to_pay
from pricing.money import Money, format_money
from storefront import provider_errors
from storefront.gateway import GatewayError, OutcomeUnknown, Unavailable
from storefront.provider_errors import ProviderError
from storefront.ratelimit import rate_limit
from storefront.request_helpers import AuthenticatedHttpRequest, HtmxHttpRequest, is_fragment

PANEL_BUTTON_TEMPLATE = "accounts/_panel_button.html"
# Renew tokens kept per order in the session: enough for a few open tabs of the same domain.
RENEW_TOKENS_KEPT = 5
RENEWALS_SHOWN = 10


# --- Helpers ------------------------------------------------------------------------------------------------------


def _get_order_for_user(request: HttpRequest, order_id: int) -> Order:
    # Answered from our copy of the listing: 404 before any provider call.
    return get_order_for_user(request.user, order_id)


def _explain(err: GatewayError, what: str | Promise) -> ProviderError:
    return provider_errors.provider_error(err, what=what)


def _issue_renew_token(request: HttpRequest, order: Order) -> str:
    token = str(uuid.uuid4())
    issued: dict[str, list[str]] = request.session.get("renew_tokens", {})
    key = str(order.order_id)
    issued[key] = [*issued.get(key, []), token][-RENEW_TOKENS_KEPT:]
    request.session["renew_tokens"] = issued
    return token


def _renew_token_was_issued(request: HttpRequest, order: Order, token: str) -> bool:
    return token in request.session.get("renew_tokens", {}).get(str(order.order_id), [])


def _panel_template() -> str | None:
    try:
        get_template(PANEL_BUTTON_TEMPLATE)
    except TemplateDoesNotExist:
        return None
    return PANEL_BUTTON_TEMPLATE


def _render_detail(
    request: HttpRequest,
    order: Order,
    *,
    renew_form: RenewForm | None = None,
    renew_error: str | Promise | ProviderError = "",
    transfer_form: TransferCodeForm | None = None,
    transfer_code: str = "",
    transfer_error: str | ProviderError = "",
    status: int = 200,
) -> HttpResponse:
    """The domain page, from the provider's current view of the order (our copy if it cannot be asked)."""
    provider_error: str | ProviderError = ""
    listed = True
    try:
        current = domain_orders.order_fetch(order=order)
    except GatewayError as err:
        current = None
        provider_error = _explain(err, _("load the latest details of this domain"))
        if isinstance(err, Unavailable) and status == 200:
            status = 503
    if current is None and not provider_error:
        listed = False
    row = domain_orders.order_row(current) if current is not None else domain_orders.order_row(order)
    renewable = listed and row.can_renew
    pricing = domain_orders.renew_pricing(domain_name=order.domain_name) if renewable else None
    expiry_timestamp = current.expiry_timestamp if current is not None else order.expiry_timestamp
    terms = renewals.renew_terms(domain_name=order.domain_name, expires_at=row.expires_at)
    selected = terms[0] if terms else 1
    if renew_form is not None and renew_form.is_bound:
        chosen = renew_form.cleaned_data.get("duration") if renew_form.is_valid() else None
        selected = chosen if chosen in terms else selected
    context = {
        "order": order,
        "row": row,
        "listed": listed,
        "provider_error": provider_error,
        "pricing": pricing,
        "renew_options": [
            (years, total)
            for years, total in domain_orders.renew_options(domain_name=order.domain_name)
            if years in terms
        ]
        if renewable
        else [],
        "renew_selected": selected,
        "renew_expiry_timestamp": expiry_timestamp,
        "renewals": order.renewals.all()[:RENEWALS_SHOWN],
        "renew_form": renew_form or RenewForm(),
        "renew_token": _issue_renew_token(request, order),
        "renew_error": renew_error,
        "auto_renew": _auto_renew_context(order, renewable=renewable),
        "transfer_form": transfer_form or TransferCodeForm(),
        "transfer_code": transfer_code,
        "transfer_error": transfer_error,
        "panel_template": _panel_template(),
    }
    response = render(request, "domains/order_detail.html", context, status=status)
    if transfer_code:
        response["Cache-Control"] = "no-store"
    return response


def _auto_renew_context(order: Order, *, renewable: bool) -> dict[str, Any]:
    return {
        "offered": renewable and not settings.PAYMENTS_DISABLED,
        "on": order.auto_renew,
        "card": saved_card_for(order.customer),
        "days": settings.AUTO_RENEW_DAYS_BEFORE,
        "failed_at": order.auto_renew_failed_at,
        "failure": auto_renew.failure_reason(order) if order.auto_renew_failed_at else "",
    }


def _login_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """login_required that, for an htmx request, sends the whole page to sign in (not into a fragment)."""
    guarded = login_required(view)

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.htmx and not request.user.is_authenticated:
            back = request.htmx.current_url_abs_path or request.get_full_path()
            return HttpResponseClientRedirect(redirect_to_login(back).url)
        return guarded(request, *args, **kwargs)

    return wrapper


# --- Views --------------------------------------------------------------------------------------------------------


@_login_required
@require_GET
@vary_on_headers("HX-Request")
def orders(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = OrdersFilterForm(request.GET)
    form.is_valid()
    # A search longer than any domain name is cut, not dropped: the box keeps what was typed.
    q = form.cleaned_data.get("q") or request.GET.get("q", "").strip()[:80]
    page = form.cleaned_data.get("page") or 1
    customer = customer_for_user(request.user)
    context: dict[str, Any] = {"q": q, "listing": None, "error": "", "account_pending": False}
    status = 200
    if customer is None or customer.customer_id is None:
        context["account_pending"] = True
    else:
        try:
            context["listing"] = domain_orders.orders_list(customer=customer, page=page, q=q)
        except GatewayError as err:
            context["error"] = _explain(err, _("load your domains"))
            if isinstance(err, Unavailable) and not is_fragment(request):
                status = 503
    template = "domains/_orders_table.html" if is_fragment(request) else "domains/orders.html"
    return render(request, template, context, status=status)


@login_required
@require_GET
def order_detail(request: HttpRequest, order_id: int) -> HttpResponse:
    order = _get_order_for_user(request, order_id)
    if "renewal" in request.GET:
        return _renewal_paid_return(request, order, request.GET["renewal"])
    return _render_detail(request, order)


@login_required
@require_POST
def order_renew(request: HttpRequest, order_id: int) -> HttpResponse:
    """Two steps: the chosen term shows its price and new expiry; the confirmation renews, once per form."""
    order = _get_order_for_user(request, order_id)
    form = RenewForm(request.POST)
    if not form.is_valid():
        return _render_detail(request, order, renew_form=form)
    token: uuid.UUID = form.cleaned_data["renew_token"]
    if not _renew_token_was_issued(request, order, str(token)):
        return _render_detail(
            request, order, renew_form=form, renew_error=gettext("This form has expired. Please check and try again.")
        )
    duration: int = form.cleaned_data["duration"]
    shown: int = form.cleaned_data["expiry_timestamp"]
    shown_at = dt.datetime.fromtimestamp(shown, tz=dt.UTC)
    terms = renewals.renew_terms(domain_name=order.domain_name, expires_at=shown_at)
    if duration not in terms:
        return _render_detail(request, order, renew_form=form, renew_error=_terms_sentence(terms))
    # The retail price of this very term (the price list may price longer terms differently from n times one year).
    quote = domain_orders.renew_quote(domain_name=order.domain_name, years=duration)
    price = quote.retail.amount if quote else None
    currency = quote.retail.currency if quote else ""
    if not form.cleaned_data["confirm"]:
        return _renew_confirmation(
            request, order, token=token, duration=duration, shown=shown, price=price, currency=currency
        )
    renew_request = renewals.RenewRequest(
        duration=duration,
        shown_expiry_timestamp=shown,
        token=token,
        price=price,
        currency=currency,
        cost=quote.cost.amount if quote else None,
    )
    if _renewal_is_paid(price):
        return _pay_renewal(request, order, renew_request, form=form)
    if not settings.PAYMENTS_DISABLED and price is None:
        unpriced = gettext(
            "This renewal has no price in our list right now, so it cannot be paid online. "
            "Nothing was renewed or charged; please try again later or contact support."
        )
        return _render_detail(request, order, renew_form=form, renew_error=unpriced)
    try:
        renewed = renewals.renewal_place(order=order, request=renew_request)
    except renewals.RenewAlreadySubmitted as err:
        messages.info(request, err.message)
        return redirect("order_detail", order_id=order.order_id)
    except renewals.RenewRefused as err:
        # ExpiryMoved among them: the page is drawn afresh, with the new expiry and a new form.
        return _render_detail(request, order, renew_form=form, renew_error=err.message)
    except OutcomeUnknown:
        message: str | ProviderError = gettext(
            "We could not confirm the renewal with the domain service. "
            "Please check the expiry date below before trying again."
        )
        return _render_detail(request, order, renew_form=form, renew_error=message)
    except GatewayError as err:
        status = 503 if isinstance(err, Unavailable) else 200
        message = _explain(err, _("renew the domain (nothing was charged)"))
        return _render_detail(request, order, renew_form=form, renew_error=message, status=status)
    if renewed.new_expires_at is not None:
        until = formats.date_format(renewed.new_expires_at, "DATE_FORMAT")
        messages.success(request, gettext("Renewed until %(date)s.") % {"date": until})
    else:
        renewed_for = ngettext(
            "%(domain)s was renewed for %(years)d year.",
            "%(domain)s was renewed for %(years)d years.",
            renewed.duration,
        )
        messages.success(request, renewed_for % {"domain": renewed.domain_name, "years": renewed.duration})
    return redirect("order_detail", order_id=order.order_id)


@login_required
@require_POST
def order_auto_renew(request: HttpRequest, order_id: int) -> HttpResponse:
    """Switch auto-renew on (only with a saved card to charge) or off for one domain."""
    order = _get_order_for_user(request, order_id)
    back = redirect(reverse("order_detail", args=[order.order_id]) + "#auto-renew")
    form = AutoRenewForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Choose whether auto-renew should be on or off."))
        return back
    if form.cleaned_data["auto_renew"] == "off":
        Order.objects.filter(pk=order.pk).update(auto_renew=False)
        off = gettext("Auto-renew is off. We will email you reminders before %(domain)s expires.")
        messages.success(request, off % {"domain": order.domain_name})
        return back
    if settings.PAYMENTS_DISABLED:
        messages.error(request, gettext("Auto-renew is not available on this store: renewals are billed separately."))
        return back
    card = saved_card_for(order.customer)
    if card is None:
        messages.error(
            request,
            gettext(
                "Auto-renew needs a saved card, and none is saved. Pay for a renewal or a domain by card: the card "
                "you pay with is kept for auto-renew. Then switch it on here."
            ),
        )
        return back
    Order.objects.filter(pk=order.pk).update(
        auto_renew=True, auto_renew_failed_at=None, auto_renew_failure="", auto_renew_notified_at=None
    )
    messages.success(
        request,
        gettext(
            "Auto-renew is on: %(domain)s will be renewed %(days)d days before it expires, charged to your "
            "%(brand)s •••• %(last4)s."
        )
        % {
            "domain": order.domain_name,
            "days": settings.AUTO_RENEW_DAYS_BEFORE,
            "brand": card.brand.title(),
            "last4": card.last4,
        },
    )
    return back


def _renewal_is_paid(price: Decimal | None) -> bool:
    """Renewals are paid through Stripe Checkout like purchases, unless the reseller bills offline."""
    return not settings.PAYMENTS_DISABLED and price is not None and price > 0


def _pay_renewal(
    request: HttpRequest, order: Order, renew_request: renewals.RenewRequest, *, form: RenewForm
) -> HttpResponse:
    """Authorise, renew, then capture: the renewal's price is authorised on Stripe's page (one payment per renew
    form, its token being the payment's checkout id); the return here and the webhook renew it, then capture."""
    token = renew_request.token
    back = request.build_absolute_uri(reverse("order_detail", args=[order.order_id]))
    if not Payment.objects.filter(checkout_id=token).exists():
        # Nobody pays for a renewal that can no longer be sent: the expiry is checked before the payment page.
        try:
            current = domain_orders.order_fetch(order=order)
        except GatewayError as err:
            status = 503 if isinstance(err, Unavailable) else 200
            message = _explain(err, _("check this domain's expiry (nothing was charged)"))
            return _render_detail(request, order, renew_form=form, renew_error=message, status=status)
        if current is None or current.expiry_timestamp != renew_request.shown_expiry_timestamp:
            moved = renewals.ExpiryMoved(current.expires_at if current else None)
            return _render_detail(request, order, renew_error=moved.message)
    try:
        started = payment_start(
            customer=order.customer,
            lines=[renewal_line_to_pay(order=order, request=renew_request)],
            checkout_id=token,
            success_url=f"{back}?renewal={token}",
            cancel_url=back,
        )
    except (CheckoutChanged, SessionClosed) as err:
        return _render_detail(request, order, renew_error=err.message)
    except PaymentError as err:
        if err.code == "already_paid":
            return redirect(f"{reverse('order_detail', args=[order.order_id])}?renewal={token}")
        status = 503 if isinstance(err, PaymentUnavailable) else 200
        return _render_detail(request, order, renew_form=form, renew_error=err.message, status=status)
    return HttpResponseRedirect(started.url, status=303)


def _renewal_paid_return(request: HttpRequest, order: Order, raw_token: str) -> HttpResponse:
    """The return door of a renewal's payment: settled as the webhook does (whichever comes first renews it, once),
    then what happened is said once and the page is shown without the query (a reload settles nothing again)."""
    here = redirect("order_detail", order_id=order.order_id)
    try:
        token = uuid.UUID(raw_token)
    except ValueError:
        return here
    payment = Payment.objects.filter(checkout_id=token, customer=order.customer).first()
    if payment is None:
        return here
    if not payment.is_final and payment.stripe_session_id:
        try:
            payment = payment_settle(session_id=payment.stripe_session_id)
        except PaymentError:
            pass  # Stripe not answering: the webhook (or a reload) finishes it
    renewal = Renewal.objects.filter(token=token, order=order).first()
    level, text = _renewal_payment_message(payment, renewal)
    messages.add_message(request, level, text)
    return here


def _renewal_payment_message(payment: Payment, renewal: Renewal | None) -> tuple[int, str]:
    charged = Money(payment.amount_captured, payment.currency)
    if renewal is not None and renewal.status == Renewal.RENEWED:
        if renewal.new_expires_at:
            done = gettext("Renewed until %(date)s.") % {
                "date": formats.date_format(renewal.new_expires_at, "DATE_FORMAT")
            }
        else:
            done = gettext("Renewed.")
        if payment.status in (Payment.Status.CAPTURED, Payment.Status.PARTIALLY_CAPTURED):
            charge = gettext("Your card was charged %(amount)s.") % {"amount": format_money(charged)}
            return messages.SUCCESS, f"{done} {charge}"
        return messages.SUCCESS, f"{done} {gettext('Your payment is being completed.')}"
    if payment.status == Payment.Status.CREATED:
        return messages.INFO, gettext(
            "Your payment is not confirmed yet. The domain is renewed as soon as it is; reload this page in a moment."
        )
    if payment.status == Payment.Status.CANCELLED or (renewal is not None and renewal.status == Renewal.FAILED):
        reason = _RENEWAL_FAILURES.get(renewal.failure_kind if renewal else "")
        failed = (
            gettext("The domain could not be renewed %(reason)s.") % {"reason": reason}
            if reason is not None
            else gettext("The domain could not be renewed.")
        )
        return messages.ERROR, f"{failed} {gettext('You have not been charged: the hold on your card was released.')}"
    return messages.WARNING, gettext(
        "We could not confirm the renewal with the domain service yet. Your card is only charged once it is "
        "confirmed; please check back shortly."
    )


_RENEWAL_FAILURES: dict[str, str | Promise] = {
    "expiry_changed": _("because its expiry date changed since the page was opened (it was renewed meanwhile?)"),
    "not_renewable": _("because it can no longer be renewed here"),
    "minimum_term": _("for this term"),
}


def _terms_sentence(terms: list[int]) -> str:
    if not terms:
        return gettext(
            "This domain is already renewed as far as the registry allows (%(limit)d years "
            "from today). It can be renewed again later."
        ) % {"limit": renewals.REGISTRY_MAX_YEARS}
    return gettext("Choose a renewal term between %(shortest)d and %(longest)d years.") % {
        "shortest": terms[0],
        "longest": terms[-1],
    }


def _renew_confirmation(
    request: HttpRequest,
    order: Order,
    *,
    token: uuid.UUID,
    duration: int,
    shown: int,
    price: Decimal | None,
    currency: str,
) -> HttpResponse:
    """The price and the new expiry, from the expiry as it is now; a page showing an old one starts again."""
    try:
        current = domain_orders.order_fetch(order=order)
    except GatewayError as err:
        status = 503 if isinstance(err, Unavailable) else 200
        return _render_detail(request, order, renew_error=_explain(err, _("check this domain's expiry")), status=status)
    if current is None or current.expiry_timestamp != shown:
        moved = renewals.ExpiryMoved(current.expires_at if current else None)
        return _render_detail(request, order, renew_error=moved.message)
    context = {
        "order": order,
        "duration": duration,
        "price": Money(price, currency) if price is not None else None,
        "old_expires_at": current.expires_at,
        "new_expires_at": renewals.add_years(current.expires_at, duration),
        "renew_token": token,
        "expiry_timestamp": shown,
        "pay_online": _renewal_is_paid(price),
    }
    return render(request, "domains/order_renew_confirm.html", context)


@_login_required
@require_POST
@never_cache
@rate_limit("transfer_code", per="user")
@reauthentication_required
def order_transfer_code(request: HttpRequest, order_id: int) -> HttpResponse:
    # A stolen session alone must not move a domain away: allauth asks for the password (and the two-factor
    # code when it is on) unless the customer confirmed it in the last few minutes, then resumes this POST.
    order = _get_order_for_user(request, order_id)
    form = TransferCodeForm()
    code = ""
    error: str | ProviderError = ""
    try:
        code = domain_orders.order_transfer_code(order=order).transfer_code
    except GatewayError as err:
        error = _explain(err, _("fetch the transfer code"))
    else:
        security_notice(request=request, what="transfer_code", detail=order.domain_name)
    if not is_fragment(request):
        return _render_detail(request, order, transfer_form=form, transfer_code=code, transfer_error=error)
    context = {"order": order, "transfer_form": form, "transfer_code": code, "transfer_error": error}
    response = render(request, "domains/_order_transfer.html", context)
    response["Cache-Control"] = "no-store"
    return response
