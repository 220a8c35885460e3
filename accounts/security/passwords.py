"""The provider's password rules, as a Django password validator.

The provider refuses a customer password that breaks any of these rules, so signup, password change and
password reset all keep to them; as an entry of AUTH_PASSWORD_VALIDATORS, Django's own password forms (and
`manage.py changepassword`) enforce them too. The same rules are listed to the customer by the partial
`accounts/_password_field.html` and ticked off live by static/js/accounts.js.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise

SPECIALS = "~*!@$#%_+.?:,{}"
MIN_LENGTH, MAX_LENGTH = 9, 15
SPECIALS_SHOWN = " ".join(SPECIALS)
SUMMARY = format_lazy(
    _("{minimum} to {maximum} characters with an uppercase letter, a lowercase letter, a digit and one of {symbols}"),
    minimum=MIN_LENGTH,
    maximum=MAX_LENGTH,
    symbols=SPECIALS_SHOWN,
)
# The browser's copy of the rules for <input pattern> (compiled with the `v` flag: braces escaped).
HTML_PATTERN = r"(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=.*[~*!@$#%_+.?:,\{\}])[A-Za-z0-9~*!@$#%_+.?:,\{\}]{9,15}"


@dataclass(frozen=True)
class Rule:
    code: str  # also the `data-rule` name the browser script checks
    shown: StrOrPromise  # the checklist line
    message: StrOrPromise  # the error when the rule is broken


RULES = (
    Rule(
        "password_length",
        format_lazy(_("{minimum} to {maximum} characters"), minimum=MIN_LENGTH, maximum=MAX_LENGTH),
        format_lazy(_("Use {minimum} to {maximum} characters."), minimum=MIN_LENGTH, maximum=MAX_LENGTH),
    ),
    Rule("password_upper", _("an uppercase letter (A-Z)"), _("Include at least one uppercase letter (A-Z).")),
    Rule("password_lower", _("a lowercase letter (a-z)"), _("Include at least one lowercase letter (a-z).")),
    Rule("password_digit", _("a digit (0-9)"), _("Include at least one digit (0-9).")),
    Rule(
        "password_special",
        _("one of"),
        format_lazy(_("Include at least one of these symbols: {symbols}"), symbols=SPECIALS_SHOWN),
    ),
    Rule(
        "password_chars",
        _("no other symbols, spaces or accents"),
        format_lazy(_("Use only letters, digits and these symbols: {symbols}"), symbols=SPECIALS_SHOWN),
    ),
)
MESSAGES = {rule.code: rule.message for rule in RULES}


def _broken(password: str) -> list[str]:
    checks = {
        "password_length": MIN_LENGTH <= len(password) <= MAX_LENGTH,
        "password_upper": any("A" <= ch <= "Z" for ch in password),
        "password_lower": any("a" <= ch <= "z" for ch in password),
        "password_digit": any("0" <= ch <= "9" for ch in password),
        "password_special": any(ch in SPECIALS for ch in password),
        "password_chars": all(ch.isascii() and (ch.isalnum() or ch in SPECIALS) for ch in password),
    }
    return [rule.code for rule in RULES if not checks[rule.code]]


def password_problems(password: str) -> list[ValidationError]:
    """One keyed error per broken rule, in the order the checklist shows them."""
    return [ValidationError(MESSAGES[code], code=code) for code in _broken(password)]


class ProviderPasswordValidator:
    """Django password validator: the provider's rules (length, character classes, allowed symbols)."""

    def validate(self, password: str, user: Any = None) -> None:
        problems = password_problems(password)
        if problems:
            raise ValidationError(problems)

    def get_help_text(self) -> str:
        return str(format_lazy(_("Your password needs {summary}."), summary=SUMMARY))
