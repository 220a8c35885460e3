"""A new search reads the shared cache once before asking the provider: its answer and the AI suggestions shown after
it in one read (each read is a round trip to Redis, a share of a search's own time: docs/benchmarks.md)."""

from __future__ import annotations

from typing import Any

import pytest

from domains.search import services

pytestmark = pytest.mark.django_db


class _CountingCache:
    def __init__(self, real: Any, reads: list[str]) -> None:
        self._real, self._reads = real, reads

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._real, name)
        if name not in ("get", "get_many"):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self._reads.append(name)
            return attribute(*args, **kwargs)

        return counted


def test_a_new_search_reads_the_shared_cache_once(client, fake_priced, monkeypatch):
    reads: list[str] = []
    monkeypatch.setattr(services, "cache", _CountingCache(services.cache, reads))
    services.search_cache_forget()
    page = client.get("/search/", {"q": "bluebirdbakery"})
    assert page.status_code == 200 and "bluebirdbakery.com" in page.content.decode()
    assert reads == ["get_many"]
    reads.clear()
    services.search_cache_forget()  # another process: the answer is in the shared cache only
    assert "bluebirdbakery.com" in client.get("/search/", {"q": "bluebirdbakery"}).content.decode()
    assert reads == ["get_many"]
