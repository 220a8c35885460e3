"""What the domain pages accept: the search box, the cart, checkout and the order pages. Every rule on what a
customer may type or post is checked here; the views (`*_views.py`) act on `cleaned_data`."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from domains.cart import MAX_DURATION, MIN_DURATION, CartLine
from domains.orders import RENEW_YEARS
from domains.search import DOMAIN_MAX

# --- Search -----------------------------------------------------------------------------------------------------

# A pasted address may carry a path and a query: room for that, but not for a whole page of text.
TYPED_MAX = 2000


class SearchForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=TYPED_MAX,
        error_messages={
            "max_length": format_lazy(
                _("A domain can be at most {limit} characters. Try a shorter name."), limit=DOMAIN_MAX
            )
        },
    )


# --- Cart -------------------------------------------------------------------------------------------------------

_DOMAIN = re.compile(r"^(?=.{3,80}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$")


def normalise_domain(value: str) -> str:
    return value.strip().lower().rstrip(".")


class DomainNameForm(forms.Form):
    domain_name = forms.CharField(
        max_length=80,
        error_messages={
            "required": _("Choose a domain to add."),
            "max_length": _("A domain name can be at most 80 characters."),
        },
    )

    def clean_domain_name(self) -> str:
        name = normalise_domain(self.cleaned_data["domain_name"])
        if not _DOMAIN.match(name):
            raise forms.ValidationError(
                _("That does not look like a domain name. Use the full name, for example mybrand.com."), code="invalid"
            )
        return name


class DurationForm(forms.Form):
    domain_name = forms.CharField(max_length=80)
    duration = forms.IntegerField(
        min_value=MIN_DURATION,
        max_value=MAX_DURATION,
        error_messages={
            "required": _("Choose how many years."),
            "invalid": _("Choose a number of years from 1 to 10."),
            "min_value": _("Choose at least 1 year."),
            "max_value": _("Domains can be registered for at most 10 years."),
        },
    )

    def __init__(self, *args: Any, line: CartLine | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = line

    def clean_duration(self) -> int:
        duration = self.cleaned_data["duration"]
        if self.line is not None and duration < self.line.min_term:
            raise forms.ValidationError(
                _("Domains ending in .%(tld)s need at least %(years)d years."),
                code="below_minimum_term",
                params={"tld": self.line.tld, "years": self.line.min_term},
            )
        if self.line is not None and duration not in self.line.durations:
            raise forms.ValidationError(
                _("Domains ending in .%(tld)s are sold for %(terms)s years."),
                code="term_not_sold",
                params={"tld": self.line.tld, "terms": _terms_text(self.line.durations)},
            )
        return duration


def _terms_text(terms: list[int]) -> str:
    words = [str(t) for t in terms]
    return (
        words[0]
        if len(words) == 1
        else gettext("%(some)s or %(last)s") % {"some": ", ".join(words[:-1]), "last": words[-1]}
    )


# --- Checkout ---------------------------------------------------------------------------------------------------

# Also shown by the review a Buy without the terms accepted is sent back to (checkout_views.ACCEPT_MISSING_KEY).
ACCEPT_ERROR = _("To buy, please accept the terms of service and the domain registration agreement.")


class CheckoutForm(forms.Form):
    checkout_id = forms.UUIDField(error_messages={"required": "expired", "invalid": "expired"})
    # What this tab showed (review_digest of its lines and totals): Buy buys that, or nothing.
    review_digest = forms.CharField(max_length=64, error_messages={"required": "expired"})
    # The terms of service and the registration agreement (storefront/legal.py), recorded with the order.
    accept_terms = forms.BooleanField(error_messages={"required": ACCEPT_ERROR})
    # The versions of those two pages when the review was shown (storefront.legal.legal_versions_current).
    legal_versions = forms.CharField(max_length=40, required=False)


# --- Orders -----------------------------------------------------------------------------------------------------


class OrdersFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=80, strip=True)
    page = forms.IntegerField(required=False, min_value=1, max_value=100_000)


class RenewForm(forms.Form):
    duration = forms.TypedChoiceField(
        choices=[(n, n) for n in RENEW_YEARS],
        coerce=int,
        error_messages={
            "required": _("Choose how many years to renew for."),
            "invalid_choice": _("Choose a renewal term between 1 and 9 years."),
        },
    )
    renew_token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": _("This form has expired. Please try again."),
            "invalid": _("This form has expired. Please try again."),
        },
    )
    # The expiry the page showed (seconds since the epoch): a renewal is from that expiry or not at all.
    expiry_timestamp = forms.IntegerField(
        widget=forms.HiddenInput,
        min_value=0,
        max_value=2**40,
        error_messages={
            "required": _("This form has expired. Please reload the page and try again."),
            "invalid": _("This form has expired. Please reload the page and try again."),
        },
    )
    # Absent on the first step (which shows the price and the new expiry); set by the confirmation's button.
    confirm = forms.BooleanField(required=False)


class AutoRenewForm(forms.Form):
    auto_renew = forms.ChoiceField(
        choices=[("on", "on"), ("off", "off")],
        error_messages={"required": _("Choose on or off."), "invalid_choice": _("Choose on or off.")},
    )


class TransferCodeForm(forms.Form):
    """Nothing to type: the password (and the two-factor code, when on) is asked by allauth's re-authentication."""
