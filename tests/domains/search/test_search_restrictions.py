"""A TLD's registry requirements, known from the provider's catalogue, are said on its search rows."""

from __future__ import annotations

import pytest

from pricing.models import Tld
from pricing.quotes import display_price_book_forget
from tests.domains.search.test_search import fragment, page, row_of

pytestmark = pytest.mark.django_db


def test_a_restricted_tld_says_what_its_registry_asks_for_on_its_row(client, seeded_partner):
    Tld.objects.filter(name="io").update(restrictions="nexus_category: US nexus <category>")
    display_price_book_forget()
    for response in (page(client, "bluebird.io"), fragment(client, "bluebird.io")):
        html = response.content.decode()
        restricted = row_of(html, "bluebird.io")
        assert "The registry asks for: nexus_category: US nexus &lt;category&gt;" in restricted
        assert "Add <span" in restricted  # still offered: the refusal, if it comes, charges nothing
        assert "The registry asks for" not in row_of(html, "bluebird.com")


def test_spanish_rows_say_it_in_spanish(client, seeded_partner):
    Tld.objects.filter(name="io").update(restrictions="nexus_category")
    display_price_book_forget()
    html = client.get("/search/", {"q": "bluebird.io"}, headers={"Accept-Language": "es"}).content.decode()
    assert "El registro pide: nexus_category" in html
