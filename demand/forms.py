from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class NotifyForm(forms.Form):
    """The "email me when this arrives" tick box; unticked takes the request back."""

    notify = forms.BooleanField(required=False, label=_("Email me when this arrives"))
