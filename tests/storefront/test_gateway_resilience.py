"""Breaker, call slots, rate limits, retries and logging of the gateway, against a scripted server."""

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache

from storefront.gateway import OutcomeUnknown, RateLimited, ResellerGateway, Unavailable
from tests.storefront.scripted_server import Answer, ScriptedServer

KEY = "test_resilience-key-never-logged"
HELLO = {"server_time": "t", "message": "Authorized"}
EMPTY_SEARCH = {"results": [], "results_total": 0, "results_hidden": 0, "meta": {}, "message": "none"}


@pytest.fixture
def server():
    with ScriptedServer().running() as running:
        yield running


@pytest.fixture(autouse=True)
def _clean_cache():
    cache.clear()
    yield
    cache.clear()


def make_client(server, **options) -> ResellerGateway:
    settings = {"connect_timeout": 0.5, "read_timeout": 2.0, "get_retries": 0, **options}
    return ResellerGateway(base_url=server.url, metasearch_url=server.url + "/ms", api_key=KEY, **settings)


# --- Circuit breaker and call slots -------------------------------------------------------------------------


def test_a_half_open_trial_refused_by_the_bulkhead_does_not_keep_the_circuit_open(server):
    clock = [1000.0]
    client = make_client(server, breaker_threshold=1, breaker_cooldown=30, max_concurrent_calls=1)
    client.main.breaker._clock = lambda: clock[0]
    server.script(Answer(status=503, body="down"))
    with pytest.raises(Unavailable):
        client.hello()  # opens the circuit
    clock[0] += 31  # half-open: the next call is the trial
    # Every call slot is busy when the trial comes: it is refused before anything is sent.
    assert client.main.slots._semaphore.acquire(blocking=False)
    with pytest.raises(Unavailable):
        client.hello()
    client.main.slots._semaphore.release()
    server.script(Answer(body=HELLO))
    assert client.hello().message == "Authorized"  # a new trial went through and closed the circuit


def test_a_search_outage_holding_every_search_slot_never_blocks_buying(server):
    client = make_client(server, max_concurrent_calls=1)
    server.script(Answer(delay=0.8, body=EMPTY_SEARCH), Answer(body=HELLO))
    with ThreadPoolExecutor(max_workers=1) as pool:
        slow = pool.submit(client.metasearch, search_term="slow")
        time.sleep(0.3)  # the search holds MetaSearch's only slot
        assert client.hello().message == "Authorized"  # the main interface has slots of its own
        assert slow.result().results == []


# --- Rate limits ------------------------------------------------------------------------------------------


def test_a_429_makes_every_instance_wait_and_send_nothing(server):
    first = make_client(server)
    second = make_client(server)  # another process: shares only the cache
    server.script(Answer(status=429, headers={"Retry-After": "30"}, body={"message": "Too Many Requests"}))
    with pytest.raises(RateLimited) as caught:
        first.hello()
    # The whole shared wait: the provider's Retry-After plus up to 25% jitter, so instances do not all return at once.
    assert 30.0 <= caught.value.retry_after <= 30.0 * 1.25
    for client in (first, second):
        with pytest.raises(RateLimited) as waiting:
            client.hello()
        assert 0 < waiting.value.retry_after <= 30 * 1.25
    assert len(server.seen) == 1  # nothing was sent while cooling down


def test_the_cooldown_is_per_service(server):
    client = make_client(server)
    server.script(Answer(status=429, headers={"Retry-After": "30"}, body={"error": "Too Many Requests"}))
    with pytest.raises(RateLimited):
        client.metasearch(search_term="coffee")
    server.script(Answer(body=HELLO))
    assert client.hello().message == "Authorized"


