"""What the order pages accept: the list's search and page, renewal, auto-renew and the transfer code."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from domains.orders.services import RENEW_YEARS
from storefront.requests.typed_text import TypedTextField


class OrdersFilterForm(forms.Form):
    q = TypedTextField(required=False, max_length=80, strip=True)
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
    # A promotion code typed on the confirmation (pricing.promotions): the confirmation shows its discount.
    promotion_code = forms.CharField(
        required=False, max_length=40, error_messages={"max_length": _("A code is at most 40 characters.")}
    )


class AutoRenewForm(forms.Form):
    auto_renew = forms.ChoiceField(
        choices=[("on", "on"), ("off", "off")],
        error_messages={"required": _("Choose on or off."), "invalid_choice": _("Choose on or off.")},
    )


class TransferCodeForm(forms.Form):
    """Nothing to type: the password (and the two-factor code, when on) is asked by allauth's re-authentication."""


class PrivacySwitchForm(forms.Form):
    """WHOIS privacy already paid for: shown (on) or not (off)."""

    privacy = forms.ChoiceField(
        choices=[("on", "on"), ("off", "off")],
        error_messages={"required": _("Choose on or off."), "invalid_choice": _("Choose on or off.")},
    )


class PrivacyBuyForm(forms.Form):
    """Add WHOIS privacy: the page's one-time token, the price it showed, and how to pay (the saved card, or the
    payment page)."""

    token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": _("This form has expired. Please try again."),
            "invalid": _("This form has expired. Please try again."),
        },
    )
    price_shown = forms.DecimalField(
        max_digits=12,
        decimal_places=2,
        widget=forms.HiddenInput,
        error_messages={"required": _("This form has expired. Please reload the page and try again.")},
    )
    pay_with = forms.ChoiceField(choices=[("card", "card"), ("page", "page")], required=False)


class RenewManyForm(forms.Form):
    """The order list's "renew selected" (the ticked `order` ids), then its confirmation (a `line` per domain, as it
    showed them, with the one-time `token`, `confirm` and which button: `pay_with`)."""

    token = forms.UUIDField(required=False, widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=False)
    pay_with = forms.ChoiceField(required=False, choices=[("card", "card"), ("page", "page")])

    error_messages = {
        "none": _("Tick the domains you want to renew."),
        "expired": _("This form has expired. Please tick the domains again."),
    }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        try:
            cleaned["orders"] = [int(value) for value in _posted(self.data, "order")][:100]
            cleaned["lines"] = [_line(value) for value in _posted(self.data, "line")][:100]
        except (ValueError, InvalidOperation):
            raise forms.ValidationError(self.error_messages["expired"], code="expired") from None
        if cleaned.get("confirm"):
            if not cleaned["lines"] or cleaned.get("token") is None:
                raise forms.ValidationError(self.error_messages["expired"], code="expired")
            cleaned["orders"] = [line[0] for line in cleaned["lines"]]
        if not cleaned["orders"]:
            raise forms.ValidationError(self.error_messages["none"], code="none")
        if len(set(cleaned["orders"])) != len(cleaned["orders"]):  # a page never sends a domain twice
            raise forms.ValidationError(self.error_messages["expired"], code="expired")
        return cleaned


def _posted(data: Any, name: str) -> list[str]:
    """Every value posted under `name` (a QueryDict's list; a plain mapping's one value or list, in tests)."""
    if hasattr(data, "getlist"):
        return list(data.getlist(name))
    value = data.get(name, [])
    return [str(item) for item in value] if isinstance(value, list | tuple) else [str(value)]


def _line(value: str) -> tuple[int, int, int, Decimal]:
    order_id, years, expiry, price = value.split(":")
    amount = Decimal(price)
    if not amount.is_finite():  # NaN or Infinity: no price a page ever showed
        raise InvalidOperation(price)
    return int(order_id), int(years), int(expiry), amount
