"""Name variations for suggestions, MetaSearch's autosuggest and its AI block. Deterministic: no randomness,
so a search always suggests the same names. An internationalised name's A-label is varied as the word it spells."""

from __future__ import annotations

from sandbox.catalogue import LABEL

PREFIXES = ("get", "my", "the", "try", "go", "hey")
SUFFIXES = ("hq", "hub", "now", "online", "app", "labs", "shop", "store", "site", "world", "zone", "pro")
SYNONYMS = {
    "shop": ("store", "market", "boutique"),
    "store": ("shop", "market"),
    "coffee": ("cafe", "brew", "espresso"),
    "cafe": ("coffee", "bistro"),
    "car": ("auto", "motor"),
    "cars": ("autos", "motors"),
    "food": ("eats", "kitchen"),
    "web": ("site", "net"),
    "tech": ("tek", "digital"),
    "home": ("house", "nest"),
    "photo": ("pics", "snap"),
    "travel": ("trips", "journey"),
    "book": ("books", "reads"),
    "music": ("tunes", "sound"),
    "fit": ("fitness", "gym"),
    "pet": ("pets", "paws"),
    "bike": ("cycle", "ride"),
    "garden": ("plants", "green"),
}
AI_PATTERNS = ("{}ify", "{}ly", "smart{}", "{}verse", "neo{}", "{}mind", "{}nest", "{}genius")


ACE_PREFIX = "xn--"


def _word(label: str) -> str | None:
    """What a label says: an A-label (`xn--caf-dma`) says its Unicode form (`café`), so that variations are
    coined on the word and encoded again (`xn--cafhq-dsa`), never by gluing letters onto the punycode (which
    would decode to nonsense). None: an `xn--` label that is not punycode, which has no variations."""
    if not label.startswith(ACE_PREFIX):
        return label
    try:
        word = label.removeprefix(ACE_PREFIX).encode("ascii").decode("punycode")
    except UnicodeError:
        return None
    return word if word and not word.isascii() else None


def _label(word: str) -> str:
    return word if word.isascii() else ACE_PREFIX + word.encode("punycode").decode("ascii")


def _valid(words: list[str], original: str) -> list[str]:
    seen: list[str] = []
    for label in map(_label, words):
        if label != original and LABEL.match(label) and label not in seen:
            seen.append(label)
    return seen


def variations(label: str) -> list[str]:
    """Close variations: synonyms first (swapped in wherever the word occurs), then suffixes, then prefixes."""
    word = _word(label)
    if word is None:
        return []
    found = [word.replace(part, other) for part, others in SYNONYMS.items() if part in word for other in others]
    found += [word + suffix for suffix in SUFFIXES]
    found += [prefix + word for prefix in PREFIXES]
    return _valid(found, label)


def ai_names(label: str) -> list[str]:
    word = _word(label)
    return [] if word is None else _valid([pattern.format(word) for pattern in AI_PATTERNS], label)
