"""What the search box accepts."""

from __future__ import annotations

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from domains.search.services import DOMAIN_MAX
from storefront.requests.typed_text import TypedTextField

# A pasted address may carry a path and a query: room for that, but not for a whole page of text.
TYPED_MAX = 2000


class SearchForm(forms.Form):
    # Control characters (a pasted NUL, an escape) are dropped, never searched for (storefront/requests/typed_text.py).
    q = TypedTextField(
        required=False,
        max_length=TYPED_MAX,
        error_messages={
            "max_length": format_lazy(
                _("A domain can be at most {limit} characters. Try a shorter name."), limit=DOMAIN_MAX
            )
        },
    )
