"""The account pages: signup (and its live checks), the control-panel hand-off, `/account/`, export and deletion."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from allauth.account.decorators import reauthentication_required
from allauth.account.internal.flows.signup import complete_signup
from allauth.mfa.utils import is_mfa_enabled
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import logout as auth_logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import contact_changes, privacy, tax_details
from accounts.currency import session_currency_set
from accounts.forms import ContactForm, CurrencyForm, SignupForm, initial_state
from accounts.models import ContactChange, Customer, customer_for_user
from accounts.signup import services
from accounts.signup.adapter import VERIFY_NEXT_KEY
from accounts.signup.spelling import SPELLED_FIELDS, ascii_field, ascii_form
from accounts.signup.verification import is_verified
from accounts.staff.activity import activity_of_customer
from accounts.tax_forms import TaxDetailsForm
from storefront.errors import error_status
from storefront.gateway import GatewayError
from storefront.requests.acting_rules import acting_allowed, acting_refused
from storefront.requests.provider_errors import provider_error
from storefront.requests.request_helpers import AuthenticatedHttpRequest, HtmxHttpRequest, safe_next
from storefront.resilience.ratelimit import rate_limit
from storefront.site import countries
from storefront.site.capabilities import CUSTOMER_DETAILS, capability_enabled

User = get_user_model()
PASSWORD_FIELDS = ("password", "password2")


def _local_path(url: str) -> str:
    """The path and query of a URL on our own site (a Referer is absolute)."""
    parts = urlsplit(url)
    if not parts.path:
        return ""
    # `https://shop//evil.example/x` has the path `//evil.example/x`, which a browser reads as another host.
    path = "/" + parts.path.lstrip("/\\")
    return path + (f"?{parts.query}" if parts.query else "")


def _login_url(next_url: str) -> str:
    return f"{reverse('login')}?{urlencode({'next': next_url or reverse('orders')})}"


def _status_for(err: GatewayError) -> int:
    return error_status(err)


@acting_allowed
@sensitive_post_parameters("password", "password2")
@require_http_methods(["GET", "POST"])
@rate_limit("signup", methods=("POST",))
def signup(request: HtmxHttpRequest) -> HttpResponse:
    next_url = safe_next(request, request.POST.get("next") or request.GET.get("next"))
    login_url = _login_url(next_url)
    if request.user.is_authenticated and not request.htmx:
        return HttpResponseRedirect(next_url or reverse("orders"))

    if request.method == "GET" and request.htmx and request.GET.get("validate") == "email":
        return _email_feedback(request, login_url)

    if request.method == "GET":
        form = SignupForm(login_url=login_url, initial=_initial_from_query(request.GET))
        return _render_signup(request, form, next_url)

    if "refresh_states" in request.POST:
        # Without JavaScript: the country changed, so show its states, keeping everything typed but passwords.
        return _render_signup(request, _refreshed_form(request.POST, login_url), next_url)

    form = SignupForm(request.POST, login_url=login_url)
    if not form.is_valid():
        return _render_signup(request, form, next_url)

    try:
        customer = services.customer_register(
            details=form.details(), email=form.cleaned_data["email"], password=form.cleaned_data["password"]
        )
    except services.EmailTaken:
        form.add_error(
            "email", ValidationError(form.email_taken_message(form.cleaned_data["email"]), code="email_taken")
        )
        return _render_signup(request, form, next_url)

    # allauth sends the confirmation (queued for the worker by the adapter) and signs the customer in; login
    # keeps the session's data (the cart): it only cycles the session key.
    # The browser the account is made in is no news: a mark for the sign-in receiver (accounts/signup/receivers.py, read
    # with getattr), not an attribute HttpRequest declares.
    request.signing_up = True  # type: ignore[attr-defined]
    response = complete_signup(request, user=customer.user, redirect_url=reverse("account_email_verification_sent"))
    # Where the confirmation link brings the customer back (else accounts/signup/adapter.py decides).
    request.session[VERIFY_NEXT_KEY] = next_url
    return response


def _initial_from_query(query: QueryDict) -> dict[str, str]:
    code = (query.get("country") or "").upper()
    if not countries.country(code):
        return {}
    return {"country": code, "state": initial_state(code), "country_code": countries.dial_code_for(code)}


def _refreshed_initial(data: QueryDict, form_class: type[ContactForm]) -> dict[str, str]:
    initial = {key: data.get(key, "") for key in form_class.base_fields if key not in PASSWORD_FIELDS}
    code = initial.get("country", "")
    # A new country: its state is chosen afresh (a state of the old country must not carry over unnoticed).
    initial["state"] = initial_state(code)
    if countries.country(code):
        initial["country_code"] = countries.dial_code_for(code)
    return initial


def _refreshed_form(data: QueryDict, login_url: str) -> SignupForm:
    return SignupForm(login_url=login_url, initial=_refreshed_initial(data, SignupForm))


def _render_signup(request: HttpRequest, form: SignupForm, next_url: str, *, status: int = 200) -> HttpResponse:
    # Bound forms never echo the passwords back (PasswordInput does not render its value).
    context = {
        "form": form,
        "next": next_url,
        "login_url": _login_url(next_url),
        "selected_country": countries.country(form.selected_country()),
    }
    return render(request, "accounts/signup.html", context, status=status)


def _email_feedback(request: HttpRequest, login_url: str) -> HttpResponse:
    """Live check of the email field alone (htmx, on change): is it an email address.

    It answers alike for addresses that have an account and those that do not: a live check anyone can call
    without submitting would otherwise tell, by the hundred a second, who shops here. Submitting the form
    (rate-limited) says that an address is taken, with a way to sign in.
    """
    form = SignupForm({"email": request.GET.get("email", "")}, login_url=login_url)
    form.is_valid()
    errors = [error for error in form.errors.as_data().get("email", []) if error.code != "email_taken"]
    email = form.cleaned_data.get("email", "") or ("" if errors else request.GET.get("email", "").strip())
    context = {"errors": [message for error in errors for message in error.messages], "email": email}
    return render(request, "accounts/_email_feedback.html", context)


@acting_allowed
@require_GET
def signup_states(request: HtmxHttpRequest) -> HttpResponse:
    """The state select for `?country=XX`; for htmx also the country's dialling prefix, swapped out of band.

    Asked for when the country changes, so nothing is chosen: the customer picks the new country's state.
    """
    code = (request.GET.get("country") or "").upper()
    found = countries.country(code)
    initial = {
        "country": code if found else "",
        "state": initial_state(code),
        "country_code": countries.dial_code_for(code) if found else "",
    }
    context = {"form": SignupForm(initial=initial), "country": found, "oob": bool(request.htmx)}
    return render(request, "accounts/_state_select.html", context)


@acting_allowed
@require_GET
def records_preview(request: HttpRequest) -> HttpResponse:
    """How the name and address in the form will read on the domains' records (htmx, as they are typed)."""
    return render(request, "accounts/_records_preview.html", {"form": ContactForm(request.GET)})


