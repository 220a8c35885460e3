import pytest
import time_machine
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from storefront.resilience import ratelimit


@ratelimit.rate_limit("demo", limit=3, window=60)
def demo_view(request):
    return HttpResponse("ok")


@ratelimit.rate_limit("demo-user", limit=1, window=60, per="user", methods=("POST",))
def demo_post_view(request):
    return HttpResponse("ok")


@pytest.fixture
def rf():
    return RequestFactory()


def _request(rf, address="203.0.113.5", **extra):
    request = rf.get("/", REMOTE_ADDR=address, **extra)
    request.user = type("Anon", (), {"is_authenticated": False})()
    return request


@pytest.mark.django_db
def test_it_allows_up_to_the_limit_then_answers_429_with_retry_after(rf):
    assert [demo_view(_request(rf)).status_code for _ in range(3)] == [200, 200, 200]
    response = demo_view(_request(rf))
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Please wait" in response.content.decode()


@pytest.mark.django_db
def test_addresses_are_counted_separately(rf):
    for _ in range(3):
        demo_view(_request(rf, "203.0.113.5"))
    assert demo_view(_request(rf, "203.0.113.5")).status_code == 429
    assert demo_view(_request(rf, "198.51.100.7")).status_code == 200


@pytest.mark.django_db
def test_htmx_requests_get_a_fragment(rf):
    for _ in range(3):
        demo_view(_request(rf))
    response = demo_view(_request(rf, HTTP_HX_REQUEST="true"))
    assert response.status_code == 429
    assert "<html" not in response.content.decode()


@pytest.mark.django_db
def test_a_new_window_starts_afresh(rf):
    with time_machine.travel(1_000_000.0, tick=False) as traveller:
        for _ in range(4):
            demo_view(_request(rf))
        assert demo_view(_request(rf)).status_code == 429
        traveller.shift(61)
        assert demo_view(_request(rf)).status_code == 200


@pytest.mark.django_db
@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_one_proxy_the_client_is_the_address_the_proxy_appended(rf):
    # A client can put anything in X-Forwarded-For; only what our proxy appended (the last entry) counts.
    for forged in ("1.1.1.1", "2.2.2.2", "3.3.3.3"):
        demo_view(_request(rf, "10.0.0.1", HTTP_X_FORWARDED_FOR=f"{forged}, 203.0.113.9"))
    assert demo_view(_request(rf, "10.0.0.1", HTTP_X_FORWARDED_FOR="4.4.4.4, 203.0.113.9")).status_code == 429
    assert demo_view(_request(rf, "10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.10")).status_code == 200


@pytest.mark.django_db
def test_it_can_count_per_user_and_only_some_methods(rf, django_user_model):
    user = django_user_model.objects.create_user("u@example.com", "u@example.com", "x")
    get = rf.get("/")
    get.user = user
    assert all(demo_post_view(get).status_code == 200 for _ in range(3))
    posts = []
    for _ in range(2):
        post = rf.post("/")
        post.user = user
        posts.append(demo_post_view(post).status_code)
    assert posts == [200, 429]


@pytest.mark.django_db
def test_a_request_is_judged_on_its_own_count_when_a_later_one_finished_first(monkeypatch):
    """Two threads of one process at the limit: the later one's answer (over the limit) arrives first and must not
    refuse the earlier one, whose own count was within it."""
    ratelimit.rate_limit_forget()
    real_incr = ratelimit.counter_incr
    answers: list[int] = []

    def incr_then_a_later_request_overtakes(key, *, timeout, by=1):
        count = real_incr(key, timeout=timeout, by=by)
        if len(answers) == 1:  # the second request's increment is done; a third runs to its end meanwhile
            monkeypatch.setattr(ratelimit, "counter_incr", real_incr)
            answers.append(ratelimit.hit("race", "who", limit=2, window=600))
        return count

    answers.append(ratelimit.hit("race", "who", limit=2, window=600))
    monkeypatch.setattr(ratelimit, "counter_incr", incr_then_a_later_request_overtakes)
    answers.append(ratelimit.hit("race", "who", limit=2, window=600))
    first, third, second = answers
    assert (first, second) == (0, 0)  # two requests within a limit of two: both allowed
    assert third > 0  # the third is refused
