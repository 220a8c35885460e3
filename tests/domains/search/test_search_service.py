"""The search service: MetaSearch through the cache, one provider call per burst, the availability fallback."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache
from django.test import override_settings

from domains.search import services as search
from domains.search.services import fallback_availability, metasearch_cached
from storefront.gateway import MetaSearchResult, RateLimited, ValidationRejected, gateway
from tests.fakes.gateway import FakeGateway

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(seeded_partner):
    return seeded_partner


@pytest.fixture
def calls(monkeypatch) -> list[str]:
    """Every MetaSearch and availability call the gateway makes; each still reaches the in-memory provider."""
    made: list[str] = []
    real_metasearch = FakeGateway.metasearch
    real_availability = FakeGateway.domain_availability

    def metasearch(self, *, search_term: str, **kwargs):
        made.append(f"metasearch {search_term}")
        return real_metasearch(self, search_term=search_term, **kwargs)

    def availability(self, *, search_terms, tlds=()):
        made.append(f"availability {search_terms}")
        return real_availability(self, search_terms=search_terms, tlds=tlds)

    monkeypatch.setattr(FakeGateway, "metasearch", metasearch)
    monkeypatch.setattr(FakeGateway, "domain_availability", availability)
    return made


def test_it_asks_metasearch_with_autosuggest_and_without_ai(provider, calls):
    answer = metasearch_cached("bluebird.com")
    assert calls == ["metasearch bluebird.com"]
    assert answer.hero.domain_name == "bluebird.com"
    assert answer.hero.is_searched_exact
    # AI suggestions take seconds: the results never wait for them (see test_search_ai.py).
    assert answer.meta.autosuggest and not answer.meta.aisuggest
    assert not answer.ai_suggestions


def test_it_answers_a_repeated_search_from_the_cache(provider, calls):
    first = metasearch_cached("bluebird")
    second = metasearch_cached("bluebird")
    assert calls == ["metasearch bluebird"]
    assert second == first


def test_it_normalises_the_term_before_asking_and_caching(provider, calls):
    metasearch_cached("  BlueBird.COM ")
    answer = metasearch_cached("bluebird.com")
    assert calls == ["metasearch bluebird.com"]
    assert answer.hero.domain_name == "bluebird.com"


def test_it_asks_again_once_the_cached_answer_expires(provider, calls):
    with override_settings(SEARCH_CACHE_SECONDS=0):
        metasearch_cached("bluebird")
        metasearch_cached("bluebird")
    assert calls == ["metasearch bluebird", "metasearch bluebird"]


def test_it_does_not_cache_errors(provider, calls, fake_gateway):
    fake_gateway.fail("metasearch", RateLimited("Too Many Requests", retry_after=2.0), times=2)
    for _ in range(2):
        with pytest.raises(RateLimited):
            metasearch_cached("bluebird")
    # Once the provider answers, the search is asked afresh, not answered from a cached error.
    answer = metasearch_cached("bluebird")
    assert calls == ["metasearch bluebird"] * 3
    assert answer.hero.domain_name == "bluebird.com"


def test_it_raises_the_providers_sanitising_error(provider):
    with pytest.raises(ValidationRejected) as caught:
        metasearch_cached("!!!")
    assert caught.value.provider_message == "search_term is required and must not be empty after sanitisation"
    assert caught.value.message.startswith("Please type a domain name")


def test_identical_concurrent_searches_make_one_provider_call(provider, calls, fake_gateway):
    with fake_gateway.fault(latency_ms=300, scope="metasearch"):
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(lambda _: metasearch_cached("bluebird"), range(8)))
    assert calls == ["metasearch bluebird"]
    assert all(answer == answers[0] for answer in answers)
    assert answers[0].hero.domain_name == "bluebird.com"


def test_concurrent_searches_share_the_error_of_their_one_call(provider, calls, fake_gateway):
    with override_settings(RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with fake_gateway.fault(latency_ms=300, rate_limited=True, scope="metasearch"):

            def attempt(_):
                with pytest.raises(RateLimited):
                    metasearch_cached("bluebird")

            with ThreadPoolExecutor(max_workers=8) as pool:
                list(pool.map(attempt, range(8)))
    gateway.cache_clear()
    assert calls == ["metasearch bluebird"]


def test_it_waits_for_another_process_that_is_already_asking(provider, calls, monkeypatch):
    # Were the wait to run out, this process would ask the provider itself (the next test): no call made means the
    # other process's answer was taken, however slow the machine. No clock is read.
    monkeypatch.setattr(search, "_WAIT_SECONDS", 30.0)
    answer = gateway().metasearch(search_term="bluebird", autosuggest=True, aisuggest=True)
    calls.clear()
    key = search._cache_key("metasearch", "bluebird")
    # Another process holds the shared lock and answers 200 ms later.
    cache.add(f"{key}:lock", "other-process", timeout=10)
    threading.Timer(0.2, lambda: cache.set(key, answer, 60)).start()
    got = metasearch_cached("bluebird")
    assert got == answer
    assert calls == []


def test_it_asks_itself_when_the_other_process_never_answers(provider, calls, monkeypatch):
    monkeypatch.setattr(search, "_WAIT_SECONDS", 0.2)
    key = search._cache_key("metasearch", "bluebird")
    cache.add(f"{key}:lock", "stuck-process", timeout=10)
    answer = metasearch_cached("bluebird")
    assert calls == ["metasearch bluebird"]
    assert answer.hero.domain_name == "bluebird.com"


def test_the_fallback_checks_the_typed_name_across_the_partners_tlds(provider, calls):
    rows = fallback_availability("Example.NET")
    assert calls == ["availability example"]
    names = [row.domain_name for row in rows]
    assert names[0] == "example.net"
    assert {"example.com", "example.org", "example.shop", "example.ai"} <= set(names)
    by_name = {row.domain_name: row for row in rows}
    assert not by_name["example.com"].available
    assert by_name["example.org"].available


def test_the_fallback_cleans_the_name_and_refuses_nothing(provider, calls):
    rows = fallback_availability("my shop!")
    assert rows[0].domain_name == "myshop.com"
    with pytest.raises(ValidationRejected):
        fallback_availability("!!!")
    assert calls == ["availability myshop"]


def test_the_fallback_works_while_metasearch_is_down(provider, fake_gateway):
    with fake_gateway.fault(availability_down=True, scope="metasearch"):
        rows = fallback_availability("bluebird")
    assert rows[0].domain_name == "bluebird.com"
    assert rows[0].available


def test_it_still_answers_when_the_cache_is_down(provider, calls, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("cache unreachable")

    for operation in ("get", "add", "set", "delete"):
        monkeypatch.setattr(cache, operation, down)
    first = metasearch_cached("bluebird")
    second = metasearch_cached("bluebird")
    assert first.hero.domain_name == second.hero.domain_name == "bluebird.com"
    # Only this process's own copy was kept: another process (no copy yet) asks the provider again.
    assert calls == ["metasearch bluebird"]
    search.search_cache_forget()
    assert metasearch_cached("bluebird").hero.domain_name == "bluebird.com"
    assert calls == ["metasearch bluebird", "metasearch bluebird"]


def test_a_repeated_search_is_answered_from_this_process_without_the_shared_cache(provider, calls, monkeypatch):
    metasearch_cached("bluebird")
    assert search.ai_suggestions_if_cached("bluebird") is None
    asked: list[str] = []
    monkeypatch.setattr(cache, "get", lambda *args, **kwargs: asked.append(args[0]))
    assert metasearch_cached("bluebird").hero.domain_name == "bluebird.com"
    assert search.ai_suggestions_if_cached("bluebird") is None
    assert asked == []
    assert calls == ["metasearch bluebird"]


def test_this_process_copy_expires(provider, calls, monkeypatch):
    metasearch_cached("bluebird")
    monkeypatch.setattr(search, "_LOCAL_SECONDS", 0.0)
    search.search_cache_forget()
    # The shared cache still has it: no provider call, and the copy is not kept.
    metasearch_cached("bluebird")
    cache.clear()
    metasearch_cached("bluebird")
    assert calls == ["metasearch bluebird", "metasearch bluebird"]


@pytest.mark.parametrize(
    ("available", "flagged_premium", "reason"),
    [(True, False, None), (False, False, "taken"), (True, True, "premium"), (False, True, "premium")],
)
def test_why_a_domain_cannot_be_bought(available, flagged_premium, reason):
    row = MetaSearchResult(
        domain_name="brand.com",
        sld="brand",
        tld="com",
        available=available,
        type="hero",
        is_searched_exact=True,
        pricing=None,
        flagged_premium=flagged_premium,
    )
    assert search.why_not_buyable(row) == reason
    assert search.why_not_buyable(None) == "not_found"
