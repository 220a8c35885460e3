"""Names in any script: `café.com` is searched as its A-label and every row shows both forms."""

from __future__ import annotations

import re

import pytest

from tests.domains.search.test_search import HTMX, fragment, page

pytestmark = pytest.mark.django_db


def rows(html: str) -> list[str]:
    return re.findall(r'<li class="result-row.*?</li>', html, flags=re.S)


def idn_row(html: str, shown: str, ace: str) -> str:
    for row in rows(html):
        if f'<span class="result-domain">{shown}</span><span class="result-ace">{ace}</span>' in row:
            return row
    raise AssertionError(f"no row for {shown} / {ace}")


def test_an_accented_name_is_searched_as_its_a_label_and_shown_in_both_forms(client, seeded_partner, metasearch_calls):
    for response in (page(client, "café.com"), fragment(client, "CAFÉ.com")):
        html = response.content.decode()
        assert "not supported" not in html
        assert "Results for <strong>café.com (xn--caf-dma.com)</strong>" in html
        mine = idn_row(html, "café.com", "xn--caf-dma.com")
        assert "Your search" in mine
        assert "Available" in mine
        # The button adds the A-label, which is what the provider registers.
        assert 'name="domain_name" value="xn--caf-dma.com"' in mine
        assert "caf.com" not in html  # never the name with its accent dropped
    assert set(metasearch_calls) == {"xn--caf-dma.com"}


def test_coined_names_around_an_a_label_show_their_readable_form(client, seeded_partner):
    html = fragment(client, "café").content.decode()
    readable = [row for row in rows(html) if 'class="result-ace"' in row]
    assert len(readable) >= 2
    assert all("café" in row for row in readable)


def test_plain_names_have_no_second_form(client, seeded_partner):
    html = fragment(client, "bluebird.com").content.decode()
    assert "result-ace" not in html


@pytest.mark.parametrize(
    ("typed", "sentence"),
    [
        ("☕.com", "“☕” cannot be part of a domain name, in any script."),
        ("xn--zz.com", "xn--zz.com is not a valid internationalised domain name."),
    ],
)
def test_a_name_idna_refuses_is_said_plainly(client, seeded_partner, metasearch_calls, typed, sentence):
    html = fragment(client, typed).content.decode()
    assert sentence in html
    assert "result-row" not in html
    assert metasearch_calls == []


def test_the_cart_takes_the_readable_form_and_keeps_the_a_label(client, seeded_partner):
    response = client.post("/cart/add/", {"domain_name": "café.com"}, headers=HTMX)
    assert "In your cart" in response.content.decode()
    cart = client.get("/cart/").content.decode()
    assert 'café.com<span class="domain-ace">xn--caf-dma.com</span>' in cart
    assert 'name="domain_name" value="xn--caf-dma.com"' in cart


def test_the_cart_refuses_a_name_idna_refuses_with_its_sentence(client, seeded_partner):
    response = client.post("/cart/add/", {"domain_name": "☕.com"}, headers=HTMX)
    assert "“☕” cannot be part of a domain name, in any script." in response.content.decode()


def test_an_extension_in_another_script_that_is_not_sold_is_named_as_typed(client, seeded_partner, metasearch_calls):
    html = fragment(client, "café.рф").content.decode()
    assert "We don't sell .рф domains." in html
    assert metasearch_calls == ["xn--caf-dma"]


@pytest.mark.parametrize("typed", ["blue\x00bird.com", "blue\x07bird.com", "\x1bbluebird.com"])
def test_control_characters_typed_are_dropped_before_searching(client, seeded_partner, metasearch_calls, typed):
    html = fragment(client, typed).content.decode()
    assert "Null characters" not in html and "cannot contain" not in html
    assert set(metasearch_calls) == {"bluebird.com"}
