"""The signed-in user of each request, read in one SQL statement built from the model.

Every signed-in page loads its user (Django's `auth.get_user`, through the backend the session names). Django's
and allauth's backends build an ORM query for it each time; measured inside gunicorn, building it cost about six
times running it (docs/benchmarks.md). This backend reads the same row with one plain SQL statement
(storefront/model_reads.py) and is ModelBackend otherwise (an inactive user is no user).

It never signs anyone in (`authenticate` is Django's and allauth's, unchanged): after a sign-in through them, the
session is pointed at this backend (accounts/receivers.py). Sessions from before keep the backend they name, which
stays listed in AUTHENTICATION_BACKENDS, so nobody is signed out by the change.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.http import HttpRequest

from storefront.model_reads import model_row_read

SIGNED_IN_USER_BACKEND = "accounts.backends.SignedInUserBackend"


class SignedInUserBackend(ModelBackend):
    """ModelBackend's reading of a user (its active rule, its permissions), in one statement; it signs nobody in."""

    def authenticate(self, request: HttpRequest | None, **credentials: Any) -> None:  # type: ignore[override]
        return None  # signing in is the other backends' (no second password check, no second hash)

    def get_user(self, user_id: Any) -> User | None:
        user = user_by_id(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


def user_by_id(user_id: Any) -> User | None:
    """The user row as the ORM would build it (`User.objects.get(pk=…)`), or None."""
    user: User | None = model_row_read(get_user_model(), ("pk", "=", user_id))
    return user