def test_calls_stay_under_the_per_second_limit_across_instances(server, monkeypatch):
    """Two instances share one budget per wall-clock second. What the guard decides is read at the decision (its
    shared counter), not from when requests reached the provider: a loaded machine may carry a call admitted at
    the end of one second into the next."""
    admitted: dict[str, int] = {}
    lock = threading.Lock()
    incr = LocMemCache.incr

    def counted(self: LocMemCache, key: str, delta: int = 1, version: int | None = None) -> int:
        used = incr(self, key, delta, version=version)
        if key.startswith("provider-rate:") and used <= 3:
            with lock:
                admitted[key] = admitted.get(key, 0) + 1
        return used

    # On the class: each thread has its own cache object (sharing the one store of the tests' local-memory cache).
    monkeypatch.setattr(LocMemCache, "incr", counted)
    server.default = Answer(body=HELLO)
    clients = [make_client(server, rate_limit=3), make_client(server, rate_limit=3)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda i: clients[i % 2].hello(), range(5)))
    assert len(server.arrivals) == 5
    assert sum(admitted.values()) == 5
    assert max(admitted.values()) <= 3  # one counter for both instances: never more than the limit in a second
    assert len(admitted) >= 2  # the calls over budget waited for the next second


def test_each_answers_request_id_and_rate_headers_are_logged_never_the_key(server, caplog):
    caplog.set_level(logging.INFO, logger="storefront.gateway")
    client = make_client(server)
    headers = {"X-Request-Id": "req-123", "X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "9"}
    server.script(Answer(body=HELLO, headers=headers), Answer(body={**HELLO, "request_id": "req-body-7"}))
    client.hello()
    client.hello()
    assert "request_id=req-123" in caplog.text
    assert "x-ratelimit-remaining=9" in caplog.text
    assert "request_id=req-body-7" in caplog.text
    assert KEY not in caplog.text


# --- Retries: urllib3's Retry on the session, GETs only -----------------------------------------------------


def test_a_get_is_retried_on_503_by_the_session(server):
    client = make_client(server, get_retries=2)
    server.script(Answer(status=503, body="busy"), Answer(body=HELLO))
    assert client.hello().message == "Authorized"
    assert len(server.seen) == 2


def test_a_get_is_never_retried_after_a_read_timeout(server):
    client = make_client(server, get_retries=2, read_timeout=0.3)
    server.script(Answer(delay=0.6, body=HELLO), Answer(body=HELLO))
    with pytest.raises(Unavailable):
        client.hello()
    assert len(server.seen) == 1


def test_a_post_is_never_retried(server):
    client = make_client(server, get_retries=2)
    server.script(Answer(status=503, body="busy"), Answer(body={"status": "SUCCESS", "message": "ok"}))
    with pytest.raises(OutcomeUnknown):
        client.dns_activate(order_id=1)
    assert len(server.seen) == 1


def test_a_refused_connection_is_certainly_not_sent(server):
    dead = "http://127.0.0.1:9"
    client = ResellerGateway(
        base_url=dead, metasearch_url=dead, api_key=KEY, connect_timeout=0.5, read_timeout=0.5, get_retries=0
    )
    with pytest.raises(Unavailable) as caught:
        client.dns_activate(order_id=1)
    assert not isinstance(caught.value, OutcomeUnknown)  # decided from the exception's type: nothing was sent


def test_the_environment_is_read_once_per_origin_not_per_call(server, monkeypatch):
    """requests reads proxies from the process environment before each request; the gateway's sessions read it once
    per origin (bench/profile_search.py found a tenth of a search's own time there). A proxy set in the environment
    before the first call is still honoured: the provider's address is listed in no_proxy here, so it is bypassed."""
    import requests.sessions

    reads = []
    real = requests.sessions.get_environ_proxies

    def counted(url, no_proxy=None):
        reads.append(url)
        return real(url, no_proxy=no_proxy)

    monkeypatch.setattr(requests.sessions, "get_environ_proxies", counted)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there: used, every call would fail
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    server.default = Answer(body=HELLO)
    client = make_client(server)
    for _ in range(3):
        assert client.hello().message == "Authorized"
    assert len(reads) == 1
    assert len(server.arrivals) == 3
