"""storefront/site/domain_names.py: names in any script converted with IDNA 2008 / UTS 46, and shown in both forms."""

from __future__ import annotations

import pytest

from storefront.site.domain_names import (
    NotADomainName,
    domain_both_forms,
    domain_to_ascii,
    domain_to_unicode,
    is_internationalised,
)


@pytest.mark.parametrize(
    ("typed", "ascii_name"),
    [
        ("café.com", "xn--caf-dma.com"),
        ("CAFÉ.com", "xn--caf-dma.com"),  # UTS 46 maps upper case
        ("münchen.de", "xn--mnchen-3ya.de"),
        ("straße.de", "xn--strae-oqa.de"),  # IDNA 2008 keeps ß (IDNA 2003 made it "ss")
        ("日本語.com", "xn--wgv71a119e.com"),
        ("xn--caf-dma.com", "xn--caf-dma.com"),
        ("bluebird.com", "bluebird.com"),
        ("Bluebird.COM.", "bluebird.com"),
    ],
)
def test_names_are_converted_to_their_a_label(typed, ascii_name):
    assert domain_to_ascii(typed) == ascii_name


@pytest.mark.parametrize(
    ("typed", "sentence"),
    [
        ("☕.com", "“☕” cannot be part of a domain name, in any script."),
        ("café_bar.com", "“_” cannot be part of a domain name, in any script."),
        ("xn--zz.com", "xn--zz.com is not a valid internationalised domain name."),
        ("ab\u200dcé.com", "ab\u200dcé.com is not a valid internationalised domain name."),
    ],
)
def test_labels_idna_refuses_are_refused_with_a_sentence(typed, sentence):
    with pytest.raises(NotADomainName) as refused:
        domain_to_ascii(typed)
    assert refused.value.message == sentence


def test_names_are_shown_in_both_forms():
    assert domain_to_unicode("xn--caf-dma.com") == "café.com"
    assert domain_both_forms("xn--caf-dma.com") == "café.com (xn--caf-dma.com)"
    assert domain_both_forms("bluebird.com") == "bluebird.com"
    # A label that is not punycode is shown as it is, never lost.
    assert domain_to_unicode("xn--zz.com") == "xn--zz.com"
    assert is_internationalised("café.com") and is_internationalised("xn--caf-dma.com")
    assert not is_internationalised("cafe.com")
