"""`/search/?q=`: the results page, or only its results fragment for an htmx request.

`/search/suggestions/?q=`: the AI suggestions block, which the results load in a second request (htmx) so that
the results never wait for MetaSearch's slow AI.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import get_script_prefix, reverse
from django.utils.cache import patch_vary_headers
from django.utils.functional import Promise
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.http import require_safe

from domains.cart.basket import Cart
from domains.models import Order
from domains.search.forms import SearchForm
from domains.search.services import (
    BadTerm,
    SearchTerm,
    ai_suggestions_cached,
    ai_suggestions_if_cached,
    fallback_availability,
    metasearch_cached,
    partner_tlds,
    search_term_parse,
)
from pricing.models import Operation
from pricing.quotes import PriceBook, display_price_book
from storefront.gateway import (
    DomainResult,
    GatewayError,
    MetaSearchResult,
    Unauthorized,
    Unavailable,
    ValidationRejected,
)
from storefront.provider_errors import provider_error
from storefront.ratelimit import rate_limit
from storefront.request_helpers import HtmxHttpRequest, is_fragment

logger = logging.getLogger(__name__)

# Rows of the results list shown before "Show N more" (MetaSearch counts the rest in `results_hidden`).
VISIBLE_RESULTS = 10

DOWN_MESSAGE = gettext_lazy("Search is unavailable right now. Please try again in a moment.")

# MetaSearch takes at most this many characters; a longer full domain is searched by its label.
METASEARCH_MAX = 63

MORE_DOMAINS = gettext_lazy("More domains")
EMPTY_MESSAGE = gettext_lazy("Type a name to search for, like bluebird, or a full domain like bluebird.com.")


@require_safe
@rate_limit("search")
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    query = request.GET.get("q", "").strip()
    context: dict[str, Any] = {"form": form, "query": query, "state": "blank", "cart_add_url": reverse("cart_add")}
    if not form.is_valid():
        context.update(state="error", error=form.errors["q"][0])
    elif form.cleaned_data["q"]:
        context.update(_results(form.cleaned_data["q"], seen=_seen_by(request)))
    elif "q" in request.GET:
        # Search pressed on an empty box: say what to type rather than do nothing.
        context.update(state="prompt", message=EMPTY_MESSAGE)

    # htmx asks for the whole page when restoring history it no longer holds, and on boosted links.
    fragment = is_fragment(request)
    template = "domains/_search_results.html" if fragment else "domains/search.html"
    response = render(request, template, context)
    # The same URL answers a page or a fragment: caches must key on the header that tells them apart.
    patch_vary_headers(response, ("HX-Request",))
    return response


@require_safe
@rate_limit("search")
def search_suggestions(request: HtmxHttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    term = ""
    if form.is_valid() and form.cleaned_data["q"]:
        try:
            term = search_term_parse(typed=form.cleaned_data["q"]).domain
        except BadTerm:
            pass  # the results above already say why; no ideas for a name that cannot be one
    if not request.htmx:
        # Only the results page asks for this block; a person who opens the address gets that page.
        response: HttpResponse = redirect(f"{reverse('search')}?{urlencode({'q': request.GET.get('q', '')})}")
    else:
        response = render(request, "domains/_search_ai.html", _ai_block(term, seen=_seen_by(request)))
    patch_vary_headers(response, ("HX-Request",))
    return response


@dataclass(frozen=True)
class Seen:
    """What this visitor already has, so rows say so without asking the provider: the session's cart, and the
    signed-in customer's domains (our copy of their order listing) by name, with each one's order id."""

    in_cart: frozenset[str] = frozenset()
    owned: dict[str, int] = field(default_factory=dict)


def _seen_by(request: HttpRequest) -> Seen:
    in_cart = frozenset(line.domain_name for line in Cart(request.session).lines())
    owned: dict[str, int] = {}
    if request.user.is_authenticated:
        orders = Order.objects.filter(customer__user=request.user).values_list("domain_name", "order_id")
        owned = {name.lower(): order_id for name, order_id in orders}
    return Seen(in_cart=in_cart, owned=owned)


def _ai_block(term: str, *, seen: Seen) -> dict[str, Any]:
    if not term:
        return {"ai_state": "loaded", "ai_rows": ()}
    try:
        found = ai_suggestions_cached(term)
    except GatewayError as err:
        # Quietly: the results above are complete without these ideas.
        logger.info("search: AI suggestions unavailable (%s)", type(err).__name__)
        return {"ai_state": "unavailable", "ai_rows": ()}
    book = display_price_book()
    return {"ai_state": "loaded", "ai_rows": tuple(_row(result, book=book, seen=seen) for result in found)}


def _tld_of(result: MetaSearchResult | DomainResult) -> str:
    return (result.tld or result.domain_name.rpartition(".")[2]).lower().lstrip(".")


def _results(typed: str, *, seen: Seen) -> dict[str, Any]:
    try:
        term = search_term_parse(typed=typed)
    except BadTerm as err:
        return {"state": "rejected", "error": err.message}
    not_sold = _not_sold(term)
    if not_sold:
        # Searched by the name alone: the customer sees it with the extensions that are sold.
        term = SearchTerm(label=term.label)
    context = _answer(term, seen=seen)
    if not_sold:
        context["not_sold"] = not_sold
    return context


def _not_sold(term: SearchTerm) -> str:
    """The typed extension when the partner does not sell it, else "" (also when its price list is unreadable:
    MetaSearch then answers without a row for the exact name, which is shown as it is)."""
    if not term.tld:
        return ""
    try:
        sold = partner_tlds()
    except GatewayError as err:
        logger.info("search: could not read the partner's TLDs (%s)", type(err).__name__)
        return ""
    return "" if term.tld in sold else term.tld


def _answer(term: SearchTerm, *, seen: Seen) -> dict[str, Any]:
    # MetaSearch takes 63 characters at most; a longer full domain (its label alone may be 63) is searched by
    # its label, and its row is found among the extensions listed.
    asked = term.domain if len(term.domain) <= METASEARCH_MAX else term.label
    exact = term.domain if term.tld else ""
    try:
        answer = metasearch_cached(asked)
    except ValidationRejected as err:
        return {"state": "rejected", "error": provider_error(err)}
    except Unauthorized as err:
        # Staff need to know the key was refused; the customer only that search is unavailable.
        logger.error("search: provider refused the storefront's key (%s)", err.status)
        return {"state": "error", "error": provider_error(err, what=gettext_lazy("search for domains"))}
    except Unavailable:
        return _fallback(term, seen=seen)
    except GatewayError as err:
        return {"state": "error", "error": provider_error(err, what=gettext_lazy("search for domains"))}

    if not answer.results:
        return {"state": "empty", "message": answer.message or gettext("No domains found for that search.")}
    cached = ai_suggestions_if_cached(asked)
    # One price book for every TLD on the page: a few queries, whatever the number of rows.
    book = display_price_book()
    # Only the name typed is "Your search" (MetaSearch marks the name it searched after its own clean-up).
    listed = tuple(
        sorted(
            (_row(result, book=book, seen=seen, mine=result.domain_name == exact) for result in answer.listed),
            key=lambda row: not row.mine,
        )
    )
    hero = answer.hero
    listing = Listing(
        hero=_row(hero, book=book, seen=seen, featured=True, mine=hero.domain_name == exact) if hero else None,
        shown=listed[:VISIBLE_RESULTS],
        more=listed[VISIBLE_RESULTS:],
        more_count=answer.results_hidden or len(listed[VISIBLE_RESULTS:]),
    )
    # AI suggestions already asked for (a repeated search, going back) are shown at once; otherwise the block
    # asks for them itself once the results are on screen.
    ai: dict[str, Any]
    if cached is None:
        ai = {"ai_state": "loading", "ai_url": f"{reverse('search_suggestions')}?{urlencode({'q': asked})}"}
    else:
        ai = {"ai_state": "loaded", "ai_rows": tuple(_row(result, book=book, seen=seen) for result in cached)}
    return {"state": "results", "searched": term.domain, "listing": listing, **ai}


def _fallback(term: SearchTerm, *, seen: Seen) -> dict[str, Any]:
    try:
        rows = fallback_availability(term.domain)
    except ValidationRejected as err:
        return {"state": "error", "error": provider_error(err)}
    except GatewayError as err:
        return {"state": "error", "error": provider_error(err, what=gettext_lazy("search for domains"))}
    if not rows:
        return {"state": "error", "error": DOWN_MESSAGE}
    book = display_price_book()
    exact = term.domain if term.tld else ""
    shown = tuple(_row(row, book=book, seen=seen, mine=row.domain_name == exact) for row in rows)
    listing = Listing(shown=shown, title=gettext("Availability"))
    return {"state": "fallback", "listing": listing, "searched": term.domain}


Status = Literal["available", "premium", "unpriced", "taken", "yours", "in_cart"]


@dataclass(frozen=True)
class Row:
    """One domain of the results, and its HTML."""

    domain: str
    status: Status
    price: str  # the storefront's own price text from retail prices; empty when not for sale here
    free_first_year: bool
    mine: bool  # the exact domain the customer typed
    featured: bool = False
    order_id: int | None = None  # the customer's own order of this domain ("yours")

    @property
    def html(self) -> SafeString:
        return _row_html(self)


@dataclass(frozen=True)
class Listing:
    """Every row of one answer, in the blocks they are shown in."""

    shown: tuple[Row, ...]
    hero: Row | None = None
    more: tuple[Row, ...] = ()
    more_count: int = 0
    title: str | Promise = MORE_DOMAINS


def _row(
    result: MetaSearchResult | DomainResult,
    *,
    book: PriceBook,
    seen: Seen,
    mine: bool = False,
    featured: bool = False,
) -> Row:
    """The row of one result, priced from our retail prices: the provider's own price and text are never shown."""
    name = result.domain_name.lower()
    tld = _tld_of(result)
    price = book.price_text(tld=tld) or ""
    order_id = seen.owned.get(name)
    if order_id is not None:
        status: Status = "yours"
    elif result.premium:
        status = "premium"
    elif not result.sellable:
        status = "taken"
    elif not price:
        status = "unpriced"  # the provider sells it, but we have no cost for it, so no retail price
    elif name in seen.in_cart:
        status = "in_cart"
    else:
        status = "available"
    first_year = book.retail_price(tld=tld, operation=Operation.REGISTER, years=1)
    return Row(
        domain=result.domain_name,
        status=status,
        price=price,
        free_first_year=bool(first_year and first_year.retail.is_zero),
        mine=mine,
        featured=featured,
        order_id=order_id,
    )


