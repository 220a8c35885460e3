"""The signed-in user is read in one plain SQL statement (accounts/backends.py) and is the same user the ORM reads:
signing in, signing out elsewhere, being switched off and sessions from before the change all behave as before."""

from __future__ import annotations

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, authenticate, get_user_model
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.backends import SIGNED_IN_USER_BACKEND, user_by_id
from tests.conftest import CUSTOMER_PASSWORD

pytestmark = pytest.mark.django_db


def _signed_in(client, customer) -> None:
    answer = client.post("/accounts/login/", {"login": customer.user.email, "password": CUSTOMER_PASSWORD})
    assert answer.status_code == 302


def _backend_of_the_session() -> str:
    return Session.objects.get().get_decoded()[BACKEND_SESSION_KEY]


def test_a_sign_in_names_the_quick_backend_and_the_pages_know_the_customer(client, customer):
    _signed_in(client, customer)
    assert _backend_of_the_session() == SIGNED_IN_USER_BACKEND
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/")
    assert page.status_code == 200 and customer.user.email in page.content.decode()
    reads = [q["sql"] for q in queries if 'FROM "auth_user"' in q["sql"]]
    assert len(reads) == 1 and "LIMIT" not in reads[0]  # one statement, not the ORM's get()


def test_the_user_read_is_the_orms_field_for_field(customer):
    user = get_user_model().objects.get(pk=customer.user.pk)
    user.last_login = timezone.now()
    user.is_staff = True
    user.save()
    quick = user_by_id(user.pk)
    assert quick is not None
    for field in user._meta.concrete_fields:
        assert getattr(quick, field.attname) == getattr(user, field.attname), field.name
    assert quick.is_staff is True and timezone.is_aware(quick.last_login)
    assert quick._state.adding is False and quick._state.db == "default"
    assert user_by_id(user.pk + 1000) is None


def test_a_password_changed_elsewhere_signs_the_browser_out(client, customer):
    _signed_in(client, customer)
    user = get_user_model().objects.get(pk=customer.user.pk)
    user.set_password("Another#Pass77")
    user.save()
    assert client.get("/account/").status_code == 302


def test_a_switched_off_account_is_signed_out(client, customer):
    _signed_in(client, customer)
    get_user_model().objects.filter(pk=customer.user.pk).update(is_active=False)
    assert client.get("/account/").status_code == 302


def test_a_session_from_before_keeps_its_backend_and_stays_signed_in(client, customer):
    client.force_login(customer.user, backend="django.contrib.auth.backends.ModelBackend")
    session = Session.objects.get()
    data = session.get_decoded()
    data[BACKEND_SESSION_KEY] = "allauth.account.auth_backends.AuthenticationBackend"  # as a sign-in stored it
    Session.objects.filter(pk=session.pk).update(session_data=Session.objects.encode(data))
    page = client.get("/account/")
    assert page.status_code == 200 and customer.user.email in page.content.decode()


def test_it_never_signs_anyone_in(customer):
    from accounts.backends import SignedInUserBackend

    assert SignedInUserBackend().authenticate(None, username=customer.user.username, password=CUSTOMER_PASSWORD) is None
    # Signing in is still the other backends' work.
    assert authenticate(None, email=customer.user.email, password=CUSTOMER_PASSWORD) == customer.user