@acting_refused
@never_cache  # the redirect carries the token: no cache anywhere may keep it
@require_POST
@rate_limit("panel", per="user")
def panel(request: HttpRequest) -> HttpResponse:
    back = _local_path(safe_next(request, request.META.get("HTTP_REFERER"))) or reverse("orders")
    if not request.user.is_authenticated:
        # After signing in the customer lands back where the button was (a GET here would be refused).
        return redirect_to_login(back)
    try:
        address = services.panel_login_url(email=request.user.email)
    except services.PanelRefused as err:
        messages.error(request, err.message)
        return redirect(back)
    except GatewayError as err:
        messages.error(
            request, gettext("We could not open your control panel. %(reason)s") % {"reason": provider_error(err)}
        )
        return redirect(back)
    # The token goes straight into the redirect: it is never stored, logged, cached or rendered.
    return HttpResponseRedirect(address)


@acting_allowed
@login_required
@require_GET
def account(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The customer's account: their contact (read-only, as the provider holds it) and their password."""
    customer = customer_for_user(request.user)  # staff may have no customer record
    context = {
        "customer": customer,
        "activity": activity_of_customer(customer=customer) if customer is not None else [],
        "pending_contact_change": customer is not None and contact_changes.contact_change_pending(customer=customer),
        "mfa_enabled": is_mfa_enabled(request.user),
        "email_verified": is_verified(request.user),
        "currency_fixed": customer is not None and customer.has_purchased,
        "currency_form": CurrencyForm(initial={"currency": customer.currency_code}) if customer else None,
    }
    return render(request, "accounts/account.html", context)


@acting_allowed
@login_required
@require_POST
def account_currency(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Change the customer's currency (until their first purchase)."""
    customer = customer_for_user(request.user)
    if customer is None:
        raise Http404
    form = CurrencyForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(error) for error in form.errors.get("currency", [])))
        return redirect(reverse("account") + "#currency")
    try:
        customer = services.customer_currency_set(customer=customer, currency=form.cleaned_data["currency"])
    except services.CurrencyFixed as err:
        messages.error(request, str(err.message))
        return redirect(reverse("account") + "#currency")
    session_currency_set(request, customer.currency)
    messages.success(request, gettext("Prices are now shown in %(currency)s.") % {"currency": customer.currency_code})
    return redirect(reverse("account") + "#currency")


