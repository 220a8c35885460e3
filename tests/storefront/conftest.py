"""Fixtures of the storefront's own tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bench.servers import collect_static_once
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


@pytest.fixture(scope="session")
def collected_static() -> dict[str, str]:
    """For the runs of the whole stack (bench/prod_like.py, bench/fault_matrix.py): the static files collected once
    for the session, as the build does, and the environment that tells the runs so (each collected them again)."""
    # One id for every worker of this run (pytest-xdist's), or this process when it runs alone.
    return collect_static_once(os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}")