# A row's HTML is built here rather than in a template: a page has about thirty rows, and rendering them through
# the template engine was half of a search's CPU time. Every value is escaped (html.escape, as Django's escape
# does). The rows sit inside the results' one add-to-cart form (its CSRF token is in _search_results.html):
# each button posts its own domain_name, as a plain form or with htmx into the row's status element.
# The row's words, in the active language, worded once per language and process (the catalogues are compiled at
# build time and never change while the process runs): about thirty rows a page would otherwise look them all up.
@functools.lru_cache(maxsize=16)
def _words(language: str | None) -> dict[str, str]:
    # Looked up outside the f-strings: xgettext does not read calls inside them.
    not_sold, available = gettext("Not sold here"), gettext("Available")
    mine, free, premium = gettext("Your search"), gettext("First year free"), gettext("Premium")
    taken, yours, in_cart = gettext("Taken"), gettext("Yours"), gettext("In your cart ✓")
    return {
        "mine": f'<span class="badge badge-mine">{mine}</span>',
        "available": f'<span class="badge badge-ok">{available}</span>',
        "free_first_year": f'<span class="badge badge-free">{free}</span>',
        "premium": f'<span class="badge badge-warn">{premium}</span><span class="muted">{not_sold}</span>',
        "unpriced": f'<span class="badge badge-muted">{available}</span><span class="muted">{not_sold}</span>',
        "taken": f'<span class="badge badge-bad">{taken}</span>',
        "yours": f'<span class="badge badge-mine">{yours}</span>',
        "in_cart": f'<span class="badge badge-ok">{in_cart}</span>',
    }


