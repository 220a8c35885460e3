"""`manage.py ensure_staff`: the password is printed when the login is created, never again unless reset."""

import io

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("ensure_staff", "--email", "boss@example.com", *args, stdout=out)
    return out.getvalue()


def _password(output: str) -> str:
    return output.strip().rsplit(" / ", 1)[1]


def test_it_prints_a_working_password_once_on_creation():
    password = _password(_run())
    user = authenticate(username="boss@example.com", password=password)
    assert user is not None and user.is_staff and user.is_superuser

    again = _run()
    assert password not in again
    assert " / " not in again
    # The password was not rotated behind the operator's back.
    assert authenticate(username="boss@example.com", password=password) is not None


def test_reset_sets_and_prints_a_new_password():
    first = _password(_run())
    second = _password(_run("--reset"))
    assert second != first
    assert authenticate(username="boss@example.com", password=first) is None
    assert authenticate(username="boss@example.com", password=second) is not None
