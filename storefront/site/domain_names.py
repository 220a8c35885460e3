"""Internationalised domain names: the A-label the provider registers (`xn--caf-dma.com`) and the name the
customer reads (`café.com`).

The store keeps and sends the A-label everywhere (cart, orders, payments, the provider), which is an ordinary name
of letters, digits and hyphens; the Unicode form is worked out again wherever a name is shown. Conversion follows
IDNA 2008 with the UTS 46 mapping (the `idna` package), as browsers and registries do: `CAFÉ.com` is `café.com`,
and a character IDNA 2008 does not allow in a name (`☕`, `_`) is refused with a sentence that names it.
"""

from __future__ import annotations

import functools

import idna
from django.utils.translation import gettext

ACE_PREFIX = "xn--"


class NotADomainName(ValueError):
    """The name cannot be converted: `message` says why, in the customer's words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_internationalised(name: str) -> bool:
    """Whether the name (either form) has a label in another script than plain ASCII letters."""
    return not name.isascii() or ACE_PREFIX in name.lower()


def domain_to_ascii(name: str) -> str:
    """The A-label form of a name typed in any script (lower case); NotADomainName when IDNA 2008 refuses it."""
    text = name.strip().rstrip(".")
    if not is_internationalised(text):
        return text.lower()
    try:
        ascii_name = idna.encode(text, uts46=True, std3_rules=True, transitional=False).decode("ascii").lower()
    except idna.InvalidCodepoint as err:
        character = _offending(text)
        raise NotADomainName(
            gettext("“%(character)s” cannot be part of a domain name, in any script.") % {"character": character}
        ) from err
    except (idna.IDNAError, UnicodeError) as err:
        raise NotADomainName(
            gettext("%(name)s is not a valid internationalised domain name.") % {"name": text}
        ) from err
    return ascii_name


def _offending(text: str) -> str:
    """The first character of `text` that IDNA 2008 refuses on its own (what the customer should take out)."""
    for character in text:
        if character == ".":
            continue
        try:
            idna.encode(character, uts46=True, std3_rules=True, transitional=False)
        except (idna.IDNAError, UnicodeError):
            if character != "-":
                return character
    return text


@functools.lru_cache(maxsize=4096)
def domain_to_unicode(name: str) -> str:
    """The form a person reads (`café.com` for `xn--caf-dma.com`); a label that is not valid punycode stays as it
    is, so a name is always shown, never lost."""
    if ACE_PREFIX not in name.lower():
        return name
    labels = []
    for label in name.split("."):
        if label.lower().startswith(ACE_PREFIX):
            try:
                label = idna.decode(label)
            except (idna.IDNAError, UnicodeError):
                pass
        labels.append(label)
    return ".".join(labels)


def domain_both_forms(name: str) -> str:
    """`café.com (xn--caf-dma.com)` for an internationalised name, the name alone otherwise."""
    shown = domain_to_unicode(name)
    return name if shown == name else f"{shown} ({name})"