def _row_html(row: Row) -> SafeString:
    domain = escape(row.domain)
    words = _words(get_language())
    action = ""
    prefix = get_script_prefix()
    if row.status in ("available", "in_cart"):
        free = words["free_first_year"] if row.free_first_year else ""
        badge = words["in_cart"] if row.status == "in_cart" else words["available"]
        price = f'{badge}{free}<span class="price">{escape(row.price)}</span>'
    elif row.status == "premium":
        price = words["premium"]
    elif row.status == "unpriced":
        price = words["unpriced"]
    elif row.status == "yours":
        price = words["yours"]
    else:
        price = words["taken"]
    if row.status == "available":
        button = "button" if row.featured else "button button-small"
        url = escape(_cart_add_url(prefix))
        add_label = gettext("Add %(domain)s to cart") % {"domain": f'<span class="visually-hidden">{domain}</span>'}
        action = (
            f'<button type="submit" name="domain_name" value="{domain}" class="{button}" hx-post="{url}" '
            f'hx-target="next .add-status" hx-disabled-elt="this">{add_label}</button>'
            '<span class="add-status" role="status"></span>'
        )
    elif row.status == "in_cart":
        view_cart = gettext("View cart")
        action = f'<a class="result-link" href="{escape(_cart_url(prefix))}">{view_cart}</a>'
    elif row.status == "yours" and row.order_id is not None:
        url = escape(_order_url(prefix, row.order_id))
        label = gettext("Manage %(domain)s") % {"domain": f'<span class="visually-hidden">{domain}</span>'}
        action = f'<a class="result-link" href="{url}">{label}</a>'
    classes = "result-row"
    if row.featured:
        classes += " result-row-featured"
    if row.mine:
        classes += " result-row-mine"
    mine = words["mine"] if row.mine else ""
    return mark_safe(  # noqa: S308 - our markup around escaped values
        f'<li class="{classes}"><div class="result-name"><span class="result-domain">{domain}</span>{mine}</div>'
        f'<div class="result-price">{price}</div><div class="result-action">{action}</div></li>'
    )


@lru_cache(maxsize=8)
def _cart_url(script_prefix: str) -> str:
    return reverse("cart")


def _order_url(script_prefix: str, order_id: int) -> str:
    return reverse("order_detail", kwargs={"order_id": order_id})


@lru_cache(maxsize=8)
def _cart_add_url(script_prefix: str) -> str:
    return reverse("cart_add")
