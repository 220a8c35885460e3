"""The gateway against a scripted HTTP server: every failure maps to the right exception, nothing leaks."""

import json
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from storefront.gateway import (
    CustomerExists,
    NotFound,
    OutcomeUnknown,
    RateLimited,
    ResellerGateway,
    Unauthorized,
    Unavailable,
    ValidationRejected,
)
from tests.storefront.scripted_server import Answer, ScriptedServer

KEY = "test_canary-key-that-must-never-be-logged"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer().running() as running:
        yield running


def make_client(server: ScriptedServer, **options) -> ResellerGateway:
    # Timeouts long enough that a loaded machine never makes a quick answer look lost; the tests of timeouts set
    # a short read timeout themselves, against answers held far longer.
    settings = {"connect_timeout": 2.0, "read_timeout": 5.0, "get_retries": 2, **options}
    return ResellerGateway(base_url=server.url, metasearch_url=server.url + "/ms", api_key=KEY, **settings)


@pytest.fixture
def client(server: ScriptedServer) -> ResellerGateway:
    return make_client(server)


@pytest.fixture(autouse=True)
def _key_never_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.DEBUG)
    yield
    assert KEY not in caplog.text
    assert "Bearer" not in caplog.text


def test_it_sends_the_key_as_bearer_and_json_with_integers(client, server):
    server.script(Answer(body={"status": "SUCCESS", "message": "Domain registered successfully", "order_id": 7}))
    result = client.domain_register(customer_id=85384231, domain_name="example.com", duration=2)
    assert result.order_id == 7
    request = server.seen[0]
    assert request.method == "POST"
    assert request.path == "/api/v1/domains/register"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"] == "application/json"
    assert json.loads(request.body) == {"customer_id": 85384231, "domain_name": "example.com", "duration": 2}


def test_state_changing_calls_use_a_fresh_connection_each_time(client, server):
    answer = {"status": "SUCCESS", "message": "DNS service activated successfully"}
    server.script(*[Answer(body=answer)] * 2)
    client.dns_activate(order_id=1)
    client.dns_activate(order_id=2)
    assert [seen.headers.get("Connection") for seen in server.seen] == ["close", "close"]
    assert len({seen.client_port for seen in server.seen}) == 2  # two connections


def test_it_reuses_one_connection(client, server):
    server.script(Answer(body={"server_time": "2026-01-01 00:00:00", "message": "Authorized"}))
    client.hello()
    client.hello()
    assert len(server.seen) == 2
    pool = next(iter(client.session.adapters["http://"].poolmanager.pools._container.values()))
    assert pool.num_connections == 1


def test_a_read_timeout_on_get_is_unavailable_and_not_asked_again(server):
    client = make_client(server, read_timeout=0.3)
    server.script(*[Answer(delay=0.6)] * 3)
    with pytest.raises(Unavailable) as caught:
        client.hello()
    assert not isinstance(caught.value, OutcomeUnknown)
    assert len(server.seen) == 1  # a slow provider is not made to answer twice


def test_a_reset_connection_on_get_is_retried_a_bounded_number_of_times(client, server):
    server.script(*[Answer(drop=True)] * 3)
    with pytest.raises(Unavailable):
        client.hello()
    assert len(server.seen) == 3  # the first try and two retries, then it gives up


def test_a_reset_connection_on_get_recovers_on_retry(client, server):
    server.script(Answer(drop=True), Answer(body={"server_time": "t", "message": "Authorized"}))
    assert client.hello().message == "Authorized"
    assert len(server.seen) == 2


def test_a_read_timeout_on_post_is_outcome_unknown_and_never_retried(server):
    client = make_client(server, read_timeout=0.3)
    server.script(Answer(delay=0.6), Answer(body={"order_id": 1}))
    with pytest.raises(OutcomeUnknown):
        client.domain_register(customer_id=1, domain_name="example.com", duration=1)
    assert len(server.seen) == 1


def test_a_dropped_connection_on_post_is_outcome_unknown(client, server):
    server.script(Answer(drop=True))
    with pytest.raises(OutcomeUnknown):
        client.domain_renew(order_id=1, duration=1, expiry_timestamp=1)
    assert len(server.seen) == 1


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_is_unavailable_and_a_post_is_known_not_sent():
    dead = f"http://127.0.0.1:{_unused_port()}"
    client = ResellerGateway(
        base_url=dead, metasearch_url=dead, api_key=KEY, connect_timeout=0.5, read_timeout=0.5, get_retries=1
    )
    with pytest.raises(Unavailable) as caught:
        client.hello()
    assert not isinstance(caught.value, OutcomeUnknown)
    with pytest.raises(Unavailable) as caught:
        client.domain_register(customer_id=1, domain_name="example.com", duration=1)
    # Nothing reached the provider, so the registration certainly did not happen.
    assert not isinstance(caught.value, OutcomeUnknown)


