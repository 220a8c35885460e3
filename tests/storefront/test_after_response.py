"""Work left for after the response (storefront/requests/after_response.py) runs once the response has gone out, on the
same thread; outside a request it runs at once; one failure does not stop the rest."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from domains.search.services import _cache_key, normalise_term
from storefront.requests.after_response import after_response


def test_outside_a_request_the_work_runs_at_once():
    done: list[str] = []
    after_response(lambda: done.append("now"))
    assert done == ["now"]


@pytest.fixture
def signals_without_database():
    # As Django's test client sends them: without closing the test's database connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_in_a_request_it_waits_for_the_response_and_runs_once(signals_without_database, caplog):
    done: list[str] = []
    request_started.send(sender=None, environ={})
    after_response(lambda: done.append("first"))
    after_response(lambda: 1 / 0)
    after_response(lambda: done.append("third"))
    assert done == []
    request_finished.send(sender=None)
    assert done == ["first", "third"]
    assert "work after the response failed" in caplog.text
    request_finished.send(sender=None)  # a second close runs nothing again
    assert done == ["first", "third"]


@pytest.mark.django_db
def test_a_new_search_is_in_the_shared_cache_once_its_page_has_gone_out(client, fake_priced):
    key = _cache_key("metasearch", normalise_term("bluebird"))
    assert cache.get(key) is None
    response = client.get("/search/", {"q": "bluebird"})
    assert response.status_code == 200 and "bluebird.com" in response.content.decode()
    # The test client closes the response as a server does once it has sent it.
    assert cache.get(key) is not None
