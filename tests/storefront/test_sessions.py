"""Sessions in the database, read in one plain SQL statement, and through Redis when the cache is Redis
(storefront/sessions.py): a signed-in page reads its session from the cache, copies live a minute at most, and
while Redis is away every read goes to the database, so a session ended in another process is never served from
this one's memory. A private redis-server (bench/redis_server.py)."""

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
from storefront.sessions import COPY_SECONDS, SessionStore
from tests.conftest import CUSTOMER_PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_server(outage) -> Iterator[RedisServer]:
    with RedisServer() as server:
        caches = {"default": {"BACKEND": "storefront.cache.FallbackRedisCache", "LOCATION": server.url}}
        with override_settings(CACHES=caches, SESSION_ENGINE="storefront.sessions"):
            yield server


def _signed_in(client, customer) -> None:
    answer = client.post("/accounts/login/", {"login": customer.user.email, "password": CUSTOMER_PASSWORD})
    assert answer.status_code == 302


def _session_queries(client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return [q["sql"] for q in queries if "django_session" in q["sql"]]


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
    assert all(0 < shared.ttl(key) <= COPY_SECONDS for key in keys)


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


# With the database cache (the default, as in these tests' settings) nothing is copied: the session row is read in
# one plain SQL statement.


def test_with_the_database_cache_a_page_reads_its_session_in_one_statement(client, customer):
    _signed_in(client, customer)
    page = client.get("/account/")
    assert page.status_code == 200 and customer.user.email in page.content.decode()
    reads = _session_queries(client, "/account/")
    assert len(reads) == 1 and reads[0].lstrip().upper().startswith("SELECT")


def test_an_expired_session_signs_the_customer_out(client, customer):
    _signed_in(client, customer)
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    answer = client.get("/account/")
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]


def test_the_session_is_read_as_the_orm_reads_it(client, customer):
    _signed_in(client, customer)
    stored = Session.objects.get()
    read = SessionStore(stored.session_key)._get_session_from_db()
    assert read is not None
    assert (read.session_key, read.session_data, read.expire_date) == (
        stored.session_key,
        stored.session_data,
        stored.expire_date,
    )
    assert timezone.is_aware(read.expire_date)
    assert SessionStore("no-such-session-key-0123456789abcdef")._get_session_from_db() is None
