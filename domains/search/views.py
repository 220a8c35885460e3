"""`/search/?q=`: the results page, or only its results fragment for an htmx request.

`/search/suggestions/?q=`: the AI suggestions block, which the results load in a second request (htmx) so that
the results never wait for MetaSearch's slow AI.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape as html_escape
from typing import Any, Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils.cache import patch_vary_headers
from django.utils.functional import Promise
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.http import require_safe

from domains.cart.basket import Cart
from domains.search.forms import SearchForm
from domains.search.services import (
    BadTerm,
    SearchTerm,
    ai_suggestions_cached,
    ai_suggestions_if_cached,
    fallback_availability,
    metasearch_cached,
    orders_owned_among,
    partner_tlds,
    search_term_parse,
)
from pricing.quotes import PriceBook, display_price_book
from storefront.gateway import (
    DomainResult,
    GatewayError,
    MetaSearch,
    MetaSearchResult,
    Unauthorized,
    Unavailable,
    ValidationRejected,
)
from storefront.requests.acting_rules import acting_allowed
from storefront.requests.provider_errors import provider_error
from storefront.requests.request_helpers import HtmxHttpRequest, is_fragment
from storefront.resilience.ratelimit import rate_limit
from storefront.site.domain_names import domain_both_forms, domain_to_unicode
from storefront.site.lookalikes import lookalike_kind

logger = logging.getLogger(__name__)

# Rows of the results list shown before "Show N more" (MetaSearch counts the rest in `results_hidden`).
VISIBLE_RESULTS = 10

DOWN_MESSAGE = gettext_lazy("Search is unavailable right now. Please try again in a moment.")

# MetaSearch takes at most this many characters; a longer full domain is searched by its label.
METASEARCH_MAX = 63

MORE_DOMAINS = gettext_lazy("More domains")
EMPTY_MESSAGE = gettext_lazy("Type a name to search for, like bluebird, or a full domain like bluebird.com.")


@acting_allowed
@require_safe
@rate_limit("search")
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    query = request.GET.get("q", "").strip()
    context: dict[str, Any] = {
        "form": form,
        "query": query,
        "state": "blank",
        # Named though empty: the template engine's miss of a name raises and logs inside, on every search.
        "listing": None,
        "not_sold": "",
    }
    if not form.is_valid():
        context.update(state="error", error=form.errors["q"][0])
    elif form.cleaned_data["q"]:
        context.update(_results(form.cleaned_data["q"], seen=_seen_by(request)))
    elif "q" in request.GET:
        # Search pressed on an empty box: say what to type rather than do nothing.
        context.update(state="prompt", message=EMPTY_MESSAGE)

    # htmx asks for the whole page when restoring history it no longer holds, and on boosted links.
    response: HttpResponse
    if is_fragment(request):
        # The fragment reads nothing the context processors add (the brand, the cart count, messages and the CSRF
        # token are the page's): it is drawn without them, given the request. A search as the customer types is
        # mostly this fragment.
        context["request"] = request
        response = HttpResponse(render_to_string("domains/_search_results.html", context))
    else:
        response = render(request, "domains/search.html", context)
    # The same URL answers a page or a fragment: caches must key on the header that tells them apart.
    patch_vary_headers(response, ("HX-Request",))
    return response


@acting_allowed
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
    signed-in customer's domains (our copy of their order listing) among the names shown, with each one's order id."""

    in_cart: frozenset[str] = frozenset()
    user_id: int | None = None
    owned: dict[str, int] = field(default_factory=dict)

    def among(self, names: Iterable[str]) -> Seen:
        """The same visitor, with which of these names they own: one query bounded by the names shown, however
        many domains the customer has."""
        if self.user_id is None:
            return self
        owned = orders_owned_among(self.user_id, {name.lower() for name in names})
        return Seen(in_cart=self.in_cart, user_id=self.user_id, owned=owned)


def _seen_by(request: HttpRequest) -> Seen:
    in_cart = frozenset(line.domain_name for line in Cart(request.session).lines())
    return Seen(in_cart=in_cart, user_id=request.user.pk if request.user.is_authenticated else None)


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
    seen = seen.among(result.domain_name for result in found)
    return _ai_rows(tuple(_row(result, book=book, seen=seen) for result in found))


