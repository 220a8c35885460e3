"""The page a customer reaches when they ask for something the provider cannot do yet: it says so, counts the ask,
and offers to email them when it arrives."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from accounts.models import Customer, customer_for_user
from demand.features import FEATURES, Wanted
from demand.forms import NotifyForm
from demand.services import demand_count, demand_subscribe, demand_subscribed, tld_of
from domains.orders.ownership import get_order_for_user
from storefront.requests.acting_rules import acting_refused, is_acting
from storefront.requests.request_helpers import AuthenticatedHttpRequest
from storefront.site.domain_names import NotADomainName, domain_to_ascii


def _feature_or_404(key: str) -> Wanted:
    wanted = FEATURES.get(key)
    if wanted is None:
        raise Http404("No such feature")
    return wanted


def _customer_or_404(request: AuthenticatedHttpRequest) -> Customer:
    customer = customer_for_user(request.user)  # staff may have no customer record
    if customer is None:
        raise Http404("No customer")
    return customer


def _tld(request: AuthenticatedHttpRequest) -> str:
    """The TLD the ask is about: the customer's own domain (`?order=`, 404 when not theirs), or a name they typed
    (`?domain=`, transferring one in); empty when neither."""
    order_id = request.GET.get("order", "")
    if order_id.isdigit():
        return tld_of(get_order_for_user(request.user, int(order_id)).domain_name)
    try:
        return tld_of(domain_to_ascii(request.GET.get("domain", "")[:253])) if request.GET.get("domain") else ""
    except NotADomainName:
        return ""


# Staff acting as the customer may read the page (it is not counted then); asking for emails stays with the customer.
@acting_refused(methods=("POST",))
@login_required
@require_http_methods(["GET", "POST"])
def wanted(request: AuthenticatedHttpRequest, feature: str) -> HttpResponse:
    wanted = _feature_or_404(feature)
    customer = _customer_or_404(request)
    tld = _tld(request)
    if request.method == "POST":
        form = NotifyForm(request.POST)
        if form.is_valid():
            subscribe = form.cleaned_data["notify"]
            demand_subscribe(customer=customer, feature=wanted, subscribe=subscribe)
            messages.success(
                request,
                gettext("We will email you once, when it arrives.")
                if subscribe
                else gettext("We will not email you about it."),
            )
            return redirect(request.get_full_path())
    else:
        if not wanted.available and not is_acting(request):
            demand_count(customer=customer, feature=wanted, tld=tld)
        form = NotifyForm(initial={"notify": demand_subscribed(customer=customer, feature=wanted)})
    return render(request, "demand/wanted.html", {"wanted": wanted, "tld": tld, "form": form})
