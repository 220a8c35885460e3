"""Signup and sign-in forms. Every rule of the provider's customer table is checked here, before any call."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, cast

import phonenumbers
from allauth.account.forms import AddEmailForm, ReauthenticateForm
from allauth.core import context
from allauth.mfa.base.forms import AuthenticateForm
from allauth.mfa.models import Authenticator
from babel.numbers import get_currency_name
from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.text import format_lazy
from django.utils.translation import get_language, gettext, pgettext
from django.utils.translation import gettext_lazy as _

from accounts.models import PROVIDER_CONTACT_FIELDS, customer_for_user
from accounts.security import passwords
from accounts.security.signin_limits import SignInLimited, signin_attempt
from accounts.signup.spelling import SPELLED_FIELDS, ascii_field, ascii_form
from pricing.currencies import currency_for_country, offered_currencies
from storefront.site import countries

User = get_user_model()

PASSWORD_SPECIALS = passwords.SPECIALS
PASSWORD_MIN, PASSWORD_MAX = passwords.MIN_LENGTH, passwords.MAX_LENGTH
_PRINTABLE_ASCII = re.compile(r"^[\x20-\x7e]*$")
# A phone number as people type it: digits with spaces, dots, dashes, slashes or brackets, perhaps a leading +.
_PHONE_TYPED = re.compile(r"^\+?[0-9(][0-9 ().\-/]*$")
PHONE_TYPED_MAX = 25
_SPACES = re.compile(r"\s+")
_ZIPCODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 -]{0,14}$")

# Browser-side copies of the server's rules (HTML `pattern` is compiled with the `v` flag: braces escaped).
HTML_ASCII = r"[\x20-\x7E]+"
HTML_ZIPCODE = r"[A-Za-z0-9][A-Za-z0-9 \-]{0,14}"
HTML_PASSWORD = passwords.HTML_PATTERN
ASCII_TITLE = _("English letters, digits and punctuation only (ASCII).")


def ascii_spelling(text: str) -> str:
    """The English spelling of text in any script, suggested for a field that takes English letters only."""
    return ascii_form(text)


class AsciiMixin(forms.Field):
    """Refuses non-ASCII input first, naming the field, so no later rule (or the provider) sees it.

    A Field itself (first in the bases of a CharField or EmailField) so that its super() calls are typed."""

    # The provider's rule explained in the customer's language; the suggested spelling stays in English letters.
    non_ascii_message = _("Please use English (ASCII) characters only in %(field)s — the domain registry requires it.")
    suggestion_message = _("You could write it as “%(suggestion)s”.")
    # Names and addresses get a suggested spelling; an email address or a password must be exactly as typed.
    suggest_spelling = False

    def to_python(self, value: Any) -> Any:
        value = super().to_python(value)
        if isinstance(value, str) and not _PRINTABLE_ASCII.match(value):
            params = {"field": self.label, "suggestion": ""}
            message = str(self.non_ascii_message)
            suggestion = ascii_spelling(value) if self.suggest_spelling else None
            if suggestion:
                params["suggestion"] = suggestion
                message = f"{message} {self.suggestion_message}"
            raise ValidationError(message, code="non_ascii", params=params)
        return value


class AsciiCharField(AsciiMixin, forms.CharField):
    pass


class AsciiTextField(AsciiCharField):
    suggest_spelling = True


class AsciiEmailField(AsciiMixin, forms.EmailField):
    pass


class WrittenField(forms.CharField):
    """A name or address as the customer writes it, in any script ("José Muñoz", "Zürich", "北京"): the provider is sent
    its English spelling (ContactForm). Runs of spaces of any kind read as one; control characters are refused."""

    default_error_messages = {
        "unprintable": _("Please remove the control characters from %(field)s."),
    }

    def to_python(self, value: Any) -> Any:
        value = super().to_python(value)
        return _SPACES.sub(" ", value) if isinstance(value, str) else value

    def validate(self, value: Any) -> None:
        super().validate(value)
        if isinstance(value, str) and any(unicodedata.category(ch) == "Cc" for ch in value):
            raise ValidationError(self.error_messages["unprintable"], code="unprintable", params={"field": self.label})


def _written(
    label: Any,
    *,
    required_message: Any = "",
    required: bool = True,
    autocomplete: str = "",
    help_text: Any = "",
) -> WrittenField:
    return WrittenField(
        label=label,
        max_length=255,
        required=required,
        help_text=help_text,
        widget=forms.TextInput(attrs={"autocomplete": autocomplete} if autocomplete else {}),
        error_messages={"required": required_message, "max_length": _max_length_message(label)},
    )


def _spelled(label: Any) -> AsciiTextField:
    """The English spelling of a written field, as the customer corrects it (empty: the automatic one)."""
    return AsciiTextField(
        label=label,
        max_length=255,
        required=False,
        widget=forms.TextInput(
            attrs={"pattern": HTML_ASCII, "title": ASCII_TITLE, "lang": "en", "autocomplete": "off"}
        ),
        error_messages={"max_length": _max_length_message(label)},
    )


def _max_length_message(label: Any) -> Any:
    return format_lazy(_("{label} can be at most %(limit_value)d characters (it has %(show_value)d)."), label=label)


def _password_widget(autocomplete: str) -> forms.PasswordInput:
    return forms.PasswordInput(
        attrs={
            "autocomplete": autocomplete,
            "minlength": PASSWORD_MIN,
            "maxlength": PASSWORD_MAX,
            "pattern": HTML_PASSWORD,
            "title": passwords.SUMMARY,
        }
    )


class ContactForm(forms.Form):
    """A customer's contact details by every rule of the provider's customer table (signup's, and the account's
    contact page). Name, company, address and city are taken as written; what the provider is sent in their place is
    their English spelling, automatic (accounts/signup/spelling.py) unless the customer corrects it in the `*_ascii`
    fields."""

    error_messages = {
        "state_not_in_country": _("Please choose a state or province of %(country)s (or Other)."),
        "phone_digits": _("Enter the phone number with digits (spaces, dashes and brackets are fine)."),
        "phone_leading_zero": _(
            "The domain registry does not accept a number that starts with 0 after the dialling "
            "prefix. Please give another number, a mobile number for example."
        ),
        "phone_invalid": _("This is not a valid phone number for the dialling prefix +%(prefix)s."),
        "phone_other_prefix": _(
            "This number starts with +%(typed)s but the dialling prefix is +%(prefix)s: "
            "change one of them so they agree."
        ),
        "phone_too_long": _("With the dialling prefix the number can have at most 15 digits."),
        "phone_too_short": _("The phone number needs at least 4 digits."),
        "country_code_invalid": _("Enter the dialling prefix as 1 to 3 digits without + or leading zeros (e.g. 44)."),
        "zipcode_invalid": _("Enter the postal code with letters, digits, spaces or hyphens only (at most 15)."),
        "spelling_needed": _(
            "%(field)s has no automatic spelling in English letters: please write it here as it should read on "
            "your domains' records."
        ),
        "spelling_too_long": _(
            "In English letters %(field)s is longer than 255 characters: please write a shorter form here."
        ),
    }

    name = _written(
        _("Full name"),
        required_message=_("Please enter your full name."),
        autocomplete="name",
        help_text=_("Your full legal name, as the domain's registrant."),
    )
    company = _written(_("Company"), required=False, autocomplete="organization")
    country = forms.ChoiceField(
        label=_("Country"),
        choices=(),
        widget=forms.Select(attrs={"autocomplete": "country"}),
        error_messages={
            "required": _("Please choose your country."),
            "invalid_choice": _("Please choose a country from the list."),
        },
    )
    # Chosen, not typed: the value must be one of the country's published states (checked in clean()). Not an
    # ASCII field, because the provider's own countries file (COUNTRIES_FILE) lists names such as "Bulqizë".
    state = forms.CharField(
        label=_("State or province"),
        max_length=255,
        widget=forms.Select(),
        error_messages={"required": _("Please choose your state or province (Other if yours is not listed).")},
    )
    address = _written(
        _("Street address"),
        required_message=_("Please enter your street address."),
        autocomplete="street-address",
        help_text=_("House number and street name."),
    )
    city = _written(_("City"), required_message=_("Please enter your city."), autocomplete="address-level2")
    zipcode = AsciiCharField(
        label=_("Postal code"),
        max_length=15,
        widget=forms.TextInput(attrs={"autocomplete": "postal-code", "pattern": HTML_ZIPCODE}),
        error_messages={
            "required": _("Please enter your postal code."),
            "max_length": _("The postal code can be at most %(limit_value)d characters."),
        },
    )
    country_code = AsciiCharField(
        label=_("Dialling prefix"),
        max_length=3,
        widget=forms.TextInput(
            attrs={"inputmode": "numeric", "pattern": "[1-9][0-9]{0,2}", "autocomplete": "tel-country-code"}
        ),
        error_messages={
            "required": _("Please enter the dialling prefix."),
            "max_length": _("The dialling prefix has at most 3 digits."),
        },
        help_text=_("Filled in from your country; change it if your phone is from elsewhere."),
    )
    phone = AsciiCharField(
        label=_("Phone"),
        max_length=PHONE_TYPED_MAX,
        widget=forms.TextInput(attrs={"type": "tel", "autocomplete": "tel-national"}),
        error_messages={
            "required": _("Please enter your phone number."),
            "max_length": _("That is too long for a phone number (at most %(limit_value)d characters)."),
        },
        help_text=_("As you would write it, e.g. 020 7946 0000 or +44 20 7946 0000."),
    )
    name_ascii = _spelled(_("Name in English letters"))
    company_ascii = _spelled(_("Company in English letters"))
    address_ascii = _spelled(_("Street address in English letters"))
    city_ascii = _spelled(_("City in English letters"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["country"]).choices = [("", _("Choose your country")), *country_choices()]
        self.fields["state"].widget.choices = state_choices(self.selected_country())
        self.fields["state"].widget.attrs.pop("maxlength", None)  # not an attribute of <select>
        # Live feedback through htmx; without JavaScript these attributes do nothing and the form still works.
        self.fields["country"].widget.attrs.update(
            {
                "hx-get": reverse("signup_states"),
                "hx-target": "#state-row",
                "hx-swap": "outerHTML",
            }
        )
        # The records preview follows what is written. Only these fields go in the query (never the passwords).
        spelled = [*SPELLED_FIELDS, *map(ascii_field, SPELLED_FIELDS)]
        for field in spelled:
            self.fields[field].widget.attrs.update(
                {
                    "hx-get": reverse("records_preview"),
                    "hx-trigger": "change",
                    "hx-target": "#records-preview",
                    "hx-swap": "outerHTML",
                    "hx-include": ",".join(f"[name='{name}']" for name in spelled),
                    "hx-sync": "closest form:replace",
                }
            )

    def selected_country(self) -> str:
        field = self["country"]
        value = field.value() if self.is_bound else self.initial.get("country", field.initial)
        return value if isinstance(value, str) and countries.country(value) else ""

    def states(self) -> tuple[str, ...]:
        return countries.states_for(self.selected_country())

    def records_preview(self) -> list[str]:
        """How name, company, address and city will read on the domains' records, from what is in the form now
        (typed, or the initial values), before any validation: what the customer sees before it is sent."""
        preview = []
        for field in SPELLED_FIELDS:
            written, given = _raw(self[field].value()), _raw(self[ascii_field(field)].value())
            if written:
                preview.append(given or ascii_form(written))
        return preview

    def spelling_corrected(self) -> bool:
        """Whether the customer wrote (or must write) a spelling of their own: the corrections are shown open."""
        names = [ascii_field(field) for field in SPELLED_FIELDS]
        return any(_raw(self[name].value()) or name in self.errors for name in names)

    def clean_zipcode(self) -> str:
        zipcode = self.cleaned_data["zipcode"]
        if not _ZIPCODE.match(zipcode):
            raise ValidationError(self.error_messages["zipcode_invalid"], code="zipcode_invalid")
        return zipcode

    def clean_country_code(self) -> str:
        prefix = self.cleaned_data["country_code"].removeprefix("+")
        if not re.fullmatch(r"[1-9][0-9]{0,2}", prefix):
            raise ValidationError(self.error_messages["country_code_invalid"], code="country_code_invalid")
        return prefix

    def clean_phone(self) -> str:
        phone = self.cleaned_data["phone"]
        if not _PHONE_TYPED.match(phone):
            raise ValidationError(self.error_messages["phone_digits"], code="phone_digits")
        if sum(ch.isdigit() for ch in phone) < 4:
            raise ValidationError(self.error_messages["phone_too_short"], code="phone_too_short")
        return phone

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        code = cleaned.get("country")
        if code and "state" in cleaned and cleaned["state"] not in countries.states_for(code):
            found = countries.country(code)
            self.add_error(
                "state",
                ValidationError(
                    self.error_messages["state_not_in_country"],
                    code="state_not_in_country",
                    params={"country": found.name if found else code},
                ),
            )
        prefix, phone = cleaned.get("country_code"), cleaned.get("phone")
        if prefix and phone:
            self._check_phone(prefix, phone)
        for field in SPELLED_FIELDS:
            self._spell(field)
        return cleaned

    def _spell(self, field: str) -> None:
        """The provider's form of a written field: the customer's own spelling, else the automatic one; either is
        held to the provider's rules (printable ASCII, at most 255 characters; a name is required)."""
        key = ascii_field(field)
        written = self.cleaned_data.get(field)
        if written is None or key in self.errors:
            return
        spelled = (self.cleaned_data.get(key) or ascii_form(written)) if written else ""
        params = {"field": self.fields[field].label}
        if written and not spelled:
            self.add_error(key, ValidationError(self.error_messages["spelling_needed"], "spelling_needed", params))
        elif len(spelled) > 255:
            self.add_error(key, ValidationError(self.error_messages["spelling_too_long"], "spelling_too_long", params))
        else:
            self.cleaned_data[key] = spelled

    def _check_phone(self, prefix: str, phone: str) -> None:
        """Reads the number as typed, with or without the prefix or the trunk 0, and keeps what the provider
        wants: the national number as digits (the prefix goes in its own field)."""
        typed = re.sub(r"[^0-9+]", "", phone)
        if typed.startswith("00"):
            typed = "+" + typed[2:]  # the international call prefix used in most of the world
        region = phonenumbers.region_code_for_country_code(int(prefix))
        try:
            if typed.startswith("+"):
                number = phonenumbers.parse(typed, None)
            elif region != phonenumbers.UNKNOWN_REGION:
                number = phonenumbers.parse(typed, region)  # also drops a national trunk prefix (the 0 of 020…)
            else:
                number = phonenumbers.parse(f"+{prefix}{typed}", None)
        except phonenumbers.NumberParseException:
            number = None
        if number is not None and str(number.country_code) != prefix:
            params = {"typed": number.country_code, "prefix": prefix}
            self.add_error(
                "phone", ValidationError(self.error_messages["phone_other_prefix"], "phone_other_prefix", params)
            )
            return
        if number is None or not phonenumbers.is_valid_number(number):
            self.add_error(
                "phone",
                ValidationError(self.error_messages["phone_invalid"], code="phone_invalid", params={"prefix": prefix}),
            )
            return
        national = phonenumbers.national_significant_number(number)
        if national.startswith("0"):  # Italy keeps its 0; the provider refuses it
            self.add_error("phone", ValidationError(self.error_messages["phone_leading_zero"], "phone_leading_zero"))
        elif len(prefix) + len(national) > 15:
            self.add_error("phone", ValidationError(self.error_messages["phone_too_long"], code="phone_too_long"))
        else:
            self.cleaned_data["phone"] = national

    def _post_clean(self) -> None:
        # Each field refused for accents carries the suggested spelling, for the "Use …" button next to it.
        for name, errors in self.errors.as_data().items():
            for error in errors:
                suggestion = (getattr(error, "params", None) or {}).get("suggestion")
                if error.code == "non_ascii" and suggestion and name in self.fields:
                    # A mark on the bound field, which accounts/_field.html renders: BoundField has no slot for it.
                    self[name].ascii_suggestion = suggestion  # type: ignore[attr-defined]

    def details(self) -> dict[str, str]:
        """The cleaned contact, as the services take it: each written field and its provider spelling."""
        fields = (*PROVIDER_CONTACT_FIELDS, *map(ascii_field, SPELLED_FIELDS))
        return {field: self.cleaned_data[field] for field in fields}


