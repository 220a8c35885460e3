"""The provider's rules for a customer signup, one function per field, all answering a yes or a no.

The same rules hold a customer's details when they change and a domain's contacts (the provider's docs say the
signup details become every contact of the customer's domains). The provider does not say which field failed:
every refusal is the same message (see views/customers.py).
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator

from sandbox.countries import known, states_for

PASSWORD_SPECIALS = set("~*!@$#%_+.?:,{}")
REQUIRED_TEXT = ("name", "address", "city", "state", "zipcode")
_PRINTABLE_ASCII = re.compile(r"^[\x20-\x7e]*$")
_ZIPCODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 -]{0,14}$")
_email = EmailValidator()


def english(text: str) -> bool:
    """ASCII only, printable: the provider refuses accents and other scripts ("in English")."""
    return bool(_PRINTABLE_ASCII.match(text))


def _text(data: dict[str, Any], field: str) -> str | None:
    value = data.get(field, "")
    if value is None:
        return ""
    return value.strip() if isinstance(value, str) else None


def _digits(data: dict[str, Any], field: str) -> str | None:
    value = data.get(field, "")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    return value.strip()


def password_ok(password: str) -> bool:
    return (
        9 <= len(password) <= 15
        and english(password)
        and any(ch.isupper() for ch in password)
        and any(ch.islower() for ch in password)
        and any(ch.isdigit() for ch in password)
        and any(ch in PASSWORD_SPECIALS for ch in password)
    )


def clean_signup(data: dict[str, Any]) -> dict[str, str] | None:
    """The cleaned customer fields, password included, or None when any rule is broken."""
    cleaned = clean_details(data)
    password = data.get("password")
    if cleaned is None or not isinstance(password, str) or not password_ok(password):
        return None
    return {**cleaned, "password": password}


def clean_details(data: dict[str, Any]) -> dict[str, str] | None:
    """A person's contact fields cleaned by the signup's rules (customer details, domain contacts), or None."""
    cleaned: dict[str, str] = {}
    for field in (*REQUIRED_TEXT, "company"):
        value = _text(data, field)
        # The state is one of the published list's names (checked below), which may be accented ("Bulqizë").
        if value is None or (field != "state" and not english(value)) or len(value) > 255:
            return None
        if field in REQUIRED_TEXT and not value:
            return None
        cleaned[field] = value
    if not _ZIPCODE.match(cleaned["zipcode"]):
        return None

    code = data.get("country")
    if not isinstance(code, str) or len(code) != 2 or not code.isascii() or not code.isupper():
        return None
    if not known(code) or cleaned["state"] not in states_for(code):
        return None
    cleaned["country"] = code

    dial = _digits(data, "country_code")
    phone = _digits(data, "phone")
    if dial is None or not dial.isascii() or not dial.isdigit() or not 1 <= len(dial) <= 3 or dial[0] == "0":
        return None
    if phone is None or not phone.isascii() or not phone.isdigit() or phone[0] == "0":
        return None
    if not 4 <= len(phone) or len(dial) + len(phone) > 15:
        return None
    cleaned["country_code"], cleaned["phone"] = dial, phone

    email = data.get("email")
    if not isinstance(email, str) or not english(email) or len(email.strip()) > 254:
        return None
    try:
        _email(email.strip())
    except ValidationError:
        return None
    cleaned["email"] = email.strip()
    return cleaned
