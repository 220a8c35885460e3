"""What Buy posts: the reviewed checkout, the digest of what the tab showed, and the terms accepted."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

# Also shown by the review a Buy without the terms accepted is sent back to (domains.checkout.views.ACCEPT_MISSING_KEY).
ACCEPT_ERROR = _("To buy, please accept the terms of service and the domain registration agreement.")


class CheckoutForm(forms.Form):
    checkout_id = forms.UUIDField(error_messages={"required": "expired", "invalid": "expired"})
    # What this tab showed (review_digest of its lines and totals): Buy buys that, or nothing.
    review_digest = forms.CharField(max_length=64, error_messages={"required": "expired"})
    # The terms of service and the registration agreement (storefront/site/legal.py), recorded with the order.
    accept_terms = forms.BooleanField(error_messages={"required": ACCEPT_ERROR})
    # The versions of those two pages when the review was shown (storefront.site.legal.legal_versions_current).
    legal_versions = forms.CharField(max_length=40, required=False)
