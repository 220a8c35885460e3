"""A backend name that signed-in sessions from before may still carry.

For a while a sign-in pointed its session at `accounts.backends.SignedInUserBackend`, which read the user in one
plain SQL statement. That speed-up rebuilt the ORM's value conversion by hand (a private part of Django) and is gone:
the class stays, at the same dotted path and listed in AUTHENTICATION_BACKENDS, so that those sessions keep loading
their user (Django's `get_user` refuses a backend the settings no longer name) and nobody is signed out. It is
Django's ModelBackend, and it signs nobody in: signing in is Django's and allauth's backends' work.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest


class SignedInUserBackend(ModelBackend):
    """ModelBackend for loading the user of an older session; it signs nobody in."""

    def authenticate(self, request: HttpRequest | None, **credentials: Any) -> None:  # type: ignore[override]
        return None  # no second password check, no second hash: the other backends sign in
