"""The account's tax details form: business or not, the VAT/GST number (checked for format and check digits), and
what the e-invoices carry: the buyer's reference, and whether a customer who is not a business wants them."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from pricing.tax_numbers import InvalidTaxNumber, TaxNumber, tax_number_parse
from storefront.site import countries


def _country_name(code: str) -> str:
    found = countries.country(code)
    return found.display_name if found else code


class TaxDetailsForm(forms.Form):
    is_business = forms.BooleanField(label=_("I buy as a business"), required=False)
    tax_number = forms.CharField(
        label=_("VAT or GST number"),
        required=False,
        max_length=32,
        help_text=_("With its country prefix for EU numbers, e.g. DE136695976."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    buyer_reference = forms.CharField(
        label=_("Buyer reference or purchase order number"),
        required=False,
        max_length=100,
        help_text=_("Shown on your e-invoices, e.g. your purchase order number or the routing ID your accounts use."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    wants_einvoices = forms.BooleanField(
        label=_("Send me e-invoices (Factur-X and XRechnung) even though I do not buy as a business"),
        required=False,
    )

    def __init__(self, *args: Any, country: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.country = country
        self.number: TaxNumber | None = None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        typed = (cleaned.get("tax_number") or "").strip()
        if not cleaned.get("is_business"):
            return cleaned
        if not typed:
            self.add_error("tax_number", _("Enter your business's VAT or GST number."))
            return cleaned
        try:
            self.number = tax_number_parse(self.country, typed)
        except InvalidTaxNumber:
            self.add_error(
                "tax_number",
                _(
                    "This is not a valid VAT or GST number for %(country)s: check its letters and digits "
                    "(the last ones are check digits)."
                )
                % {"country": _country_name(self.country)},
            )
        return cleaned
