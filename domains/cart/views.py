"""The cart: `/cart/` and its three POST actions. htmx requests get the cart (or the add button's) fragment."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST, require_safe

from accounts.models import customer_for_user
from domains.cart.basket import MAX_LINES, Cart, line_quote, line_with_privacy
from domains.cart.forms import DomainNameForm, DurationForm, PrivacyForm, PromotionCodeForm, normalise_domain
from domains.cart.promotion import cart_code, cart_code_enter, cart_code_remove, cart_promotion_apply
from domains.search.services import Buyable, availability_of, metasearch_cached, why_not_buyable
from pricing.promotions import PromotionRefused
from pricing.quotes import price_book
from storefront.gateway import GatewayError, RateLimited, Unavailable
from storefront.requests.acting_rules import acting_allowed
from storefront.requests.provider_errors import ProviderError, provider_error
from storefront.requests.request_helpers import HtmxHttpRequest, safe_next
from storefront.resilience.ratelimit import rate_limit
from storefront.site.domain_names import domain_to_unicode


@acting_allowed
@require_safe
def cart(request: HttpRequest) -> HttpResponse:
    return _render_cart(request)


@acting_allowed
@require_POST
@rate_limit("cart")
def cart_add(request: HtmxHttpRequest) -> HttpResponse:
    form = DomainNameForm(request.POST)
    if not form.is_valid():
        return _added(request, ok=False, message=str(form.errors["domain_name"][0]), domain_name="")
    name = form.cleaned_data["domain_name"]
    basket = Cart(request.session)
    if name in basket:
        return _added(
            request,
            ok=True,
            message=gettext("%(domain)s is already in your cart.") % {"domain": domain_to_unicode(name)},
            domain_name=name,
        )
    if len(basket) >= MAX_LINES:
        message = gettext("Your cart holds up to %(limit)d domains. Check out or remove one first.") % {
            "limit": MAX_LINES
        }
        return _added(request, ok=False, message=message, domain_name=name)
    try:
        row = _lookup(name)
    except GatewayError as err:
        return _added(request, ok=False, message=provider_error(err), domain_name=name)
    problem = _why_not_buyable(name, row)
    if problem:
        return _added(request, ok=False, message=problem, domain_name=name)
    line = line_quote(book=price_book(tlds=[name.rpartition(".")[2]]), domain_name=name)
    if line is None:
        return _added(
            request,
            ok=False,
            message=gettext("%(domain)s is not sold here.") % {"domain": domain_to_unicode(name)},
            domain_name=name,
        )
    basket.put(line)
    return _added(
        request,
        ok=True,
        message=gettext("%(domain)s is in your cart.") % {"domain": domain_to_unicode(name)},
        domain_name=name,
    )


@acting_allowed
@require_POST
def cart_remove(request: HtmxHttpRequest) -> HttpResponse:
    name = normalise_domain(request.POST.get("domain_name", ""))
    if Cart(request.session).remove(name):
        messages.success(
            request, gettext("%(domain)s was removed from your cart.") % {"domain": domain_to_unicode(name)}
        )
    if request.htmx:
        return _render_cart(request, fragment=True)
    return redirect("cart")


@acting_allowed
@require_POST
def cart_update(request: HtmxHttpRequest) -> HttpResponse:
    basket = Cart(request.session)
    name = normalise_domain(request.POST.get("domain_name", ""))
    line = basket.get(name)
    if line is None:
        messages.error(request, gettext("That domain is not in your cart any more."))
        if request.htmx:
            return _render_cart(request, fragment=True)
        return redirect("cart")
    form = DurationForm(request.POST, line=line)
    if not form.is_valid():
        errors: dict[str, Any] = {name: form.errors.get("duration") or form.errors.get("domain_name")}
        if request.htmx:
            return _render_cart(request, fragment=True, errors=errors)
        return _render_cart(request, errors=errors, status=400)
    # A new term is a new quote: the line's price is always the one for its term.
    book = price_book(tlds=[line.tld])
    priced = line_quote(book=book, domain_name=name, duration=form.cleaned_data["duration"], min_term=line.min_term)
    if priced is None or priced.duration != form.cleaned_data["duration"]:
        errors = {
            name: [
                gettext("%(domain)s cannot be bought for that term any more. Remove it or choose another term.")
                % {"domain": domain_to_unicode(name)}
            ]
        }
        if request.htmx:
            return _render_cart(request, fragment=True, errors=errors)
        return _render_cart(request, errors=errors, status=400)
    # WHOIS privacy added to the line stays added, priced for the new term (dropped only if no longer sold).
    basket.put(line_with_privacy(priced, privacy=True) or priced if line.privacy is not None else priced)
    if request.htmx:
        return _render_cart(request, fragment=True)
    return redirect("cart")


@acting_allowed
@require_POST
def cart_privacy(request: HttpRequest) -> HttpResponse:
    """Add WHOIS privacy to a line, or take it off (the checkout's and the cart's box), then show that page again."""
    form = PrivacyForm(request.POST)
    back = (form.is_valid() and form.cleaned_data["next"]) or "cart"
    basket = Cart(request.session)
    line = basket.get(normalise_domain(request.POST.get("domain_name", "")))
    if line is None:
        messages.error(request, gettext("That domain is not in your cart any more."))
        return redirect(back)
    changed = line_with_privacy(line, privacy=form.is_valid() and form.cleaned_data["privacy"])
    if changed is None:
        messages.error(request, gettext("WHOIS privacy cannot be added to this domain right now."))
    else:
        basket.put(changed)
    return redirect(back)


@acting_allowed
@require_POST
@rate_limit("promotion_code")
def cart_promotion(request: HtmxHttpRequest) -> HttpResponse:
    """Apply a promotion code to the cart, or take it off; the cart says what happened beside the code field."""
    form = PromotionCodeForm(request.POST)
    error = ""
    if not form.is_valid():
        error = str(next(iter(form.errors.values()))[0])
    elif form.cleaned_data["remove"]:
        cart_code_remove(request.session)
        messages.success(request, gettext("The promotion code was removed."))
    else:
        customer = customer_for_user(request.user)
        try:
            cart_code_enter(request.session, form.cleaned_data["code"], customer_id=customer.pk if customer else None)
        except PromotionRefused as refused:
            error = refused.message
        else:
            messages.success(request, gettext("The code %(code)s is applied.") % {"code": cart_code(request.session)})
    if error:  # htmx swaps only a 2xx answer: the fragment with the error, else the page with a 400
        return _render_cart(
            request, fragment=bool(request.htmx), promotion_error=error, status=200 if request.htmx else 400
        )
    if request.htmx:
        return _render_cart(request, fragment=True)
    return redirect("cart")


def _lookup(name: str) -> Buyable | None:
    # The answer without AI suggestions: adding to the cart never waits for MetaSearch's slow AI. While MetaSearch
    # cannot answer, the availability endpoint says whether the name can be bought (search falls back to it too).
    try:
        answer = metasearch_cached(name)
    except (Unavailable, RateLimited):
        return availability_of([name]).get(name)
    return next((row for row in answer.results if row.domain_name.lower() == name), None)


def _why_not_buyable(name: str, row: Buyable | None) -> str:
    reason = why_not_buyable(row)
    if reason == "not_found":
        return gettext("We could not find %(domain)s. Search for it again.") % {"domain": domain_to_unicode(name)}
    if reason == "premium":
        return gettext("%(domain)s is a premium name and cannot be bought here.") % {"domain": domain_to_unicode(name)}
    if reason == "taken":
        return gettext("%(domain)s is already taken.") % {"domain": domain_to_unicode(name)}
    return ""


def _added(request: HtmxHttpRequest, *, ok: bool, message: str | ProviderError, domain_name: str) -> HttpResponse:
    if request.htmx:
        context = {"ok": ok, "message": message, "domain_name": domain_name}
        return render(request, "domains/_cart_added.html", context)
    (messages.success if ok else messages.error)(request, str(message))
    back = safe_next(request, request.headers.get("referer", ""))
    if back:
        return redirect(back)
    return redirect("cart")


def _render_cart(
    request: HttpRequest,
    *,
    fragment: bool = False,
    errors: dict[str, Any] | None = None,
    status: int = 200,
    promotion_error: str = "",
) -> HttpResponse:
    basket = Cart(request.session)
    basket.in_shown_currency()
    promotion_note = ""
    if cart_code(request.session):  # worked out again for the lines as they are now (terms, prices, uses)
        customer = customer_for_user(request.user)
        promotion_note = cart_promotion_apply(request.session, customer_id=customer.pk if customer else None)[2]
    lines = basket.lines()
    context = {
        "promotion_code": cart_code(request.session),
        "promotion_error": promotion_error or promotion_note,
        "lines": [{"line": line, "errors": (errors or {}).get(line.domain_name)} for line in lines],
        "totals": basket.totals(),
        "oob_count": fragment,
        "checkout_url": reverse("checkout"),
    }
    template = "domains/_cart.html" if fragment else "domains/cart.html"
    return render(request, template, context, status=status)
