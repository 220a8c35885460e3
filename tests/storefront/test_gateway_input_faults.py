"""What one caller types never takes the provider away from everyone else: a control character is refused before
any call, and repeated server errors on one caller's input count against that caller, not the shared breaker."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings

from storefront.gateway import InvalidDetails, RateLimited, ResellerGateway, Unavailable
from storefront.requests import request_stats
from tests.storefront.scripted_server import Answer, ScriptedServer

KEY = "test_input-faults-key"
NO_ORDERS = {"total_orders": 0, "orders_on_page": 0, "orders": []}


@pytest.fixture
def server():
    with ScriptedServer().running() as running:
        yield running


@pytest.fixture(autouse=True)
def _clean_cache():
    cache.clear()
    yield
    cache.clear()


def make_client(server) -> ResellerGateway:
    return ResellerGateway(
        base_url=server.url,
        metasearch_url=server.url + "/ms",
        api_key=KEY,
        connect_timeout=0.5,
        read_timeout=2.0,
        get_retries=0,
        breaker_threshold=5,
    )


@pytest.mark.parametrize("typed", ["ab\x00c", "ab\x07", "a\x1bb", "a\x7f", "a\x85b"])
def test_a_control_character_is_refused_before_any_call(server, typed):
    client = make_client(server)
    for _ in range(12):
        with pytest.raises(InvalidDetails) as refused:
            client.domain_orders(customer_id=7, search=typed)
        assert "control characters" in str(refused.value.message)
    with pytest.raises(InvalidDetails):
        client.metasearch(search_term=typed, autosuggest=True, aisuggest=False)
    assert server.seen == []
    assert not client.main.breaker.is_open


@override_settings(RATE_LIMITS={"provider_input_faults": (3, 300)})
def test_one_callers_input_answered_500_never_opens_the_breaker_for_others(server):
    client = make_client(server)
    server.default = Answer(status=500, body={"error": "Internal Server Error"})
    with request_stats.serving(caller="203.0.113.9"):
        for _ in range(3):
            with pytest.raises(Unavailable):
                client.domain_orders(customer_id=7, search="odd input")
        for _ in range(9):  # past the caller's limit: refused unsent
            with pytest.raises(RateLimited) as refused:
                client.domain_orders(customer_id=7, search="odd input")
            assert "your recent searches" in str(refused.value.message)
    assert len(server.seen) == 3
    assert not client.main.breaker.is_open

    server.default = Answer(body=NO_ORDERS)
    with request_stats.serving(caller="198.51.100.4"):  # every other customer's "My domains" still answers
        assert client.domain_orders(customer_id=8).total_orders == 0
        assert client.domain_orders(customer_id=8, search="shop").total_orders == 0


@override_settings(RATE_LIMITS={"provider_input_faults": (3, 300)})
def test_an_outage_seen_by_many_callers_still_opens_the_breaker(server):
    client = make_client(server)
    server.default = Answer(status=500, body={"error": "Internal Server Error"})
    for n in range(5):
        with request_stats.serving(caller=f"203.0.113.{n}"), pytest.raises(Unavailable):
            client.domain_orders(customer_id=7, search="shop")
    assert client.main.breaker.is_open
