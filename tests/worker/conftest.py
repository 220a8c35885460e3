from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import override_settings

from accounts.models import Customer
from tests.domains.conftest import customer, seeded_partner  # noqa: F401 - the domain tests' priced catalogue
from tests.factories import CustomerFactory
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
    """A customer linked to a provider id that no provider knows, for tests that never reach the provider."""
    return CustomerFactory.create()
