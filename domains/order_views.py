"""The order dashboard (issue 7): the list of the customer's domains, one domain, renewal, transfer code."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from decimal import Decimal
from functools import wraps
from typing import Any

from allauth.account.decorators import reauthentication_required
from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.utils import formats
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from accounts.models import Customer
from accounts.notices import security_notice
from domains import orders as services
from domains import renewals
from domains.models import Order
from domains.ownership import get_order_for_user
from pricing.money import Money
from storefront import provider_errors
from storefront.gateway import GatewayError, OutcomeUnknown, Unavailable
from storefront.provider_errors import ProviderError
from storefront.ratelimit import rate_limit
from storefront.request_helpers import is_fragment

PANEL_BUTTON_TEMPLATE = "accounts/_panel_button.html"
# Renew tokens kept per order in the session: enough for a few open tabs of the same domain.
RENEW_TOKENS_KEPT = 5
RENEWALS_SHOWN = 10


# --- Forms ------------------------------------------------------------------------------------------------------


class OrdersFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=80, strip=True)
    page = forms.IntegerField(required=False, min_value=1, max_value=100_000)


class RenewForm(forms.Form):
    duration = forms.TypedChoiceField(
        choices=[(n, n) for n in services.RENEW_YEARS],
        coerce=int,
        error_messages={
            "required": _("Choose how many years to renew for."),
            "invalid_choice": _("Choose a renewal term between 1 and 9 years."),
        },
    )
    renew_token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": _("This form has expired. Please try again."),
            "invalid": _("This form has expired. Please try again."),
        },
    )
    # The expiry the page showed (seconds since the epoch): a renewal is from that expiry or not at all.
    expiry_timestamp = forms.IntegerField(
        widget=forms.HiddenInput,
        min_value=0,
        max_value=2**40,
        error_messages={
            "required": _("This form has expired. Please reload the page and try again."),
            "invalid": _("This form has expired. Please reload the page and try again."),
        },
    )
    # Absent on the first step (which shows the price and the new expiry); set by the confirmation's button.
    confirm = forms.BooleanField(required=False)


class TransferCodeForm(forms.Form):
    """Nothing to type: the password (and the two-factor code, when on) is asked by allauth's re-authentication."""


# --- Helpers ------------------------------------------------------------------------------------------------------


def _get_order_for_user(request: HttpRequest, order_id: int) -> Order:
    # Answered from our copy of the listing: 404 before any provider call.
    return get_order_for_user(request.user, order_id)


def _explain(err: GatewayError, what: str | Promise) -> ProviderError:
    return provider_errors.provider_error(err, what=what)


def _customer_for(user: AbstractBaseUser) -> Customer | None:
    try:
        return user.customer
    except Customer.DoesNotExist:
        return None


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
    renew_error: str | ProviderError = "",
    transfer_form: TransferCodeForm | None = None,
    transfer_code: str = "",
    transfer_error: str | ProviderError = "",
    status: int = 200,
) -> HttpResponse:
    """The domain page, from the provider's current view of the order (our copy if it cannot be asked)."""
    provider_error = ""
    listed = True
    try:
        current = services.order_fetch(order=order)
    except GatewayError as err:
        current = None
        provider_error = _explain(err, _("load the latest details of this domain"))
        if isinstance(err, Unavailable) and status == 200:
            status = 503
    if current is None and not provider_error:
        listed = False
    row = services.order_row(current) if current is not None else services.order_row(order)
    renewable = listed and row.can_renew
    pricing = services.renew_pricing(domain_name=order.domain_name) if renewable else None
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
            (years, total) for years, total in services.renew_options(domain_name=order.domain_name) if years in terms
        ]
        if renewable
        else [],
        "renew_selected": selected,
        "renew_expiry_timestamp": expiry_timestamp,
        "renewals": order.renewals.all()[:RENEWALS_SHOWN],
        "renew_form": renew_form or RenewForm(),
        "renew_token": _issue_renew_token(request, order),
        "renew_error": renew_error,
        "transfer_form": transfer_form or TransferCodeForm(),
        "transfer_code": transfer_code,
        "transfer_error": transfer_error,
        "panel_template": _panel_template(),
    }
    response = render(request, "domains/order_detail.html", context, status=status)
    if transfer_code:
        response["Cache-Control"] = "no-store"
    return response


def _login_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """login_required that, for an htmx request, sends the whole page to sign in (not into a fragment)."""
    guarded = login_required(view)

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.htmx and not request.user.is_authenticated:
            back = request.htmx.current_url_abs_path or request.get_full_path()
            return HttpResponseClientRedirect(redirect_to_login(back).url)
        return guarded(request, *args, **kwargs)

    return wrapper


# --- Views --------------------------------------------------------------------------------------------------------


@_login_required
@require_GET
@vary_on_headers("HX-Request")
def orders(request: HttpRequest) -> HttpResponse:
    form = OrdersFilterForm(request.GET)
    form.is_valid()
    # A search longer than any domain name is cut, not dropped: the box keeps what was typed.
    q = form.cleaned_data.get("q") or request.GET.get("q", "").strip()[:80]
    page = form.cleaned_data.get("page") or 1
    customer = _customer_for(request.user)
    context: dict[str, Any] = {"q": q, "listing": None, "error": "", "account_pending": False}
    status = 200
    if customer is None or customer.customer_id is None:
        context["account_pending"] = True
    else:
        try:
            context["listing"] = services.orders_list(customer=customer, page=page, q=q)
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
    quote = services.renew_quote(domain_name=order.domain_name, years=duration)
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
    try:
        renewed = renewals.renewal_place(order=order, request=renew_request)
    except renewals.RenewAlreadySubmitted as err:
        messages.info(request, err.message)
        return redirect("order_detail", order_id=order.order_id)
    except renewals.RenewRefused as err:
        # ExpiryMoved among them: the page is drawn afresh, with the new expiry and a new form.
        return _render_detail(request, order, renew_form=form, renew_error=err.message)
    except OutcomeUnknown:
        message = gettext(
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
        current = services.order_fetch(order=order)
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
        code = services.order_transfer_code(order=order).transfer_code
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