def test_a_500_on_get_is_unavailable_with_the_providers_message_and_not_retried(client, server):
    server.script(Answer(status=500, body={"message": "Server Error."}))
    with pytest.raises(Unavailable) as caught:
        client.domain_availability(search_terms="example")
    assert caught.value.provider_message == "Server Error."
    assert caught.value.message == "The domain service is unavailable right now. Please try again in a moment."
    assert len(server.seen) == 1


def test_a_503_on_get_is_retried(client, server):
    server.script(Answer(status=503, body="<html>busy</html>"), Answer(body={"results": []}))
    assert client.domain_availability(search_terms="example") == []
    assert len(server.seen) == 2


def test_a_non_json_body_is_unavailable(client, server):
    server.script(Answer(body="<html>not json</html>"))
    with pytest.raises(Unavailable) as caught:
        client.hello()
    assert "unreadable" in caught.value.provider_message
    assert "unavailable right now" in caught.value.message


def test_a_non_json_body_after_a_post_is_outcome_unknown(client, server):
    server.script(Answer(body="<html>not json</html>"))
    with pytest.raises(OutcomeUnknown):
        client.dns_activate(order_id=1)


@pytest.mark.parametrize("message", ["Unauthorized", "key_revoked", "key_expired"])
def test_401_is_unauthorized(client, server, message):
    server.script(Answer(status=401, body={"message": message}))
    with pytest.raises(Unauthorized) as caught:
        client.hello()
    assert caught.value.provider_message == message
    assert caught.value.status == 401
    # A customer is never told about our key.
    assert "key" not in caught.value.message and "Unauthorized" not in caught.value.message


def test_403_environment_mismatch_is_unauthorized(client, server):
    server.script(Answer(status=403, body={"message": "environment_mismatch"}))
    with pytest.raises(Unauthorized):
        client.hello()


def test_metasearch_bad_key_error_shape_is_unauthorized(client, server):
    server.script(Answer(status=401, body={"error": "Invalid partner token"}))
    with pytest.raises(Unauthorized) as caught:
        client.metasearch(search_term="coffee")
    assert caught.value.provider_message == "Invalid partner token"
    assert server.seen[0].path.startswith("/ms/v1/search?")


def test_422_with_message_only_shape(client, server):
    server.script(Answer(status=422, body={"message": "The search term field is required."}))
    with pytest.raises(ValidationRejected) as caught:
        client.domain_availability(search_terms="")
    assert caught.value.provider_message == "The search term field is required."
    assert "letters, digits and hyphens" in caught.value.message


def test_422_with_status_and_message_shape(client, server):
    server.script(Answer(status=422, body={"status": "ERROR", "message": "Unable to register domain"}))
    with pytest.raises(ValidationRejected) as caught:
        client.domain_register(customer_id=1, domain_name="taken.com", duration=1)
    assert caught.value.provider_message == "Unable to register domain"
    assert "you have not been charged" in caught.value.message


def test_422_invalid_order_id_is_not_found(client, server):
    server.script(Answer(status=422, body={"status": "ERROR", "message": "Invalid order ID"}))
    with pytest.raises(NotFound):
        client.transfer_auth_code(order_id=5)


def test_422_user_already_exists_on_signup_is_customer_exists(client, server):
    server.script(Answer(status=422, body={"message": "User already exists"}))
    with pytest.raises(CustomerExists):
        client.customer_signup(
            name="A B",
            address="1 Main St",
            city="Town",
            state="Other",
            country="US",
            zipcode="10001",
            country_code="1",
            phone="2125551234",
            email="a@example.com",
            password="Secret!123",
        )
    assert b"Secret!123" in server.seen[0].body  # sent to the provider, and only there


def test_metasearch_sanitising_error_shape_is_validation_rejected(client, server):
    message = "search_term is required and must not be empty after sanitisation"
    server.script(Answer(status=400, body={"error": message}))
    with pytest.raises(ValidationRejected) as caught:
        client.metasearch(search_term="!!!")
    assert caught.value.provider_message == message
    assert "letters, digits and hyphens" in caught.value.message


