"""The search result rows (templates/domains/_search_row.html, drawn per shape, Row.html): every value is escaped.

The page tests (test_escaping.py) feed markup through MetaSearch; this one builds each kind of row directly with
markup in every value that reaches the HTML (the name, the price text), so that dropping any one escape fails.
"""

from __future__ import annotations

import pytest

from domains.search.views import Row

SCRIPT = '<script>alert("xss")</script>'
ESCAPED = "&lt;script&gt;alert("


@pytest.mark.parametrize("status", ["available", "in_cart", "premium", "unpriced", "taken", "yours"])
@pytest.mark.parametrize("featured", [False, True])
def test_every_row_shows_markup_as_text(status, featured):
    row = Row(
        domain=f"a{SCRIPT}.com",
        status=status,
        price=f"$1{SCRIPT}",
        free_first_year=True,
        mine=True,
        featured=featured,
        order_id=123456789,
    )

    html = str(row.html)

    assert "<script>" not in html, "a value is rendered as markup"
    assert ESCAPED in html, "the name is not shown at all"
    if status in ("available", "in_cart"):
        assert f"$1{ESCAPED}" in html  # the price text, escaped too
    if status == "available":
        # The name, the price, and the add button's value attribute and label for screen readers.
        assert html.count(ESCAPED) == 4
    if status == "yours":
        assert html.count(ESCAPED) == 2  # the name and the Manage link's hidden label


def test_a_row_drawn_from_its_shape_is_the_row_its_template_draws():
    from django.template.loader import render_to_string

    from domains.search.views import search_row_html

    for status in ("available", "in_cart", "premium", "unpriced", "taken", "yours"):
        row = Row(
            domain="blue-bird.com",
            status=status,
            price="$12.99 first year",
            free_first_year=status == "available",
            mine=status == "taken",
            featured=status == "in_cart",
            order_id=987654 if status == "yours" else None,
        )
        assert str(search_row_html(row)) == render_to_string("domains/_search_row.html", {"row": row}).strip()