def _raw(value: Any) -> str:
    return _SPACES.sub(" ", value).strip() if isinstance(value, str) else ""


class SignupForm(ContactForm):
    error_messages: dict[str, Any] = {
        **ContactForm.error_messages,
        "email_taken": _("An account with this email already exists. Please sign in instead."),
        **passwords.MESSAGES,
        "password_mismatch": _("The two passwords do not match."),
    }

    email = AsciiEmailField(
        label=_("Email"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "inputmode": "email"}),
        error_messages={
            "required": _("Please enter your email address."),
            "invalid": _("Enter a valid email address."),
        },
        help_text=_("You sign in with it; it is also the domain's contact email."),
    )
    password = AsciiCharField(
        label=_("Password"),
        strip=False,
        widget=_password_widget("new-password"),
        error_messages={"required": _("Please choose a password.")},
        help_text=passwords.SUMMARY,
    )
    password2 = AsciiCharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password", "maxlength": PASSWORD_MAX}),
        error_messages={"required": _("Please type the password again.")},
    )
    currency = forms.ChoiceField(
        label=_("Currency"),
        required=False,
        help_text=_("Prices are shown and charged in it. You can change it until your first purchase."),
        error_messages={"invalid_choice": _("Please choose a currency from the list.")},
    )
    field_order = ["name", "company", "email"]  # then the contact's own order, then the passwords

    def __init__(self, *args: Any, login_url: str = "", **kwargs: Any) -> None:
        """`login_url`: where "sign in instead" points, with the `next` the customer was heading to."""
        super().__init__(*args, **kwargs)
        self.login_url = login_url or reverse("login")
        offered = offered_currencies()
        if len(offered) == 1:
            del self.fields["currency"]  # nothing to choose: the store sells in its own currency only
        else:
            by_country = gettext("Your country's currency where we sell in it, else %(store)s") % {"store": offered[0]}
            cast(forms.ChoiceField, self.fields["currency"]).choices = [
                ("", by_country),
                *((code, currency_name(code)) for code in offered),
            ]
        self.fields["email"].widget.attrs.update(
            {
                "hx-get": reverse("signup"),
                "hx-vals": '{"validate": "email"}',
                "hx-trigger": "change",
                "hx-target": "#email-feedback",
                "hx-sync": "this:replace",
            }
        )

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        existing = (
            User.objects.filter(username__iexact=email).first() or User.objects.filter(email__iexact=email).first()
        )
        # An account whose provider signup is still unconfirmed is settled by the service, not refused here.
        if existing is not None and not _is_unconfirmed(existing):
            raise ValidationError(self.email_taken_message(email), code="email_taken")
        return email

    def email_taken_message(self, email: str) -> str:
        return format_html(
            gettext('{} <a href="{}">Sign in</a> or <a href="{}">reset your password</a>.'),
            self.error_messages["email_taken"],
            self.login_url,
            reverse("password_reset"),
        )

    def details(self) -> dict[str, str]:
        """The contact and the currency chosen (by the country when the customer left it to us)."""
        chosen = self.cleaned_data.get("currency") or currency_for_country(self.cleaned_data["country"])
        return {**super().details(), "currency": chosen}

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        # The provider's rules at once, even when the confirmation does not match (clean() runs the rest).
        passwords.ProviderPasswordValidator().validate(password)
        return password

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        password, password2 = cleaned.get("password"), cleaned.get("password2")
        if password and password2 is not None and password != password2:
            self.add_error(
                "password2", ValidationError(self.error_messages["password_mismatch"], code="password_mismatch")
            )
        elif password and "email" in cleaned:
            # The site's own password policy (settings.AUTH_PASSWORD_VALIDATORS) on top of the provider's.
            candidate = User(
                username=cleaned["email"].lower(), email=cleaned["email"], first_name=cleaned.get("name", "")
            )
            try:
                password_validation.validate_password(password, candidate)
            except ValidationError as err:
                self.add_error("password", err)
        return cleaned