def test_429_carries_retry_after(client, server):
    server.script(*[Answer(status=429, headers={"Retry-After": "7"}, body={"message": "Too Many Requests"})] * 3)
    with pytest.raises(RateLimited) as caught:
        client.hello()
    # The whole shared wait: the provider's Retry-After plus up to 25% jitter, so instances do not all return at once.
    assert 7.0 <= caught.value.retry_after <= 7.0 * 1.25
    assert "busy" in caught.value.message
    assert len(server.seen) == 1  # the provider asked us to wait: no immediate retry


def test_secrets_in_results_are_hidden_from_repr(client, server):
    server.script(
        Answer(body={"status": "SUCCESS", "email": "a@example.com", "token": "tok-secret", "expires_at": "x"}),
        Answer(body={"order_id": 3, "transfer_code": "Ab1#Xy9!Zq2"}),
    )
    token = client.customer_auto_login(email="a@example.com")
    code = client.transfer_auth_code(order_id=3)
    assert token.token == "tok-secret"
    assert "tok-secret" not in repr(token)
    assert code.transfer_code == "Ab1#Xy9!Zq2"
    assert "Ab1#Xy9!Zq2" not in repr(code)
    assert KEY not in repr(client)


def _breaker_client(server: ScriptedServer, *, clock: list[float]) -> ResellerGateway:
    client = make_client(server, get_retries=0, breaker_threshold=3, breaker_cooldown=30)
    for breaker in client.breakers.values():
        breaker._clock = lambda: clock[0]
    return client


def test_the_circuit_opens_after_repeated_failures_and_fails_fast(server):
    clock = [1000.0]
    client = _breaker_client(server, clock=clock)
    server.script(*[Answer(status=503, body="down")] * 3)
    for _ in range(3):
        with pytest.raises(Unavailable):
            client.hello()
    assert len(server.seen) == 3
    with pytest.raises(Unavailable):
        client.hello()
    assert len(server.seen) == 3  # failed fast: the provider was not asked


def test_the_circuit_closes_again_by_itself_after_the_cooldown(server):
    clock = [1000.0]
    client = _breaker_client(server, clock=clock)
    server.script(*[Answer(status=503, body="down")] * 3)
    for _ in range(3):
        with pytest.raises(Unavailable):
            client.hello()
    clock[0] += 31
    server.script(*[Answer(body={"server_time": "t", "message": "Authorized"})] * 2)
    assert client.hello().message == "Authorized"
    assert client.hello().message == "Authorized"
    assert len(server.seen) == 5


def test_refusals_do_not_open_the_circuit(server):
    clock = [1000.0]
    client = _breaker_client(server, clock=clock)
    server.script(*[Answer(status=422, body={"status": "ERROR", "message": "Invalid order ID"})] * 5)
    for _ in range(5):
        with pytest.raises(NotFound):
            client.transfer_auth_code(order_id=1)
    assert len(server.seen) == 5


def test_metasearch_failures_do_not_stop_the_main_interface(server):
    clock = [1000.0]
    client = _breaker_client(server, clock=clock)
    server.script(*[Answer(status=503, body={"error": "Domain availability service unavailable"})] * 3)
    for _ in range(3):
        with pytest.raises(Unavailable):
            client.metasearch(search_term="coffee")
    server.script(Answer(body={"server_time": "t", "message": "Authorized"}))
    assert client.hello().message == "Authorized"


def test_metasearch_gives_up_sooner_and_retries_once_at_most(server):
    client = make_client(server, read_timeout=5.0, search_read_timeout=0.3)
    server.script(*[Answer(drop=True)] * 3)
    with pytest.raises(Unavailable):
        client.metasearch(search_term="coffee")
    assert len(server.seen) == 2  # the first try and one retry at most
    server.seen.clear()
    server.script(*[Answer(delay=0.6)] * 3)
    # The answer comes after 0.6 s: within the general timeout (5 s), past the search one (0.3 s). Failing proves
    # the search timeout cut it.
    with pytest.raises(Unavailable):
        client.metasearch(search_term="coffee")
    assert len(server.seen) == 1


