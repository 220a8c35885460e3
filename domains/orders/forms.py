"""What the order pages accept: the list's search and page, renewal, auto-renew and the transfer code."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from domains.orders.services import RENEW_YEARS


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
    # The price the confirmation showed: the renewal is made at that price or not at all.
    price_shown = forms.DecimalField(required=False, max_digits=12, decimal_places=2, widget=forms.HiddenInput)
    # Which of the confirmation's buttons: charge the saved card now, or the payment page (also when absent).
    pay_with = forms.ChoiceField(
        required=False,
        choices=[("card", "card"), ("page", "page")],
        error_messages={"invalid_choice": _("Choose how to pay: your saved card or the payment page.")},
    )


class AutoRenewForm(forms.Form):
    auto_renew = forms.ChoiceField(
        choices=[("on", "on"), ("off", "off")],
        error_messages={"required": _("Choose on or off."), "invalid_choice": _("Choose on or off.")},
    )


class TransferCodeForm(forms.Form):
    """Nothing to type: the password (and the two-factor code, when on) is asked by allauth's re-authentication."""
