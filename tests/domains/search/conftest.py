"""Fixtures of the search tests."""

from __future__ import annotations

import pytest

from tests.fakes.gateway import FakeGateway


@pytest.fixture
def metasearch_calls(monkeypatch) -> list[str]:
    """Counts MetaSearch calls made by the gateway; each still goes to the sandbox."""
    calls: list[str] = []
    real = FakeGateway.metasearch

    def counting(self, *, search_term: str, **kwargs):
        calls.append(search_term)
        return real(self, search_term=search_term, **kwargs)

    monkeypatch.setattr(FakeGateway, "metasearch", counting)
    return calls
