"""Fixtures of the storefront's own tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from storefront.gateway import ResellerGateway, gateway


@pytest.fixture
def gw(sandbox_url) -> Iterator[ResellerGateway]:
    """The gateway as configured, pointed at the freshly reset sandbox."""
    client = gateway()
    assert isinstance(client, ResellerGateway)  # the HTTP client, not the in-memory provider
    yield client
    # Close the kept-alive connections now, so none lingers on the sandbox's threads past the test.
    client.session.close()
