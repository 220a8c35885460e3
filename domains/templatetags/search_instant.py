"""The price list a search page carries, so that search.js draws the typed name across the store's extensions on
each key, priced at once, while availability and MetaSearch's ranking are still on their way (issue 41).

Read from the display price book (one copy per process, at most DISPLAY_BOOK_SECONDS old): no provider call and,
on a warm process, no query. Only prices are known here: availability says "checking…" until the answer lands.
"""

from __future__ import annotations

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from pricing.quotes import display_price_book

register = template.Library()

# The featured result and the ten rows shown before "Show N more" (domains/search/views.py: VISIBLE_RESULTS).
INSTANT_ROWS = 11
# The extension most customers look for first leads, as MetaSearch's featured row usually does; the rest follow
# in a stable order so the rows do not jump about from one key to the next.
LEADING = ("com",)


def instant_price_list() -> list[dict[str, object]]:
    """The store's priced extensions for the typed-name rows: extension, price line, first year free."""
    book = display_price_book()
    tlds = sorted(book.costs, key=lambda tld: (tld not in LEADING, LEADING.index(tld) if tld in LEADING else 0, tld))
    shown: list[dict[str, object]] = []
    for tld in tlds:
        price, free = book.display_facts(tld=tld)
        if price:  # an extension without a retail price is not sold here: nothing to draw before the answer
            shown.append({"tld": tld, "price": price, "free": free})
        if len(shown) == INSTANT_ROWS:
            break
    return shown


@register.simple_tag
def search_price_list() -> SafeString:
    return json_script(instant_price_list(), "search-price-list")