@acting_allowed
@login_required
@require_http_methods(["GET", "POST"])
def account_contact(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The customer's contact details, to change: sent to the provider, or queued for staff until it takes them."""
    customer = customer_for_user(request.user)
    if customer is None:
        raise Http404
    pending = contact_changes.contact_change_pending(customer=customer)
    if request.method == "GET":
        form = ContactForm(initial=_contact_initial(pending.details if pending else customer.contact()))
    elif "refresh_states" in request.POST:  # without JavaScript: the new country's states, all else kept
        form = ContactForm(initial=_refreshed_initial(request.POST, ContactForm))
    else:
        form = ContactForm(request.POST)
        if form.is_valid():
            try:
                outcome = contact_changes.contact_change_request(
                    customer=customer, details=form.details(), requested_by=request.user
                )
            except GatewayError as err:
                form.add_error(None, str(provider_error(err, what=_("change your contact details"))))
                return _render_contact(request, form, customer, pending, status=_status_for(err))
            messages.success(request, CONTACT_OUTCOMES[outcome])
            return redirect("account_contact")
    return _render_contact(request, form, customer, pending)


@acting_allowed
@login_required
@require_http_methods(["GET", "POST"])
@rate_limit("tax_number", per="user", methods=("POST",))
def account_tax(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Buying as a business, and the VAT/GST number reverse charge rests on (checked before it is saved)."""
    customer = customer_for_user(request.user)
    if customer is None:
        raise Http404
    initial = {
        "is_business": customer.is_business,
        "tax_number": customer.tax_number,
        "buyer_reference": customer.buyer_reference,
        "wants_einvoices": customer.wants_einvoices,
    }
    form = TaxDetailsForm(request.POST or None, initial=initial, country=customer.country)
    if request.method == "POST" and form.is_valid():
        saved = tax_details.tax_details_save(
            customer=customer,
            is_business=form.cleaned_data["is_business"],
            number=form.number,
            buyer_reference=form.cleaned_data["buyer_reference"],
            wants_einvoices=form.cleaned_data["wants_einvoices"],
        )
        if saved is not tax_details.Saved.REFUSED:
            messages.success(request, TAX_OUTCOMES[saved])
            return redirect("account_tax")
        form.add_error("tax_number", _("The EU's VAT register (VIES) says this number is not registered."))
    return render(request, "accounts/tax.html", {"form": form, "customer": customer})


TAX_OUTCOMES = {
    tax_details.Saved.SAVED: _("Your tax details were saved."),
    tax_details.Saved.NOT_CHECKED: _(
        "Your tax details were saved. The EU's VAT register (VIES) did not answer, so your number is recorded as "
        "not checked yet. You can buy as usual: VAT is charged until your number is confirmed, and refunded then."
    ),
}


CONTACT_OUTCOMES = {
    contact_changes.Outcome.SENT: _("Your contact details were changed, here and on your domains' records."),
    contact_changes.Outcome.PENDING: _(
        "Your change is saved. The domain registry cannot take changes automatically yet, so we will pass it on for "
        "you; until then your domains keep the details shown as current."
    ),
    contact_changes.Outcome.SAVED: _("Your contact details were changed."),
    contact_changes.Outcome.UNCHANGED: _("Nothing changed: these are already your details."),
    contact_changes.Outcome.WITHDRAWN: _("Your pending change was withdrawn: your details stay as they are."),
}


def _contact_initial(contact: dict[str, str]) -> dict[str, str]:
    """The form's values: a spelling the customer corrected is shown; an automatic one is left empty, so that it
    follows the written field when that changes."""
    initial = dict(contact)
    for field in SPELLED_FIELDS:
        if initial.get(ascii_field(field)) == ascii_form(initial.get(field, "")):
            initial[ascii_field(field)] = ""
    return initial


def _render_contact(
    request: HttpRequest, form: ContactForm, customer: Customer, pending: ContactChange | None, *, status: int = 200
) -> HttpResponse:
    context = {
        "form": form,
        "customer": customer,
        "pending": pending,
        "pending_preview": ContactForm(initial=pending.details).records_preview() if pending else [],
        "selected_country": countries.country(form.selected_country()),
        "by_hand": not capability_enabled(CUSTOMER_DETAILS),
    }
    return render(request, "accounts/contact.html", context, status=status)


@acting_allowed
@login_required
@require_GET
def account_export(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Everything we hold about the signed-in customer, as a JSON download."""
    customer = customer_for_user(request.user)
    if customer is None:
        raise Http404
    response = JsonResponse(privacy.customer_export(customer=customer), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = 'attachment; filename="my-domain-store-data.json"'
    response["Cache-Control"] = "no-store"
    return response


@acting_refused
@login_required
@require_http_methods(["GET", "POST"])
@reauthentication_required
def account_delete(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Ask for the account to be deleted (after confirming the password, and a code with two-factor on)."""
    customer = customer_for_user(request.user)
    if customer is None:
        raise Http404
    if request.method == "GET" or request.POST.get("confirm") != "delete":
        return render(request, "accounts/account_delete.html", {"customer": customer})
    privacy.customer_delete(customer=customer)
    auth_logout(request)
    messages.info(
        request, gettext("Your account was deleted. We have asked the domain registry to delete your details too.")
    )
    return redirect("home")