def currency_name(code: str) -> str:
    """ "EUR, euro" in the customer's language."""
    return f"{code}, {get_currency_name(code, locale=translation.to_locale(get_language() or 'en'))}"


class CurrencyForm(forms.Form):
    """The account page's currency choice (until the first purchase: accounts.signup.services.customer_currency_set)."""

    currency = forms.ChoiceField(
        label=_("Currency"), error_messages={"invalid_choice": _("Please choose a currency from the list.")}
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(code, currency_name(code)) for code in offered_currencies()]
        cast(forms.ChoiceField, self.fields["currency"]).choices = choices


def state_choices(alpha2: str) -> list[tuple[str, str]]:
    """The state select: a country with states starts at "Choose…" (nothing is picked for the customer);
    without states, Other is the only answer; without a country yet, there is nothing to choose."""
    if not countries.country(alpha2):
        return [("", gettext("Choose your country first"))]
    states = countries.states_for(alpha2)
    # "Other" is the value the provider takes; the customer reads it in their language (the help text names it).
    other = (countries.OTHER, pgettext("state or province", "Other"))
    if states == (countries.OTHER,):
        return [other]
    return [
        ("", gettext("Choose your state or province")),
        *((state, state) for state in states if state != countries.OTHER),
        other,
    ]


def initial_state(alpha2: str) -> str:
    """The state to preselect for a newly chosen country: Other where it is the only answer, else none."""
    return countries.OTHER if countries.states_for(alpha2) == (countries.OTHER,) and countries.country(alpha2) else ""


