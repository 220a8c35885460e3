"""The order pages: the list of the customer's domains (`/orders/`), one domain (`/orders/<id>/`), its renewal,
auto-renew and transfer code. Each view reads the request, checks the order is the customer's (404 before any outside
call), calls one service (domains.orders.*) and draws its answer."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from allauth.account.decorators import reauthentication_required
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from accounts.models import customer_for_user
from accounts.security.notices import security_notice
from domains.models import Order
from domains.orders import renewals
from domains.orders import services as domain_orders
from domains.orders.auto_renew import AutoRenewRefused, auto_renew_on_sentence, order_auto_renew_set
from domains.orders.detail import OrderPage, order_page
from domains.orders.forms import (
    AutoRenewForm,
    OrdersFilterForm,
    PrivacyBuyForm,
    PrivacySwitchForm,
    RenewForm,
    RenewManyForm,
    TransferCodeForm,
)
from domains.orders.ownership import get_order_for_user
from domains.orders.payment_marks import DomainRefunded
from domains.orders.privacy import PRIVACY_OFF_INSTEAD, PRIVACY_OFF_SENTENCE, privacy_switch
from domains.orders.privacy_flow import privacy_buy, privacy_paid_return
from domains.orders.renew_many import ManyToPay, owned_orders, renew_many_outcome, renew_many_request
from domains.orders.renewal_flow import (
    RENEWAL_WAIT_POLLS,
    PaymentAlreadyStarted,
    RenewalAsked,
    Renewed,
    ToConfirm,
    ToPay,
    renewal_in_progress,
    renewal_paid_return,
    renewal_request,
)
from domains.orders.transfer_reveal import reveal_ticket_issue, reveal_ticket_spend
from domains.presentation import renewal_payment_outcome, renewed_sentence
from domains.verification import verification_confirm, verification_pending
from storefront.errors import StoreError, error_status
from storefront.gateway import GatewayError, OutcomeUnknown
from storefront.requests.acting_rules import acting_allowed, acting_refused
from storefront.requests.provider_errors import ProviderError, provider_error
from storefront.requests.request_helpers import AuthenticatedHttpRequest, HtmxHttpRequest, is_fragment
from storefront.requests.typed_text import control_characters_removed
from storefront.resilience.ratelimit import rate_limit
from storefront.site.domain_names import domain_to_unicode

PANEL_BUTTON_TEMPLATE = "accounts/_panel_button.html"
# Renew tokens kept per order in the session: enough for a few open tabs of the same domain.
RENEW_TOKENS_KEPT = 5
_MESSAGE_LEVELS = {"success": messages.SUCCESS, "info": messages.INFO, "warning": messages.WARNING}


# --- Helpers ------------------------------------------------------------------------------------------------------


def _get_order_for_user(request: HttpRequest, order_id: int) -> Order:
    # Answered from our copy of the listing: 404 before any provider call.
    return get_order_for_user(request.user, order_id)


def _issue_renew_token(request: HttpRequest, order: Order) -> str:
    return _remember_renew_token(request, order, str(uuid.uuid4()))


def _remember_renew_token(request: HttpRequest, order: Order, token: str) -> str:
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
    transfer_code: str = "",
    transfer_error: str | ProviderError = "",
    status: int = 200,
) -> HttpResponse:
    """The domain page, from the provider's current view of the order (our copy if it cannot be asked)."""
    page = order_page(order=order)
    if page.error is not None and status == 200:
        status = error_status(page.error)
    context = {
        **_page_context(page, renew_form),
        "order": order,
        "renew_form": renew_form or RenewForm(),
        "renew_token": _issue_renew_token(request, order),
        "renew_error": renew_error,
        "transfer_form": TransferCodeForm(),
        "transfer_code": transfer_code,
        "transfer_error": transfer_error,
        "panel_template": _panel_template(),
        "privacy_token": uuid.uuid4(),
        "privacy_off": PRIVACY_OFF_SENTENCE,
        "privacy_instead": PRIVACY_OFF_INSTEAD,
        "refunded_locked": DomainRefunded.default_message,
        "verification": verification_pending(order=order),
        "suspended": page.row.display_status == Order.Status.SUSPENDED,
    }
    response = render(request, "domains/order_detail.html", context, status=status)
    if transfer_code:
        response["Cache-Control"] = "no-store"
    return response


