"""The cache is an optimisation, never a dependency of a page (storefront/resilience/cache.py): with Redis unreachable
every page a customer uses still answers, limits count per process and the log says so, /readyz reports the cache
degraded, and Redis coming back is used again without a restart. A private redis-server each (bench/redis_server.py),
never the machine's shared one."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest
import redis
from django.core.cache import cache
from django.test import override_settings

from bench.redis_server import RedisServer
from storefront.models import OneTimeClaim
from tests.accounts.conftest import VALID
from tests.conftest import CUSTOMER_PASSWORD

pytestmark = pytest.mark.django_db


def _redis_cache(url: str) -> dict:
    return {"default": {"BACKEND": "storefront.resilience.cache.FallbackRedisCache", "LOCATION": url}}


def _redis_sessions(url: str) -> dict:
    """Production's pairing: Django's cached_db sessions through their copies' cache (storefront/settings.py)."""
    caches = {
        **_redis_cache(url),
        "sessions": {"BACKEND": "storefront.resilience.cache.SessionCopiesCache", "LOCATION": url},
    }
    return {
        "CACHES": caches,
        "SESSION_ENGINE": "django.contrib.sessions.backends.cached_db",
        "SESSION_CACHE_ALIAS": "sessions",
    }


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as server:
        yield server


@pytest.fixture
def redis_away(outage) -> Iterator[None]:
    """The cache is Redis, and Redis is not there (a free port: nothing listens on it, connections are refused)."""
    with override_settings(**_redis_sessions(RedisServer().url)):
        yield


def test_with_redis_away_the_cache_answers_from_the_process_and_the_log_says_so_once(redis_away, outage, caplog):
    caplog.set_level(logging.WARNING, logger="storefront.resilience.cache")
    cache.set("answer", 42)
    assert cache.get("answer") == 42
    assert cache.add("claim", 1) is True and cache.add("claim", 1) is False
    assert cache.incr("claim") == 2
    assert outage.down
    said = [r.getMessage() for r in caplog.records if "cache unreachable" in r.getMessage()]
    assert len(said) == 1
    assert "per-process limiter" in said[0]


def test_readyz_reports_the_cache_degraded_and_stays_ready(redis_away, client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"] == {"database": "ok", "cache": "degraded"}


def test_redis_coming_back_is_used_again_without_a_restart(redis_server, outage, caplog):
    caplog.set_level(logging.WARNING, logger="storefront.resilience.cache")
    shared = redis.Redis.from_url(redis_server.url)
    with override_settings(CACHES=_redis_cache(redis_server.url)):
        cache.set("before", "in redis")
        assert shared.exists(cache.make_key("before"))
        redis_server.stop()
        cache.set("during", "in this process")
        assert cache.get("during") == "in this process" and outage.down
        redis_server.start()  # the same port, empty
        time.sleep(0.4)  # past the retry interval
        cache.set("after", "in redis again")
        assert not outage.down
        assert shared.get(cache.make_key("after")) is not None
        assert cache.get("during") is None  # what the process kept alone is not served once Redis is back
    assert any("cache reachable again" in r.getMessage() for r in caplog.records)


def test_a_used_two_factor_code_is_claimed_in_the_database_while_redis_is_away(redis_away):
    # allauth marks a used code with cache.add: while Redis is away every process must still see the claim.
    key = "allauth.mfa.totp.used?user=7&code=123456"
    cache.set("warm-up", 1)  # the outage is known
    assert cache.add(key, "y", timeout=30) is True
    assert cache.add(key, "y", timeout=30) is False
    assert OneTimeClaim.objects.filter(key__endswith=key).exists()


@override_settings(RATE_LIMITS={"search": (3, 60)})
def test_limits_still_limit_per_process_while_redis_is_away(redis_away, client, fake_priced):
    statuses = [client.get("/search/", {"q": "coffee"}).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_every_page_a_customer_uses_answers_with_redis_away(redis_away, client, fake_priced, customer):
    """Sign-in (wrong password, then right), signup, search, cart, checkout review and Buy, the orders, the panel
    hand-off: each answers as it would with the cache up (rate limits and one-time claims included)."""
    email = customer.user.email
    assert client.get("/").status_code == 200
    wrong = client.post("/accounts/login/", {"login": email, "password": "Wrong#Pass1"})
    assert wrong.status_code == 200 and "not correct" in wrong.content.decode()
    assert client.post("/accounts/login/", {"login": email, "password": CUSTOMER_PASSWORD}).status_code == 302
    assert client.get("/search/", {"q": "coffeebeans"}).status_code == 200
    assert client.get("/search/", {"q": "coffeebeans"}, HTTP_HX_REQUEST="true").status_code == 200
    assert client.post("/cart/add/", {"domain_name": "coffeebeans.com"}).status_code in (200, 302)
    assert client.get("/cart/").status_code == 200
    review = client.get("/checkout/")
    assert review.status_code == 200
    page = review.content.decode()
    assert "coffeebeans.com" in page and 'name="checkout_id"' in page
    checkout_id = page.split('name="checkout_id" value="')[1].split('"')[0]
    digest = page.split('name="review_digest" value="')[1].split('"')[0]
    placed = client.post("/checkout/", {"checkout_id": checkout_id, "review_digest": digest, "accept_terms": "on"})
    assert placed.status_code in (302, 303)
    assert client.get(placed["Location"]).status_code == 200
    assert client.get("/orders/").status_code == 200
    assert client.post("/accounts/panel/").status_code in (302, 303)
    client.post("/accounts/logout/")
    signup = {**VALID, "email": "grace-away@example.org"}
    assert client.post("/accounts/signup/", signup).status_code == 302
