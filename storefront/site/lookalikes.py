"""Look-alike domain names (UTS 39, "Unicode Security Mechanisms"): a name whose label mixes scripts
("shop" + Cyrillic "es" + "art".com) or is written wholly in another script with letters that each look like a
plain Latin one ("apple".com typed in Cyrillic) can pass for a name it is not. Such names are sold, as
registries allow them, but shown with a warning before they are bought (search row, cart, checkout:
templates/domains/_lookalike_reason.html says why, `{{ name|lookalike }}` gives the kind).

The scripts and the homoglyphs come from confusable-homoglyphs (Unicode's Scripts.txt and confusables.txt). The
mixes UTS 39 calls "highly restrictive" are not warned about: Japanese (Han, Hiragana, Katakana), Chinese with
Bopomofo, Korean (Han, Hangul), each also with Latin letters.
"""

from __future__ import annotations

import functools

from storefront.site.domain_names import NotADomainName, domain_to_unicode, is_internationalised

# Characters of no script of their own (digits, the hyphen) or inheriting their neighbour's (combining marks).
_SCRIPTLESS = {"COMMON", "INHERITED"}
_ALLOWED_MIXES = (
    {"LATIN", "HAN", "HIRAGANA", "KATAKANA"},
    {"LATIN", "HAN", "BOPOMOFO"},
    {"LATIN", "HAN", "HANGUL"},
)
_PLAIN_LATIN = set("abcdefghijklmnopqrstuvwxyz0123456789")


def _scripts(label: str) -> set[str]:
    # Imported here, not at the top: confusable-homoglyphs reads its Unicode tables (about 6 MB of Python objects)
    # when imported, and only an internationalised name needs them (lookalike_kind). Most web workers never see one
    # (docs/benchmarks.md, Memory).
    from confusable_homoglyphs import categories

    return {categories.alias(character) for character in label} - _SCRIPTLESS


def label_mixes_scripts(label: str) -> bool:
    scripts = _scripts(label)
    return len(scripts) > 1 and not any(scripts <= allowed for allowed in _ALLOWED_MIXES)


def _plain_latin_lookalike(character: str) -> bool:
    if character in _PLAIN_LATIN or character == "-":
        return True
    from confusable_homoglyphs import confusables  # see _scripts

    found = confusables.is_confusable(character, greedy=True, preferred_aliases=["latin"]) or []
    return any(
        glyph["c"].lower() in _PLAIN_LATIN for entry in found for glyph in entry["homoglyphs"] if len(glyph["c"]) == 1
    )


def label_looks_latin(label: str) -> bool:
    """Written wholly in one script other than Latin, every character looking like a plain Latin letter or digit."""
    scripts = _scripts(label)
    return len(scripts) == 1 and scripts != {"LATIN"} and all(_plain_latin_lookalike(ch) for ch in label)


@functools.lru_cache(maxsize=4096)
def lookalike_kind(name: str) -> str:
    """ "mixed" (a label mixes scripts), "latin" (a label looks like plain Latin letters) or "" for `name`."""
    if not is_internationalised(name):
        return ""
    try:
        labels = domain_to_unicode(name).split(".")
    except NotADomainName:
        return ""
    if any(label_mixes_scripts(label) for label in labels):
        return "mixed"
    if any(label_looks_latin(label) for label in labels):
        return "latin"
    return ""
