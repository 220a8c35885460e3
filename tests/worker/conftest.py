from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from accounts.models import Customer
from tests.conftest import CONTACT
from tests.domains.conftest import customer, other_customer, seeded_partner  # noqa: F401
from tests.worker.mailserver import FlakyServer


@pytest.fixture
def mail_server() -> Iterator[type[FlakyServer]]:
    """The mail server: `mail_server.down = True` makes every send fail as a dropped SMTP connection."""
    FlakyServer.down = False
    with override_settings(EMAIL_BACKEND="tests.worker.mailserver.EmailBackend"):
        yield FlakyServer
    FlakyServer.down = False


@pytest.fixture
def offline_customer(db) -> Customer:
    """A customer linked to a provider id, for tests that never reach the provider."""
    email = f"worker-{uuid.uuid4().hex[:8]}@example.org"
    user = get_user_model().objects.create_user(username=email, email=email, password="Worker#Pass9")
    return Customer.objects.create(user=user, customer_id=90_000 + user.pk, **CONTACT)
