"""A customer's name and address in two forms: as they write it (any script), and in English letters for the provider.

The provider takes contact details in ASCII only ("in English"; its documented signup refusal). We keep what the
customer typed ("José Muñoz", "Zürich", "北京") and send a transliteration made by anyascii, a maintained library
with a table for every script, which the customer sees before it is sent and may correct.
"""

from __future__ import annotations

import re

from anyascii import anyascii

# The provider's rule for what it is sent: printable ASCII (space to tilde).
_SPACES = re.compile(r"\s+")

# The customer's fields written in both forms; the others (postal code, phone, state chosen from a list, country)
# are ASCII already.
SPELLED_FIELDS = ("name", "company", "address", "city")


def ascii_form(text: str) -> str:
    """The English-letter spelling of `text` ("José Muñoz" -> "Jose Munoz", "Москва" -> "Moskva"), spaces tidied.

    What anyascii cannot spell (a control character) is dropped; the result may be empty, which callers refuse.
    """
    spelled = anyascii(_SPACES.sub(" ", text))
    return _SPACES.sub(" ", "".join(ch for ch in spelled if " " <= ch <= "~")).strip()


def ascii_field(name: str) -> str:
    """The name of a spelled field's ASCII form, on the model and in forms ("name" -> "name_ascii")."""
    return f"{name}_ascii"


def search_form(text: str) -> str:
    """`text` as searches compare it: English letters, casefolded ("José MUÑOZ" -> "jose munoz")."""
    return ascii_form(text).casefold()


def name_search_form(*names: str) -> str:
    """What a name search looks in: each name casefolded as written and in English letters, once each."""
    forms = (form for name in names for form in (_SPACES.sub(" ", name).strip().casefold(), search_form(name)))
    return " ".join(dict.fromkeys(form for form in forms if form))
