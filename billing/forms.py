"""What the payments pages accept: the "add a card" form."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class CardSetupForm(forms.Form):
    # The form's one-time token: posted twice (a double click, two tabs), it opens the same setup page.
    setup_token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": _("This form has expired. Please try again."),
            "invalid": _("This form has expired. Please try again."),
        },
    )