def _page_context(page: OrderPage, renew_form: RenewForm | None) -> dict[str, Any]:
    """What the domain page shows of the provider's view: the order's facts, its renewal terms (the term the
    customer chose stays selected), payments due and privacy."""
    selected = page.terms[0] if page.terms else 1
    if renew_form is not None and renew_form.is_bound and renew_form.is_valid():
        chosen = renew_form.cleaned_data.get("duration")
        selected = chosen if chosen in page.terms else selected
    return {
        "row": page.row,
        "listed": page.listed,
        "provider_error": provider_error(page.error, what=_("load the latest details of this domain"))
        if page.error
        else "",
        "pricing": page.pricing,
        "renew_options": page.renew_options,
        "renew_selected": selected,
        "renew_expiry_timestamp": page.expiry_timestamp,
        "renewals": page.renewals,
        "auto_renew": page.auto_renew,
        "payment_due": page.payment_due,
        "payment_due_url": page.payment_due_url,
        "privacy": page.privacy,
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


@acting_allowed
@_login_required
@require_GET
@vary_on_headers("HX-Request")
def orders(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = OrdersFilterForm(request.GET)
    form.is_valid()
    # A search longer than any domain name is cut, not dropped: the box keeps what was typed.
    q = form.cleaned_data.get("q") or control_characters_removed(request.GET.get("q", "")).strip()[:80]
    customer = customer_for_user(request.user)
    # Several domains are renewed together in one payment: not where the store bills offline.
    context: dict[str, Any] = {"q": q, "listing": None, "error": "", "account_pending": False}
    context["renew_many"] = not settings.PAYMENTS_DISABLED
    status = 200
    if customer is None or customer.customer_id is None:
        context["account_pending"] = True
    else:
        try:
            context["listing"] = domain_orders.orders_list(
                customer=customer, page=form.cleaned_data.get("page") or 1, q=q
            )
        except GatewayError as err:
            context["error"] = provider_error(err, what=_("load your domains"))
            status = error_status(err, fragment=is_fragment(request))
    template = "domains/_orders_table.html" if is_fragment(request) else "domains/orders.html"
    return render(request, template, context, status=status)


@acting_allowed
@login_required
@require_GET
def order_detail(request: HttpRequest, order_id: int) -> HttpResponse:
    order = _get_order_for_user(request, order_id)
    if "privacy" in request.GET:
        return _privacy_returned(request, order)
    if "renewal" not in request.GET:
        return _render_detail(request, order)
    # Back from a renewal's payment: while the worker renews it, a page that updates by itself; then what happened
    # is said once, and the page is shown without the query (a reload settles nothing again).
    returned = renewal_paid_return(order=order, token=request.GET["renewal"])
    polls = _int(request.GET.get("polls"))
    if returned is not None and renewal_in_progress(*returned, polls=polls):
        template = "domains/_renewal_wait.html" if is_fragment(request) else "domains/order_renewal_wait.html"
        base = reverse("order_detail", args=[order.order_id])
        again = f"{base}?{urlencode({'renewal': request.GET['renewal'], 'polls': polls + 1})}"
        context = {"order": order, "paid": returned[0].status != "created", "again": again}
        return render(request, template, context)
    if returned is not None:
        tone, text = renewal_payment_outcome(*returned)
        messages.add_message(request, _MESSAGE_LEVELS.get(tone, messages.ERROR), text)
    if is_fragment(request):
        return HttpResponseClientRedirect(reverse("order_detail", args=[order.order_id]))
    return redirect("order_detail", order_id=order.order_id)


@acting_refused(methods=("POST",))
@login_required
@require_POST
@rate_limit("renew", per="user")
def order_renew(request: HttpRequest, order_id: int) -> HttpResponse:
    """Two steps: the chosen term shows its price and new expiry; the confirmation renews, once per form."""
    order = _get_order_for_user(request, order_id)
    form = RenewForm(request.POST)
    if not form.is_valid():
        return _render_detail(request, order, renew_form=form)
    asked = _renewal_asked(form)
    try:
        step = renewal_request(
            order=order,
            asked=asked,
            token_issued=_renew_token_was_issued(request, order, str(asked.token)),
            return_url=request.build_absolute_uri(reverse("order_detail", args=[order.order_id])),
        )
    except PaymentAlreadyStarted:
        return redirect(f"{reverse('order_detail', args=[order.order_id])}?renewal={asked.token}")
    except renewals.RenewAlreadySubmitted as err:
        messages.info(request, err.message)
        return redirect("order_detail", order_id=order.order_id)
    except StoreError as err:
        return _render_detail(request, order, renew_form=form, renew_error=_renew_error(err), status=_status(err))
    if isinstance(step, ToConfirm):
        if step.token != asked.token:  # the saved card was refused: the payment page gets a form of its own
            _remember_renew_token(request, order, str(step.token))
        return render(request, "domains/order_renew_confirm.html", {"order": order, "step": step})
    if isinstance(step, ToPay):
        return HttpResponseRedirect(step.url, status=303)
    assert isinstance(step, Renewed)
    messages.success(request, renewed_sentence(step.renewal))
    return redirect("order_detail", order_id=order.order_id)


def _renewal_asked(form: RenewForm) -> RenewalAsked:
    return RenewalAsked(
        token=form.cleaned_data["renew_token"],
        duration=form.cleaned_data["duration"],
        shown_expiry_timestamp=form.cleaned_data["expiry_timestamp"],
        confirm=form.cleaned_data["confirm"],
        price_shown=form.cleaned_data["price_shown"],
        pay_with_card=form.cleaned_data["pay_with"] == "card",
        promotion_code=form.cleaned_data["promotion_code"],
    )


def _int(value: str | None) -> int:
    return int(value) if value and value.isdigit() else 0


def _renew_error(err: StoreError) -> str | Promise | ProviderError:
    if isinstance(err, renewals.RenewRefused):
        return err.message  # ExpiryMoved among them: the page is drawn afresh, with the new expiry
    if isinstance(err, OutcomeUnknown):
        return gettext(
            "We could not confirm the renewal with the domain service. "
            "Please check the expiry date below before trying again."
        )
    return provider_error(err, what=_("renew the domain (nothing was charged)"))


def _status(err: StoreError) -> int:
    # The page says what happened beside the form; only an outage makes it a 503 (a refusal is an answer).
    return 200 if isinstance(err, renewals.RenewRefused | OutcomeUnknown) else error_status(err)


@acting_refused(methods=("POST",))
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
    try:
        card = order_auto_renew_set(order=order, on=form.cleaned_data["auto_renew"] == "on")
    except AutoRenewRefused as err:
        messages.error(request, err.message)
        return back
    if card is None:
        off = gettext("Auto-renew is off. We will email you reminders before %(domain)s expires.")
        messages.success(request, off % {"domain": order.domain_name})
        return back
    messages.success(request, auto_renew_on_sentence(order=order, card=card))
    return back


def _privacy_returned(request: HttpRequest, order: Order) -> HttpResponse:
    """Back from paying for privacy: what happened is said once, and the page is shown without the query."""
    outcome = privacy_paid_return(order=order, token=request.GET["privacy"])
    if outcome is not None:
        messages.add_message(request, _MESSAGE_LEVELS.get(outcome.tone, messages.ERROR), outcome.text)
    return redirect(reverse("order_detail", args=[order.order_id]) + "#privacy")


@acting_allowed
@login_required
@require_POST
def order_privacy(request: HttpRequest, order_id: int) -> HttpResponse:
    """Switch WHOIS privacy that is paid for on or off (free either way)."""
    order = _get_order_for_user(request, order_id)
    back = redirect(reverse("order_detail", args=[order.order_id]) + "#privacy")
    form = PrivacySwitchForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Choose whether WHOIS privacy should be on or off."))
        return back
    on = form.cleaned_data["privacy"] == "on"
    try:
        privacy_switch(order=order, enabled=on)
    except GatewayError as err:
        messages.error(request, str(provider_error(err, what=_("change WHOIS privacy"))))
        return back
    except StoreError as err:
        messages.error(request, str(err.message))
        return back
    domain = domain_to_unicode(order.domain_name)
    if on:
        messages.success(request, gettext("WHOIS privacy is on for %(domain)s.") % {"domain": domain})
    else:
        messages.success(
            request,
            gettext("WHOIS privacy is off: the contact details of %(domain)s are public again.") % {"domain": domain},
        )
    return back


@acting_refused(methods=("POST",))
@login_required
@require_POST
def order_privacy_buy(request: HttpRequest, order_id: int) -> HttpResponse:
    """Add WHOIS privacy: the saved card is charged (one confirmation), or the payment page is shown."""
    order = _get_order_for_user(request, order_id)
    back = redirect(reverse("order_detail", args=[order.order_id]) + "#privacy")
    form = PrivacyBuyForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("This form has expired. Please reload the page and try again."))
        return back
    try:
        step = privacy_buy(
            order=order,
            token=form.cleaned_data["token"],
            price_shown=form.cleaned_data["price_shown"],
            saved_card=form.cleaned_data["pay_with"] != "page",
            return_url=request.build_absolute_uri(reverse("order_detail", args=[order.order_id])),
        )
    except StoreError as err:
        messages.error(request, str(err.message))
        return back
    if isinstance(step, ToPay):
        return HttpResponseRedirect(step.url, status=303)
    messages.add_message(request, _MESSAGE_LEVELS.get(step.tone, messages.ERROR), step.text)
    return back


@acting_refused
@_login_required
@require_http_methods(["GET", "POST"])
@never_cache
@rate_limit("transfer_code", per="user", methods=("POST",))
@reauthentication_required
def order_transfer_code(request: HttpRequest, order_id: int) -> HttpResponse:
    # A stolen session alone must not move a domain away: allauth asks for the password (and the two-factor
    # code when it is on) unless the customer confirmed it in the last few minutes, then resumes this POST.
    order = _get_order_for_user(request, order_id)
    if request.method == "POST" and not is_fragment(request):
        # Post/redirect/get: the page with the code is a GET, so a reload re-sends neither this form nor the
        # password form allauth resumed it from (whose URL the page would otherwise keep).
        ticket = reveal_ticket_issue(session=request.session, order=order)
        url = f"{reverse('order_transfer_code', args=[order.order_id])}?{urlencode({'shown': ticket})}"
        return HttpResponseRedirect(url, status=303)
    if request.method == "GET" and not reveal_ticket_spend(
        session=request.session, order=order, ticket=request.GET.get("shown", "")
    ):
        return redirect(f"{reverse('order_detail', args=[order.order_id])}#transfer")  # shown once: ask again
    code = ""
    error: str | ProviderError = ""
    try:
        code = domain_orders.order_transfer_code(order=order).transfer_code
    except DomainRefunded as err:
        error = provider_error(err)
    except GatewayError as err:
        error = provider_error(err, what=_("fetch the transfer code"))
    else:
        security_notice(request=request, what="transfer_code", detail=order.domain_name)
    if not is_fragment(request):
        return _render_detail(request, order, transfer_code=code, transfer_error=error)
    context = {"order": order, "transfer_form": TransferCodeForm(), "transfer_code": code, "transfer_error": error}
    response = render(request, "domains/_order_transfer.html", context)
    response["Cache-Control"] = "no-store"
    return response


# --- Several domains in one payment ---------------------------------------------------------------------------------


@acting_refused(methods=("POST",))
@login_required
@require_POST
@rate_limit("renew", per="user")
def orders_renew(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The ticked domains' confirmation, then (confirmed) one payment for them all."""
    customer = customer_for_user(request.user)
    form = RenewManyForm(request.POST)
    if customer is None or not form.is_valid():
        messages.error(
            request, " ".join(map(str, form.non_field_errors())) or gettext("Tick the domains you want to renew.")
        )
        return redirect("orders")
    asked_ids = form.cleaned_data["orders"]
    chosen = owned_orders(customer=customer, order_ids=asked_ids)
    if len(chosen) != len(set(asked_ids)):
        raise Http404("Not all of these domains are yours")
    token = form.cleaned_data.get("token") or uuid.uuid4()
    try:
        step = renew_many_request(
            customer=customer,
            orders=chosen,
            cleaned=form.cleaned_data,
            token_issued=str(token) in request.session.get("renew_many_tokens", []),
            outcome_url=request.build_absolute_uri(reverse("orders_renewed", args=[token])),
            cancel_url=request.build_absolute_uri(reverse("orders")),
        )
    except StoreError as err:
        messages.error(request, err.message)
        return redirect("orders")
    if isinstance(step, ManyToPay):
        return HttpResponseRedirect(step.url, status=303)
    issued = [*request.session.get("renew_many_tokens", []), str(step.token)]
    request.session["renew_many_tokens"] = issued[-RENEW_TOKENS_KEPT:]
    return render(request, "domains/orders_renew_confirm.html", {"step": step})


@acting_allowed
@login_required
@require_GET
def orders_renewed(request: HttpRequest, checkout_id: uuid.UUID) -> HttpResponse:
    """What became of each domain renewed together (404 unless the payment is the customer's); while the worker
    renews them, the page updates by itself."""
    customer = customer_for_user(request.user)
    outcome = renew_many_outcome(customer=customer, checkout_id=checkout_id) if customer is not None else None
    if outcome is None:
        raise Http404("No such renewal")
    template = "domains/_orders_renewed.html" if is_fragment(request) else "domains/orders_renewed.html"
    polls = _int(request.GET.get("polls"))
    # A payment that never comes (the payment page left) is said so after a while, not waited for forever.
    context = {"outcome": outcome, "polls": polls + 1, "waiting": outcome.in_progress and polls < RENEWAL_WAIT_POLLS}
    return render(request, template, context)


@acting_refused
@login_required
@require_POST
def order_verification_confirmed(request: HttpRequest, order_id: int) -> HttpResponse:
    """The customer says the registrant confirmed the provider's email: the notice and the reminders stop."""
    order = _get_order_for_user(request, order_id)
    verification_confirm(order=order)
    messages.success(request, _("Thanks. We won't remind you about confirming the registrant's email address again."))
    return redirect("order_detail", order_id=order.order_id)
