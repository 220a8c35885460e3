"""Name variations for suggestions, MetaSearch's autosuggest and its AI block. Deterministic: no randomness,
so a search always suggests the same names."""

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


def _valid(labels: list[str], original: str) -> list[str]:
    seen: list[str] = []
    for label in labels:
        if label != original and LABEL.match(label) and label not in seen:
            seen.append(label)
    return seen


def variations(label: str) -> list[str]:
    """Close variations: synonyms first (swapped in wherever the word occurs), then suffixes, then prefixes."""
    found = [label.replace(word, other) for word, others in SYNONYMS.items() if word in label for other in others]
    found += [label + suffix for suffix in SUFFIXES]
    found += [prefix + label for prefix in PREFIXES]
    return _valid(found, label)


def ai_names(label: str) -> list[str]:
    return _valid([pattern.format(label) for pattern in AI_PATTERNS], label)
