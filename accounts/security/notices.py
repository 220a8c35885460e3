"""Security notices by email (through the worker, see accounts/signup/adapter.py): a transfer code was shown, the
account was signed in from a new browser. Password, email and two-factor changes are allauth's own notices."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from django.http import HttpRequest

NOTICES = {
    "transfer_code": "accounts/email/transfer_code_revealed",
    "new_browser": "accounts/email/new_browser",
}


def security_notice(*, request: HttpRequest, what: str, detail: str = "", user: Any = None) -> None:
    """Email the user (the signed-in one unless given) that `what` happened, with when, from which address and
    browser."""
    get_adapter(request).send_notification_mail(NOTICES[what], user or request.user, {"detail": detail})
