"""What customers type, cleaned where it comes in: control characters (NUL, escape, the C1 codes) are dropped.
Nothing a customer means to type holds one, and the provider answers some with a server error
(storefront/gateway/input_faults.py refuses any that get that far)."""

from __future__ import annotations

import re
from typing import Any

from django import forms

# C0 controls, DEL and the C1 controls: Unicode category Cc.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def control_characters_removed(text: str) -> str:
    return CONTROL_CHARACTERS.sub("", text)


class TypedTextField(forms.CharField):
    """A CharField that drops control characters before anything else (Django's own refuses a NUL with an error
    the customer cannot see in the box, which the orders page then read around)."""

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str):
            value = control_characters_removed(value)
        return super().to_python(value)