def _ai_rows(rows: tuple[Row, ...]) -> dict[str, Any]:
    return {"ai_state": "loaded", "ai_rows": rows, "ai_rows_html": rows_html(rows)}


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
        context["not_sold"] = domain_to_unicode(not_sold)
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
    names = _names_shown(answer, cached)
    seen = seen.among(names)
    # AI suggestions already asked for (a repeated search, going back) are shown at once; otherwise the block
    # asks for them itself once the results are on screen.
    return {
        "state": "results",
        "searched": domain_both_forms(term.domain),
        "ai_state": "loading" if cached is None else "loaded",
        "listing_html": _listing_block(
            answer, cached=cached, book=book, asked=asked, exact=exact, seen=seen, names=names
        ),
    }


def _names_shown(answer: MetaSearch, cached: list[MetaSearchResult] | None) -> frozenset[str]:
    return frozenset(result.domain_name.lower() for result in (*answer.results, *(cached or ())))


def _listing(
    answer: MetaSearch, *, cached: list[MetaSearchResult] | None, book: PriceBook, asked: str, exact: str, seen: Seen
) -> dict[str, Any]:
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
    ai: dict[str, Any]
    if cached is None:
        ai = {"ai_state": "loading", "ai_url": f"{reverse('search_suggestions')}?{urlencode({'q': asked})}"}
    else:
        ai = _ai_rows(tuple(_row(result, book=book, seen=seen) for result in cached))
    return {"listing": listing, **ai}


# The HTML of an answer's rows and AI block, kept per process for as long as the answer, the price book and the AI
# suggestions are the same objects (this process's copies: up to 10 s), per language, script prefix and what the
# visitor has among the names shown (in the cart, their own domains). Many customers searching a name as they
# type, or one visitor's repeated search, draw it once; nothing from the request is in it (the CSRF token is
# outside). Each entry holds its answer, so an entry is only ever matched by the very object it was drawn for.
_LISTING_BLOCKS_MAX = 512
_listing_blocks: OrderedDict[tuple[object, ...], tuple[MetaSearch, PriceBook, object, SafeString]] = OrderedDict()
_listing_blocks_lock = threading.Lock()


def _listing_block(
    answer: MetaSearch,
    *,
    cached: list[MetaSearchResult] | None,
    book: PriceBook,
    asked: str,
    exact: str,
    seen: Seen,
    names: frozenset[str],
) -> SafeString:
    owned = tuple(sorted(seen.owned.items()))
    key = (id(answer), id(cached), asked, exact, get_language(), get_script_prefix(), seen.in_cart & names, owned)
    with _listing_blocks_lock:
        found = _listing_blocks.get(key)
        if found is not None and found[0] is answer and found[1] is book and found[2] is cached:
            _listing_blocks.move_to_end(key)
            return found[3]
    context = _listing(answer, cached=cached, book=book, asked=asked, exact=exact, seen=seen)
    html = mark_safe(render_to_string("domains/_search_listing.html", context))  # noqa: S308 - the template escapes
    if not settings.DEBUG:  # templates may change while a development server runs
        with _listing_blocks_lock:
            _listing_blocks[key] = (answer, book, cached, html)
            while len(_listing_blocks) > _LISTING_BLOCKS_MAX:
                _listing_blocks.popitem(last=False)
    return html


def search_listings_forget() -> None:
    """Forget the drawn listings (tests start each from nothing)."""
    with _listing_blocks_lock:
        _listing_blocks.clear()


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
    seen = seen.among(row.domain_name for row in rows)
    exact = term.domain if term.tld else ""
    shown = tuple(_row(row, book=book, seen=seen, mine=row.domain_name == exact) for row in rows)
    listing = Listing(shown=shown, title=gettext("Availability"))
    return {"state": "fallback", "listing": listing, "searched": domain_both_forms(term.domain)}


Status = Literal["available", "premium", "unpriced", "taken", "yours", "in_cart"]


@dataclass(frozen=True)
class Row:
    """One domain of the results, and its HTML."""

    domain: str  # the A-label form: what is added to the cart and sent to the provider
    status: Status
    price: str  # the storefront's own price text from retail prices; empty when not for sale here
    free_first_year: bool
    mine: bool  # the exact domain the customer typed
    featured: bool = False
    order_id: int | None = None  # the customer's own order of this domain ("yours")
    unicode: str = ""  # the name as a person reads it (`café.com`) when it differs from `domain`
    restriction: str = ""  # the TLD registry's requirements, from the provider's catalogue, when it names any
    lookalike: str = ""  # "mixed" or "latin" when it can be mistaken for another name (storefront/site/lookalikes.py)

    @property
    def shown(self) -> str:
        return self.unicode or self.domain

    @property
    def html(self) -> SafeString:
        return search_row_html(self)


