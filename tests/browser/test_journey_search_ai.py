"""The AI ideas' block when they cannot be had: the results stay, the block says so instead of looking forever."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import Page, expect

from storefront.gateway import ResellerGateway, Unavailable
from tests.browser.steps import check_accessibility, eventually, unique_label
from tests.limits import TEST_WINDOW

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UNAVAILABLE = "Suggestions are unavailable right now."


def test_an_ai_timeout_leaves_the_results_and_says_suggestions_are_unavailable(page: Page, monkeypatch):
    real = ResellerGateway.metasearch

    def metasearch(self, **kwargs):
        if kwargs.get("aisuggest"):
            raise Unavailable(retryable=False)  # as a call past RESELLER_AI_READ_TIMEOUT ends
        return real(self, **kwargs)

    monkeypatch.setattr(ResellerGateway, "metasearch", metasearch)
    word = unique_label("meadow")
    page.goto(f"/search/?q={word}")
    ai = page.get_by_role("region", name="Ideas from AI")
    expect(ai.locator("#ai-status")).to_have_text(UNAVAILABLE)
    expect(ai.locator(".result-row")).to_have_count(0)
    check_accessibility(page)
    expect(page.get_by_role("region", name="Featured result").locator(".result-domain")).to_have_text(f"{word}.com")


def test_a_refused_suggestions_request_says_suggestions_are_unavailable(page: Page, watch, settings):
    # One request per address: the page itself is allowed, its suggestions request is answered 429.
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "search": (1, TEST_WINDOW)}
    word = unique_label("meadow")
    page.goto(f"/search/?q={word}")
    ai = page.get_by_role("region", name="Ideas from AI")
    expect(ai.locator("#ai-status")).to_have_text(UNAVAILABLE)
    expect(ai.locator("[data-ai-suggestions]")).to_have_count(0)
    check_accessibility(page)
    # htmx reports the refused request on the console; that is expected here, and nothing else may be.
    refused = f"Response Status Error Code 429 from /search/suggestions/?q={word}"
    assert watch.errors and all(refused in error for error in watch.errors), watch.errors
    watch.errors.clear()


def test_an_earlier_searchs_late_ideas_never_land_in_the_next_search(page: Page, monkeypatch):
    """Answers out of order: the first search's ideas arrive after the second search's block said its own."""
    first, second = unique_label("meadow"), unique_label("harbour")
    asked, release = threading.Event(), threading.Event()
    real = ResellerGateway.metasearch

    def metasearch(self, **kwargs):
        if kwargs.get("aisuggest") and kwargs["search_term"] == first:
            asked.set()
            release.wait(timeout=60)  # until the test lets it answer (a bound, not the event)
        elif kwargs.get("aisuggest"):
            raise Unavailable(retryable=False)
        return real(self, **kwargs)

    monkeypatch.setattr(ResellerGateway, "metasearch", metasearch)
    page.goto(f"/search/?q={first}")
    eventually(asked.is_set, what="the first search's ideas asked for")
    # Told when htmx has handled the first search's ideas (swapped in or dropped): on the placeholder itself, as
    # events of an element no longer in the page reach no listener outside it.
    page.evaluate(
        """() => document.querySelector("[data-ai-suggestions]").addEventListener(
            "htmx:afterRequest", () => { window.firstIdeasHandled = true; })"""
    )
    box = page.get_by_label("Search for a domain")
    box.fill(second)
    box.press("Enter")
    ai = page.get_by_role("region", name="Ideas from AI")
    expect(page.locator(".search-summary")).to_have_text(f"Results for {second}")
    expect(ai.locator("#ai-status")).to_have_text(UNAVAILABLE)
    release.set()
    page.wait_for_function("() => window.firstIdeasHandled === true")
    expect(ai.locator("#ai-status")).to_have_text(UNAVAILABLE)  # the second search's, not the first's ideas
    expect(ai.locator(".result-row")).to_have_count(0)
    check_accessibility(page)
