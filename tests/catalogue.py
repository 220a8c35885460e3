"""The Spanish catalogue as a test reads it: which English strings of ours must not be left on a Spanish page."""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po
from django.conf import settings

# Placeholders as the catalogue writes them: %(name)s, %(name)d, {name}, {}.
_PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]*\}")
_TAG = re.compile(r"<[^>]+>")
# Words people read (or hear) that are not in text nodes.
_ATTRIBUTES = re.compile(r'\s(?:aria-label|placeholder|title|alt|data-label)="([^"]*)"')


@cache
def english_patterns(language: str = "es") -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """Every English msgid (singular and plural) whose translation differs, as a pattern of its visible text:
    placeholders match anything, tags are gone, and it must stand as whole words. Each comes with its longest
    literal part: a page without that text cannot match, and checking for it first is what keeps a long page
    (the signup form's country list) from costing seconds of regular-expression scanning."""
    path = Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES" / "django.po"
    with path.open("rb") as po:
        catalog = read_po(po, locale=language)
    patterns = []
    for message in catalog:
        if not message.id:
            continue
        # A plural message holds a sequence (singular, plural…); babel types it as a tuple or a list.
        ids = tuple(message.id) if isinstance(message.id, tuple | list) else (message.id,)
        strings = tuple(message.string) if isinstance(message.string, tuple | list) else (message.string,)
        for english, translated in zip(ids, strings, strict=False):
            if english == translated:
                continue  # "Total", "Premium", "Host": the same word in both languages
            visible = " ".join(_TAG.sub(" ", english.replace("%%", "%")).split())
            parts = _PLACEHOLDER.split(visible)
            if sum(len(part.strip()) for part in parts) < 3:
                continue
            body = ".+?".join(r"\s+".join(re.escape(word) for word in part.split(" ")) for part in parts)
            needle = max((" ".join(part.split()) for part in parts), key=len)
            patterns.append((english, needle, re.compile(rf"(?<!\w){body}(?!\w)")))
    return tuple(patterns)


def visible_text(page: str) -> str:
    """A page's words as a reader meets them: text, and the labels of attributes, without scripts and styles."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    attributes = " | ".join(_ATTRIBUTES.findall(page))
    text = html.unescape(_TAG.sub(" ", page) + " | " + attributes)
    # The brand is the reseller's name in every language.
    return " ".join(text.replace(settings.STORE_NAME, " ").split())


def english_left(page: str, language: str = "es") -> list[str]:
    """The catalogue's English strings still on this page (HTML), untranslated."""
    text = visible_text(page)
    return [
        english for english, needle, pattern in english_patterns(language) if needle in text and pattern.search(text)
    ]
