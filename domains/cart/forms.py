"""What the cart accepts: a domain to add or remove, and a line's term."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from domains.cart.basket import MAX_DURATION, MIN_DURATION, CartLine
from storefront.site.domain_names import NotADomainName, domain_to_ascii

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
        try:
            # A name in another script is added as its A-label (what the provider registers): café.com as
            # xn--caf-dma.com; pages show both forms.
            name = domain_to_ascii(normalise_domain(self.cleaned_data["domain_name"]))
        except NotADomainName as err:
            raise forms.ValidationError(err.message, code="invalid") from err
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


class PrivacyForm(forms.Form):
    """WHOIS privacy on one cart line: added (the box ticked) or not; `next` is the page the form was on."""

    domain_name = forms.CharField(max_length=80)
    privacy = forms.BooleanField(required=False)
    next = forms.ChoiceField(choices=[("cart", "cart"), ("checkout", "checkout")], required=False)


class PromotionCodeForm(forms.Form):
    """A promotion code typed in the cart (or taken off: `remove`)."""

    code = forms.CharField(
        max_length=40, required=False, error_messages={"max_length": _("A code is at most 40 characters.")}
    )
    remove = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("remove") and not (data.get("code") or "").strip():
            self.add_error("code", gettext("Type a promotion code to apply."))
        return data
