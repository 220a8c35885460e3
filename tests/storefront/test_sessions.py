"""Sessions are Django's own engines (settings): in the database, and with Redis through Django's `cached_db`, whose
copies (storefront.resilience.cache.SessionCopiesCache) live a minute at most and are neither kept nor read while Redis
is away, so a session ended in another process is never served from this one's memory. A private redis-server
(bench/redis_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.redis_server import RedisServer
from storefront.resilience.cache import SESSION_COPY_SECONDS
from tests.conftest import CUSTOMER_PASSWORD
from tests.settings_env import settings_with

pytestmark = pytest.mark.django_db

_SESSION_SETTINGS = ("CACHES", "SESSION_ENGINE", "SESSION_CACHE_ALIAS")


def _as_production(cache_url: str) -> dict:
    """The cache and session settings storefront/settings.py makes of CACHE_URL (template fragments left out)."""
    made = settings_with(DJANGO_DEBUG="true", CACHE_URL=cache_url)
    chosen = {name: made[name] for name in _SESSION_SETTINGS if name in made}
    chosen["CACHES"] = {alias: conf for alias, conf in chosen["CACHES"].items() if alias != "template_fragments"}
    return chosen


@pytest.fixture
def redis_server(outage) -> Iterator[RedisServer]:
    with RedisServer() as server:
        with override_settings(**_as_production(server.url.replace("redis://", "rediscache://"))):
            yield server


def _signed_in(client, customer) -> None:
    answer = client.post("/accounts/login/", {"login": customer.user.email, "password": CUSTOMER_PASSWORD})
    assert answer.status_code == 302


def _session_queries(client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return [q["sql"] for q in queries if "django_session" in q["sql"]]


def test_settings_choose_djangos_own_session_engines():
    redis_settings = _as_production("rediscache://127.0.0.1:6379/0")
    assert redis_settings["SESSION_ENGINE"] == "django.contrib.sessions.backends.cached_db"
    assert redis_settings["CACHES"][redis_settings["SESSION_CACHE_ALIAS"]]["BACKEND"] == (
        "storefront.resilience.cache.SessionCopiesCache"
    )
    assert _as_production("dbcache://storefront_cache")["SESSION_ENGINE"] == "django.contrib.sessions.backends.db"


def test_a_signed_in_page_reads_its_session_from_redis_not_the_database(redis_server, client, customer):
    _signed_in(client, customer)
    page = client.get("/account/")
    assert page.status_code == 200 and customer.user.email in page.content.decode()
    assert _session_queries(client, "/account/") == []


def test_a_session_copy_lives_a_minute_at_most(redis_server, client, customer):
    _signed_in(client, customer)
    client.get("/account/")
    shared = redis.Redis.from_url(redis_server.url)
    keys = shared.keys("*django.contrib.sessions*")
    assert keys, "the session was not copied to Redis"
    assert all(0 < shared.ttl(key) <= SESSION_COPY_SECONDS for key in keys)


def test_signing_out_ends_the_copy_too(redis_server, client, customer):
    _signed_in(client, customer)
    client.get("/account/")
    client.post("/accounts/logout/")
    assert client.get("/account/").status_code == 302


def test_while_redis_is_away_a_session_ended_elsewhere_is_not_served_from_this_process(
    redis_server, outage, client, customer
):
    redis_server.stop()
    _signed_in(client, customer)  # kept in the database only
    assert outage.down
    assert "Sign out" in client.get("/account/").content.decode()
    assert _session_queries(client, "/account/")  # read from the database, not this process's memory
    Session.objects.all().delete()  # signed out in another process: its deletion never reached this one's memory
    assert client.get("/account/").status_code == 302  # sent to sign in


def test_with_the_database_cache_a_page_reads_its_session_from_the_database(client, customer):
    _signed_in(client, customer)
    page = client.get("/account/")
    assert page.status_code == 200 and customer.user.email in page.content.decode()
    assert len(_session_queries(client, "/account/")) == 1


def test_an_expired_session_signs_the_customer_out(client, customer):
    _signed_in(client, customer)
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    answer = client.get("/account/")
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
