"""Fixtures of the storefront's own tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from storefront.gateway import ResellerGateway, gateway
from storefront.resilience import cache as fallback


@pytest.fixture
def gw(sandbox_url) -> Iterator[ResellerGateway]:
    """The gateway as configured, pointed at the freshly reset sandbox."""
    client = gateway()
    assert isinstance(client, ResellerGateway)  # the HTTP client, not the in-memory provider
    yield client
    # Close the kept-alive connections now, so none lingers on the sandbox's threads past the test.
    client.session.close()


@pytest.fixture
def outage(monkeypatch) -> fallback._Outage:
    """A fresh outage state of the Redis fallback (storefront/resilience/cache.py) for this test, retrying Redis
    quickly."""
    state = fallback._Outage()
    monkeypatch.setattr(fallback, "_outage", state)
    monkeypatch.setattr(fallback, "RETRY_SECONDS", 0.3)
    fallback._local().clear()
    return state
