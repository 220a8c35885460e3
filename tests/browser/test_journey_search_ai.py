"""The AI ideas' block when they cannot be had: the results stay, the block says so instead of looking forever."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from storefront.gateway import ResellerGateway, Unavailable
from tests.browser.steps import check_accessibility, unique_label
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