def _wait_until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def test_calls_beyond_the_process_limit_fail_fast_and_send_nothing(server):
    client = make_client(server, get_retries=0, max_concurrent_calls=2)
    hello = {"server_time": "t", "message": "Authorized"}
    server.script(*[Answer(delay=2.0, body=hello)] * 2, Answer(body=hello))
    with ThreadPoolExecutor(max_workers=2) as pool:
        slow = [pool.submit(client.hello) for _ in range(2)]
        _wait_until(lambda: len(server.seen) == 2)  # both slow calls hold their slots, answered in 2 s
        with pytest.raises(Unavailable) as caught:
            client.hello()
        # It failed while both slow calls still held their slots: it did not wait for one to be given back.
        assert not any(future.done() for future in slow)
        assert not isinstance(caught.value, OutcomeUnknown)
        assert [future.result().message for future in slow] == ["Authorized", "Authorized"]
    assert len(server.seen) == 2  # the third call never reached the provider
    assert client.hello().message == "Authorized"  # slots are given back


def test_slow_ai_suggestions_never_stop_the_quick_search(server):
    """AI takes seconds on a cache miss; its timeouts open a breaker of its own, not the results' one."""
    client = make_client(server, get_retries=0, breaker_threshold=2, breaker_cooldown=60)
    results = {"results": [], "results_total": 0, "results_hidden": 0, "meta": {}, "message": "No results"}
    server.script(*[Answer(body=results, delay=0.5)] * 2, Answer(body=results))
    for _ in range(2):
        with pytest.raises(Unavailable):
            client.metasearch(search_term="coffee", aisuggest=True, read_timeout=0.2)
    # The AI breaker is open now: AI fails fast, sending nothing...
    before = len(server.seen)
    with pytest.raises(Unavailable):
        client.metasearch(search_term="coffee", aisuggest=True, read_timeout=0.2)
    assert len(server.seen) == before
    # ...while the results themselves are still asked for and answered.
    assert client.metasearch(search_term="coffee", aisuggest=False).message == "No results"


def _open(client: ResellerGateway, server: ScriptedServer, call, answer: Answer) -> None:
    """Open one service's breaker: three failures in a row (the threshold), then a call that is not sent."""
    server.script(*[answer] * 3)
    for _ in range(3):
        with pytest.raises(Unavailable):
            call()
    sent = len(server.seen)
    with pytest.raises(Unavailable):
        call()
    assert len(server.seen) == sent  # open: failed fast


REGISTERED = {"status": "SUCCESS", "message": "Domain registered successfully", "order_id": 9}
RECORDS = {"status": "SUCCESS", "dns_records": []}
NO_RESULTS = {"results": [], "results_total": 0, "results_hidden": 0, "meta": {}, "message": "No results"}


def test_a_failing_availability_fallback_stops_neither_registrations_nor_dns_nor_metasearch(server):
    """MetaSearch down sends search to the availability endpoint; when that fails too, only search is affected:
    a paid registration, the DNS editor and MetaSearch itself are still asked."""
    client = _breaker_client(server, clock=[1000.0])
    _open(client, server, lambda: client.domain_availability(search_terms="coffee", tlds=["com"]), Answer(status=500))
    server.script(Answer(body=REGISTERED), Answer(body=RECORDS), Answer(body=NO_RESULTS))
    assert client.domain_register(customer_id=1, domain_name="coffee.com", duration=1).order_id == 9
    assert client.dns_records(order_id=9) == []
    assert client.metasearch(search_term="coffee").message == "No results"


def test_a_failing_dns_service_does_not_stop_registrations_or_renewals(server):
    client = _breaker_client(server, clock=[1000.0])
    _open(client, server, lambda: client.dns_records(order_id=1), Answer(status=503))
    renewed = {"status": "SUCCESS", "message": "Domain renewed successfully"}
    server.script(Answer(body=REGISTERED), Answer(body=renewed))
    assert client.domain_register(customer_id=1, domain_name="coffee.com", duration=1).order_id == 9
    assert client.domain_renew(order_id=9, duration=1, expiry_timestamp=1).message == "Domain renewed successfully"


def test_a_failing_registration_service_does_not_stop_dns_or_search(server):
    client = _breaker_client(server, clock=[1000.0])
    _open(client, server, lambda: client.domain_orders(customer_id=1), Answer(status=503))
    server.script(Answer(body=RECORDS), Answer(body={"results": []}), Answer(body=NO_RESULTS))
    assert client.dns_records(order_id=9) == []
    assert client.domain_availability(search_terms="coffee", tlds=["com"]) == []
    assert client.metasearch(search_term="coffee").message == "No results"