@dataclass(frozen=True)
class Listing:
    """Every row of one answer, in the blocks they are shown in."""

    shown: tuple[Row, ...]
    hero: Row | None = None
    more: tuple[Row, ...] = ()
    more_count: int = 0
    title: str | Promise = MORE_DOMAINS

    @property
    def rows(self) -> tuple[Row, ...]:
        return ((self.hero,) if self.hero else ()) + self.shown + self.more

    @property
    def total(self) -> int:
        """The rows of this answer, for the one sentence a screen reader hears once it has settled."""
        return len(self.rows)

    @property
    def available(self) -> int:
        return sum(1 for row in self.rows if row.status == "available")

    @property
    def hero_html(self) -> SafeString:
        return rows_html((self.hero,) if self.hero else ())

    @property
    def shown_html(self) -> SafeString:
        return rows_html(self.shown)

    @property
    def more_html(self) -> SafeString:
        return rows_html(self.more)


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
    price, free_first_year = book.display_facts(tld=tld)
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
    return Row(
        domain=result.domain_name,
        status=status,
        price=price,
        free_first_year=free_first_year,
        mine=mine,
        featured=featured,
        order_id=order_id,
        unicode=_unicode_form(result.domain_name),
        restriction=book.restriction(tld=tld) if status in ("available", "in_cart", "unpriced") else "",
        lookalike=lookalike_kind(result.domain_name),
    )


def _unicode_form(name: str) -> str:
    shown = domain_to_unicode(name)
    return shown if shown != name else ""


# A row's HTML comes from its template, drawn once per shape (status, featured, the typed name, first year free, a
# link to the customer's order), language and script prefix in this process with placeholders for the row's own
# values; each row then gets its name, price and order id put in their places, escaped as the template escapes them.
# A new search's thirty rows would otherwise each go through the template engine (a fifth of an uncached search's
# time, measured with bench/profile_search.py). With DEBUG on, templates can change while the process runs: each
# shape is drawn afresh.
_ROW_TEMPLATE = "domains/_search_row.html"
_DOMAIN, _PRICE, _ORDER_ID = "rowdomainplaceholder", "rowpriceplaceholder", 918273645546372819
_UNICODE = "rowunicodeplaceholder"
_RESTRICTION = "rowrestrictionplaceholder"
# Each shape is kept split at its placeholders (the group keeps them: text, placeholder, text, …), so a row is one
# join of its parts and values: a value put in is never scanned again, whatever it holds.
_PLACEHOLDERS = re.compile(f"({_DOMAIN}|{_PRICE}|{_ORDER_ID}|{_UNICODE}|{_RESTRICTION})")


def search_row_html(row: Row) -> SafeString:
    return rows_html((row,))


def rows_html(rows: Iterable[Row]) -> SafeString:
    """The rows' HTML, one after the other."""
    language, prefix = get_language(), get_script_prefix()
    return mark_safe("".join(_row_html(row, language, prefix) for row in rows))  # noqa: S308 - values escaped


def _row_html(row: Row, language: str | None, prefix: str) -> str:
    shape = (_row_shape.__wrapped__ if settings.DEBUG else _row_shape)(
        row.status, row.featured, row.mine, row.free_first_year, row.order_id is not None, bool(row.unicode),
        row.lookalike, language, prefix, bool(row.restriction),
    )  # fmt: skip
    values = {
        _DOMAIN: html_escape(row.domain),
        _PRICE: html_escape(row.price),
        str(_ORDER_ID): str(row.order_id),
        _UNICODE: html_escape(row.unicode),
        _RESTRICTION: html_escape(row.restriction),
    }
    parts = list(shape)
    for index in range(1, len(parts), 2):
        parts[index] = values[parts[index]]
    return "".join(parts)


@functools.lru_cache(maxsize=512)
def _row_shape(
    status: Status,
    featured: bool,
    mine: bool,
    free_first_year: bool,
    linked: bool,
    internationalised: bool,
    lookalike: str,
    language: str | None,
    prefix: str,
    restricted: bool = False,
) -> tuple[str, ...]:
    # The language and prefix are in the key; the template reads them from the active ones.
    model = Row(
        domain=_DOMAIN,
        status=status,
        price=_PRICE,
        free_first_year=free_first_year,
        mine=mine,
        featured=featured,
        order_id=_ORDER_ID if linked else None,
        unicode=_UNICODE if internationalised else "",
        restriction=_RESTRICTION if restricted else "",
        lookalike=lookalike,
    )
    return tuple(_PLACEHOLDERS.split(render_to_string(_ROW_TEMPLATE, {"row": model}).strip()))
