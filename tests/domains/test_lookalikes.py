"""Look-alike names (UTS 39): a label mixing scripts, or written wholly in another script with letters that look like
plain Latin ones, is sold with a clear warning before purchase (search row, cart, checkout), never refused."""

from __future__ import annotations

import pytest

from storefront.site.domain_names import domain_to_ascii
from storefront.site.lookalikes import lookalike_kind
from tests.domains.checkout.test_checkout import fresh
from tests.domains.conftest import line, put_in_cart
from tests.domains.search.test_search import fragment
from tests.domains.search.test_search_idn import rows

# Written as code points so the test reads plainly: Cyrillic a U+0430, es U+0441, o U+043E.
CYRILLIC_A_APPLE = "\u0430pple.com"  # a Cyrillic "a", then Latin "pple"
SHOP_CART = "shop\u0441art.com"  # a Cyrillic "es" among Latin letters
COCO = "\u0441\u043e\u0441\u043e.com"  # all Cyrillic, every letter looking Latin: "coco"
MIXED_WARNING = "this name mixes alphabets whose letters look the same"
LATIN_WARNING = "letters that look like English ones"


pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (CYRILLIC_A_APPLE, "mixed"),
        (SHOP_CART, "mixed"),
        (COCO, "latin"),
        ("apple.com", ""),
        ("café.com", ""),  # Latin with an accent: one script
        ("\u043c\u043e\u0441\u043a\u0432\u0430.\u0440\u0444", ""),  # москва.рф: Cyrillic, not posing as Latin
        ("\u4f8b\u3048.jp", ""),  # Han and Hiragana: Japanese, an allowed mix
        ("\ud55c\uad6d\uc5b4.kr", ""),  # Hangul
    ],
)
def test_the_kind_of_look_alike(name, kind):
    assert lookalike_kind(domain_to_ascii(name)) == kind


def test_the_search_row_warns_about_a_mixed_script_name(client, seeded_partner):
    html = fragment(client, SHOP_CART).content.decode()
    (row,) = [row for row in rows(html) if "Your search" in row]
    assert MIXED_WARNING in row
    assert 'name="domain_name" value="' + domain_to_ascii(SHOP_CART) + '"' in row  # still sold
    plain = fragment(client, "shopcart.com").content.decode()
    assert MIXED_WARNING not in plain


def test_the_cart_and_the_checkout_warn_before_purchase(client, seeded_partner):
    put_in_cart(client, line(domain_to_ascii(COCO)), line(fresh()))
    cart = client.get("/cart/").content.decode()
    assert cart.count(LATIN_WARNING) == 1
    review = client.get("/checkout/").content.decode()
    assert review.count(LATIN_WARNING) == 1


def test_the_warning_is_in_spanish_for_a_spanish_customer(client, seeded_partner):
    put_in_cart(client, line(domain_to_ascii(CYRILLIC_A_APPLE)))
    cart = client.get("/cart/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "este nombre mezcla alfabetos" in cart and MIXED_WARNING not in cart
