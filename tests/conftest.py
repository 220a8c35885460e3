"""Fixtures shared by every test module."""

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings

from storefront.gateway import gateway


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _fresh_gateway() -> Iterator[None]:
    """Each test starts with a new gateway, so one test's failures never leave the circuit breaker open."""
    gateway.cache_clear()
    yield
    gateway.cache_clear()


@pytest.fixture
def sandbox_url(live_server) -> Iterator[str]:
    """The built-in sandbox served over real HTTP, with the gateway pointed at it."""
    root = f"{live_server.url}/sandbox"
    with override_settings(
        RESELLER_BASE_URL=root,
        RESELLER_METASEARCH_URL=f"{root}/metasearch",
        RESELLER_PANEL_URL=f"{root}/panel",
    ):
        gateway.cache_clear()
        yield root
    gateway.cache_clear()


@pytest.fixture
def sandbox_partner(django_db_blocker) -> None:
    """The sandbox's demo partner (the one settings.RESELLER_API_KEY opens), with its catalogue."""
    with django_db_blocker.unblock():
        call_command("sandbox_seed", verbosity=0)
