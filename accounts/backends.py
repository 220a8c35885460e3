"""The signed-in user of each request, read in one SQL statement built from the model.

Every signed-in page loads its user (Django's `auth.get_user`, through the backend the session names). Django's
and allauth's backends build an ORM query for it each time; measured inside gunicorn, building it cost about six
times running it (README "Benchmarks"). This backend reads the same row with one plain SQL statement composed from
the model's names, applies the database converters the ORM's compiler applies, and keeps ModelBackend's rule (an
inactive user is no user).

It never signs anyone in (`authenticate` is Django's and allauth's, unchanged): after a sign-in through them, the
session is pointed at this backend (accounts/receivers.py). Sessions from before keep the backend they name, which
stays listed in AUTHENTICATION_BACKENDS, so nobody is signed out by the change.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import BaseBackend
from django.contrib.auth.models import User
from django.db import connections, router
from django.http import HttpRequest

SIGNED_IN_USER_BACKEND = "accounts.backends.SignedInUserBackend"


class SignedInUserBackend(BaseBackend):
    def authenticate(self, request: HttpRequest | None, **credentials: Any) -> None:
        return None  # signing in is the other backends' (no second password check, no second hash)

    def get_user(self, user_id: Any) -> User | None:
        user = user_by_id(user_id)
        if user is None:
            return None
        # ModelBackend.user_can_authenticate's rule: a model without is_active counts as active.
        is_active = getattr(user, "is_active", None)
        return user if is_active or is_active is None else None


def user_by_id(user_id: Any) -> User | None:
    """The user row as the ORM would build it (`User.objects.get(pk=…)`), or None."""
    model = get_user_model()
    meta = model._meta
    alias = router.db_for_read(model)
    connection = connections[alias]
    quote = connection.ops.quote_name
    fields = meta.concrete_fields
    sql = (
        f"SELECT {', '.join(quote(field.column) for field in fields)} FROM {quote(meta.db_table)} "  # noqa: S608
        f"WHERE {quote(meta.pk.column)} = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [meta.pk.get_db_prep_value(user_id, connection)])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for field, value in zip(fields, row, strict=True):
        column = field.get_col(meta.db_table)
        for converter in (*connection.ops.get_db_converters(column), *column.get_db_converters(connection)):
            value = converter(value, column, connection)
        values.append(value)
    user: User = model.from_db(alias, [field.attname for field in fields], values)
    return user