def country_choices() -> list[tuple[str, str]]:
    # In the customer's language, in that language's alphabetical order (accents aside: Ámsterdam sorts with A).
    named = [(found.alpha2, found.display_name) for found in countries.countries()]
    return sorted(named, key=lambda choice: countries.to_ascii(choice[1]).casefold())


def _is_unconfirmed(user: Any) -> bool:
    customer = customer_for_user(user)
    return customer is not None and customer.customer_id is None and not user.is_active


class PasswordAndCodeReauthenticateForm(ReauthenticateForm):
    """allauth's re-authentication (before a transfer code, an email change, turning two-factor off), asking for
    the password AND, when two-factor is on, a current code or a recovery code: a stolen session plus a
    phished password is not enough to move a domain away."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.authenticators = list(
            Authenticator.objects.filter(
                user_id=self.user.pk, type__in=[Authenticator.Type.TOTP, Authenticator.Type.RECOVERY_CODES]
            )
        )
        if self.authenticators:
            self.fields["code"] = forms.CharField(
                label=_("Two-factor code"),
                help_text=_("The 6-digit code from your authenticator app, or one of your recovery codes."),
                widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
                error_messages={"required": _("Enter the code from your authenticator app.")},
            )

    def clean_code(self) -> str:
        code = self.cleaned_data["code"].strip().replace(" ", "")
        if "password" not in self.cleaned_data:
            return code  # a code is used up once accepted: never spend it on an attempt that fails anyway
        # A right password gave its attempt back: a wrong code is a failed attempt of its own.
        attempt = _code_attempt(self.user)
        if not any(authenticator.wrap().validate_code(code) for authenticator in self.authenticators):
            attempt.failed()
            raise ValidationError(_("That code is not correct. Please try again."), code="incorrect_code")
        attempt.succeeded()
        return code


class LimitedAuthenticateForm(AuthenticateForm):
    """allauth's two-factor step at sign-in, under our sign-in limits (accounts/security/signin_limits.py) instead of
    its own per-account lockout, which let anyone with the password lock the owner out with five wrong codes."""

    @cached_property
    def has_security_key(self) -> bool:
        """Whether the page may offer "Use a security key": only to someone who registered one."""
        return Authenticator.objects.filter(user_id=self.user.pk, type=Authenticator.Type.WEBAUTHN).exists()

    def clean_code(self) -> str:
        attempt = _code_attempt(self.user)
        try:
            code = super().clean_code()
        except ValidationError:
            attempt.failed()
            raise
        attempt.succeeded()
        return code


def _code_attempt(user: Any) -> Any:
    try:
        return signin_attempt(request=context.request, user=user)
    except SignInLimited as err:
        raise ValidationError(err.message, code="too_many_login_attempts") from err


class CustomerAddEmailForm(AddEmailForm):
    """allauth's email change, refused once the provider customer exists: the provider keeps the email given at
    signup (it has no way to change it yet), and the control-panel hand-off finds the customer by that email."""

    def clean_email(self) -> str:
        customer = customer_for_user(self.user)
        if customer is not None and customer.customer_id is not None:
            raise ValidationError(
                _(
                    "Your email address is also your contact at the domain registry, which cannot change it yet. "
                    "Please contact us to change it. Changing it restarts the registrant check: the domain service "
                    "emails the new address a link to confirm, and your domains are suspended if it is not confirmed "
                    "within 14 days."
                ),
                code="email_locked",
            )
        return super().clean_email()
