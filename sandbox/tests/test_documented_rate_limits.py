"""Per-key rate limits as documented (rate-limits.mdx): 50/s for search, 10/s for the rest, bursts up to twice
that for 5 s, X-RateLimit-* headers on every answer, 429 with Retry-After in the endpoint's error shape."""

import threading
from types import SimpleNamespace

import pytest
from django.db import connection

from sandbox.faults import inject
from sandbox.models import ApiKey, RateBucket
from sandbox.ratelimit import OTHER, SEARCH, consume

from .conftest import ApiClient

pytestmark = pytest.mark.django_db

NOW = 1_800_000_000.25
SEARCH_PATHS = ["/api/v1/domains/availability"]


@pytest.fixture
def frozen(monkeypatch):
    """Every request of the test falls in one Unix second, so counts do not depend on the machine's speed."""
    clock = SimpleNamespace(time=lambda: NOW)
    monkeypatch.setattr("sandbox.ratelimit.time", clock)
    return clock


@pytest.fixture
def demo_key(partner) -> ApiKey:
    return ApiKey.objects.get(partner=partner, label="demo")


def headers(response):
    return tuple(response.get(name) for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"))


def test_every_answer_carries_the_documented_limits(api, frozen, customer_id):
    reset = str(int(NOW) + 1)
    for path in SEARCH_PATHS:
        assert headers(api.get(path, {"search_term": "coffee"}))[::2] == ("50", reset)
    assert headers(api.get("/metasearch/v1/search", {"search_term": "coffee"}))[::2] == ("50", reset)
    assert headers(api.get("/api/v1/hello"))[::2] == ("10", reset)
    assert headers(api.get("/api/v1/domains/orders", {"customer_id": customer_id}))[::2] == ("10", reset)
    refused = api.post("/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "x", "duration": 1})
    assert refused.status_code == 422
    assert headers(refused)[0] == "10"


def test_remaining_counts_down_within_a_second(api, frozen):
    # A fresh key may burst to twice its rate: 20 requests in this second; the signup fixture was not used here.
    remaining = [int(headers(api.get("/api/v1/hello"))[1]) for _ in range(4)]
    assert remaining == [19, 18, 17, 16]
    assert headers(api.get("/api/v1/domains/availability", {"search_term": "tea"}))[1] == "99"


def test_over_the_limit_is_429_with_retry_after(api, partner, frozen):
    partner.rate_limit = 2
    partner.save()
    answers = [api.get("/api/v1/hello") for _ in range(5)]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 429]
    refused = answers[-1]
    assert refused.json() == {"message": "Too Many Requests"}
    assert refused["Retry-After"] == "1"
    assert headers(refused) == ("2", "0", str(int(NOW) + 1))
    # Search has its own budget.
    assert api.get("/api/v1/domains/availability", {"search_term": "tea"}).status_code == 200


def test_metasearch_429_has_its_error_shape(api, partner, frozen):
    partner.search_rate_limit = 1
    partner.save()
    codes = [api.get("/metasearch/v1/search", {"search_term": "tea"}).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    refused = api.get("/metasearch/v1/search", {"search_term": "tea"})
    assert refused.json() == {"error": "Too Many Requests"}
    assert refused["Retry-After"] == "1"


def test_limits_are_per_key(api, partner, frozen):
    partner.rate_limit = 1
    partner.save()
    _, second_key = ApiKey.issue(partner=partner, label="rotation")
    other = ApiClient(second_key)
    assert [api.get("/api/v1/hello").status_code for _ in range(3)] == [200, 200, 429]
    assert other.get("/api/v1/hello").status_code == 200


def test_the_next_second_is_served_again(api, partner, monkeypatch):
    partner.rate_limit = 1
    partner.save()
    clock = SimpleNamespace(time=lambda: NOW)
    monkeypatch.setattr("sandbox.ratelimit.time", clock)
    assert [api.get("/api/v1/hello").status_code for _ in range(3)] == [200, 200, 429]
    clock.time = lambda: NOW + 1
    assert api.get("/api/v1/hello").status_code == 200


def test_sustained_at_the_rate_everything_passes(demo_key):
    verdicts = [consume(key=demo_key, group=OTHER, now=NOW + n / 10) for n in range(300)]
    assert all(v.allowed for v in verdicts)


def test_twice_the_rate_is_allowed_for_five_seconds_then_refused(demo_key):
    # 20 requests a second, evenly spread: the burst allowance lasts about 5 seconds.
    verdicts = [consume(key=demo_key, group=OTHER, now=NOW + n / 20) for n in range(120)]
    allowed = [v.allowed for v in verdicts]
    assert all(allowed[: 4 * 20 + 10])
    assert not all(allowed[5 * 20 : 6 * 20])
    assert sum(allowed[5 * 20 : 6 * 20]) <= 10 + 1  # back to the sustained rate
    assert verdicts[-1].retry_after == 1


def test_no_second_serves_more_than_twice_the_rate(demo_key):
    verdicts = [consume(key=demo_key, group=SEARCH, now=NOW) for _ in range(101)]
    assert sum(v.allowed for v in verdicts) == 100
    assert (verdicts[-1].allowed, verdicts[-1].remaining, verdicts[-1].retry_after) == (False, 0, 1)
    assert consume(key=demo_key, group=SEARCH, now=NOW + 1).allowed


def test_a_refused_request_spends_nothing(demo_key, partner):
    partner.rate_limit = 1
    partner.save()
    demo_key.refresh_from_db()
    for _ in range(10):
        consume(key=demo_key, group=OTHER, now=NOW)
    # Two were spent (the ceiling of this second), eight refused without spending: a second later the bucket
    # (5 tokens, 1 a second) holds 3 + 1, so after this request the ceiling of 2 a second is what binds.
    later = consume(key=demo_key, group=OTHER, now=NOW + 1)
    assert (later.allowed, later.remaining) == (True, 1)
    assert RateBucket.objects.get(key=demo_key, group=OTHER).tokens == pytest.approx(3.0)


def test_the_rate_limited_fault_still_answers_429(api):
    with inject(rate_limited=True):
        response = api.get("/api/v1/hello")
    assert response.status_code == 429
    assert response["Retry-After"] == "2"


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_never_overspend(partner):
    key = ApiKey.objects.get(partner=partner, label="demo")
    results: list[bool] = []
    lock = threading.Lock()

    def client() -> None:
        try:
            for _ in range(6):
                allowed = consume(key=key, group=OTHER, now=NOW).allowed
                with lock:
                    results.append(allowed)
        finally:
            connection.close()

    threads = [threading.Thread(target=client) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 36
    assert sum(results) == 20  # twice the 10/s of the one second they all fell in
    assert RateBucket.objects.get(key=key, group=OTHER).used == 20
