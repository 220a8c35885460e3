"""Failed sign-ins are counted atomically: concurrent failures from many threads are all counted."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache

from accounts import throttle


class _SlowReads:
    """The real cache, with reads that take a moment, as a networked cache's do under load: a read-modify-write
    then interleaves between threads the way it does between processes."""

    def __init__(self, real):
        self._real = real

    def get(self, *args, **kwargs):
        value = self._real.get(*args, **kwargs)
        time.sleep(0.005)
        return value

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.fixture(autouse=True)
def _clean_cache():
    cache.clear()
    yield
    cache.clear()


def test_concurrent_failures_from_one_address_are_all_counted(monkeypatch):
    monkeypatch.setattr(throttle, "cache", _SlowReads(cache))
    start = threading.Barrier(throttle.PER_ADDRESS)

    def fail(index: int) -> None:
        start.wait()
        throttle.record_failure(email=f"user{index}@example.org", address="203.0.113.9")

    with ThreadPoolExecutor(max_workers=throttle.PER_ADDRESS) as pool:
        list(pool.map(fail, range(throttle.PER_ADDRESS)))
    # Exactly the limit of failures happened, so the address is now locked; one lost count would leave it open.
    assert throttle.locked_for(email="", address="203.0.113.9") > 0


def test_one_failure_fewer_than_the_limit_does_not_lock():
    for index in range(throttle.PER_ACCOUNT - 1):
        throttle.record_failure(email="ada@example.org", address=f"198.51.100.{index}")
    assert throttle.locked_for(email="ada@example.org", address="") == 0
    throttle.record_failure(email="ada@example.org", address="198.51.100.99")
    assert throttle.locked_for(email="ada@example.org", address="") > 0
    throttle.clear_account(email="ada@example.org")
    assert throttle.locked_for(email="ada@example.org", address="") == 0
