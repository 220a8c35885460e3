"""Sessions that name accounts.backends.SignedInUserBackend (stored by sign-ins while it read the user in one plain
SQL statement) still load their user through Django's ModelBackend, and the backend signs nobody in."""

from __future__ import annotations

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, authenticate, get_user_model
from django.contrib.sessions.models import Session

from accounts.backends import SignedInUserBackend
from tests.conftest import CUSTOMER_PASSWORD

pytestmark = pytest.mark.django_db

OLD_BACKEND = "accounts.backends.SignedInUserBackend"


def _session_naming(client, customer, backend: str) -> None:
    client.force_login(customer.user, backend="django.contrib.auth.backends.ModelBackend")
    session = Session.objects.get()
    data = session.get_decoded()
    data[BACKEND_SESSION_KEY] = backend  # as an earlier sign-in stored it
    Session.objects.filter(pk=session.pk).update(session_data=Session.objects.encode(data))


def test_a_sign_in_names_a_backend_that_signs_in(client, customer):
    answer = client.post("/accounts/login/", {"login": customer.user.email, "password": CUSTOMER_PASSWORD})
    assert answer.status_code == 302
    assert Session.objects.get().get_decoded()[BACKEND_SESSION_KEY] != OLD_BACKEND


@pytest.mark.parametrize("backend", [OLD_BACKEND, "allauth.account.auth_backends.AuthenticationBackend"])
def test_a_session_from_before_keeps_its_backend_and_stays_signed_in(client, customer, backend):
    _session_naming(client, customer, backend)
    page = client.get("/account/")
    assert page.status_code == 200 and customer.user.email in page.content.decode()


def test_a_switched_off_account_with_an_old_session_is_signed_out(client, customer):
    _session_naming(client, customer, OLD_BACKEND)
    get_user_model().objects.filter(pk=customer.user.pk).update(is_active=False)
    assert client.get("/account/").status_code == 302


def test_it_never_signs_anyone_in(customer):
    assert SignedInUserBackend().authenticate(None, username=customer.user.username, password=CUSTOMER_PASSWORD) is None
    # Signing in is still the other backends' work.
    assert authenticate(None, email=customer.user.email, password=CUSTOMER_PASSWORD) == customer.user
