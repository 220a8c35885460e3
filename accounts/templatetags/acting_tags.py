"""The admin's "Act as" button says why it is unavailable instead of disappearing (accounts/staff/acting.py)."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.staff.acting import acting_unavailable_reason

register = template.Library()


@register.simple_tag
def act_as_unavailable(hijacker: Any, hijacked: Any) -> str:
    """Why this staff login may not act as this user; empty when it may."""
    return acting_unavailable_reason(hijacker=hijacker, hijacked=hijacked) or ""
