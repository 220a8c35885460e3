"""Journey 6: with the provider down, slow or failing, search, checkout and the dashboard say so clearly.

The `page` fixture fails the test on any server error from our own pages (the sandbox's injected faults, on
its own origin, are the point here and are not counted). A full page may answer 503 on purpose, with its message.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.core.cache import cache
from django.test import override_settings
from playwright.sync_api import Page, expect

from storefront.gateway import gateway
from tests.browser.conftest import SCREENSHOTS
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    new_person,
    provider_hangs,
    search_page,
    sign_up,
    unique_label,
)
from tests.sandbox_control import session_sandbox

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What a customer may be told when the provider cannot answer: plain words, never a stack trace or a bare status.
CLEAR = re.compile(r"unavailable|try again|could not|did not answer|not available", re.I)
RAW = re.compile(r"Server Error|Internal server error|Traceback|Bad Gateway", re.I)


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def _fresh_gateway() -> Iterator[None]:
    """Each failure starts from nothing cached and a closed circuit breaker, as after a quiet spell."""
    cache.clear()
    gateway.cache_clear()
    try:
        yield
    finally:
        cache.clear()
        gateway.cache_clear()


@contextmanager
def provider_down() -> Iterator[None]:
    root = f"http://127.0.0.1:{_unused_port()}"
    with override_settings(RESELLER_BASE_URL=root, RESELLER_METASEARCH_URL=f"{root}/metasearch"), _fresh_gateway():
        yield


@contextmanager
def provider_slow() -> Iterator[None]:
    # Every call held past the store's read timeout: every call gives up.
    with provider_hangs(), _fresh_gateway():
        yield


@contextmanager
def provider_erroring() -> Iterator[None]:
    with session_sandbox().fault(error_rate=1.0), _fresh_gateway():
        yield


def _no_raw_error(page: Page) -> None:
    """The provider's own words for a crash are not an explanation a customer can act on."""
    expect(page.locator("main")).not_to_contain_text(RAW)


def _search_says_it_cannot(page: Page, word: str) -> None:
    page.goto("/")
    check_accessibility(page)
    page.get_by_label("Search for a domain").press_sequentially(word, delay=20)
    notice = page.locator("#search-results .search-notice")
    expect(notice).to_be_visible(timeout=20_000)
    expect(notice).to_contain_text(CLEAR)
    _no_raw_error(page)


def _checkout_says_it_cannot(page: Page, domain: str) -> None:
    page.goto("/checkout/", timeout=30_000)
    expect(page.get_by_role("alert")).to_contain_text("We could not check the latest prices.")
    expect(page.get_by_role("alert")).to_contain_text("Nothing has been ordered.")
    expect(page.get_by_role("button", name=re.compile("^Buy now"))).to_have_count(0)
    expect(page.get_by_text(domain)).to_be_visible()
    _no_raw_error(page)


def _dashboard_says_it_cannot(page: Page) -> None:
    page.goto("/orders/", timeout=30_000)
    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    expect(page.locator("#orders-results").get_by_role("alert")).to_contain_text(CLEAR)
    expect(page.get_by_text("You don't have any domains yet")).to_have_count(0)
    _no_raw_error(page)


FAILURES = {"down": provider_down, "slow": provider_slow, "500": provider_erroring}


@pytest.mark.parametrize("name", list(FAILURES))
def test_search_checkout_and_dashboard_explain_a_failing_provider(page: Page, screenshot, name: str):
    domain = f"{unique_label('meadow')}.com"
    sign_up(page, new_person())
    search_page(page, domain)
    add_to_cart(page, domain)

    problems: list[str] = []
    with FAILURES[name]():
        # Every page is checked even when an earlier one is wrong, so one run names every page at fault.
        for where, check, args in (
            ("search", _search_says_it_cannot, (unique_label("willow"),)),
            ("checkout", _checkout_says_it_cannot, (domain,)),
            ("dashboard", _dashboard_says_it_cannot, ()),
        ):
            try:
                check(page, *args)
                screenshot(f"provider-{name}-{where}")
            except AssertionError as err:
                problems.append(f"{check.__name__} ({page.url}): {str(err).splitlines()[0]}")
                page.screenshot(path=str(SCREENSHOTS / f"FAILED-provider-{name}-{check.__name__}.png"), full_page=True)
    assert not problems, "\n".join(problems)

    # Back up: the cart survived and checkout works again.
    page.goto("/checkout/")
    expect(page.get_by_role("button", name=re.compile("^Buy now"))).to_be_visible()
    check_accessibility(page)


def test_a_registration_whose_answer_is_lost_is_settled_from_the_order_listing(page: Page, screenshot):
    domain = f"{unique_label('meadow')}.com"
    sign_up(page, new_person())
    search_page(page, domain)
    add_to_cart(page, domain)
    page.goto("/checkout/")
    check_accessibility(page)

    # The provider registers the domain, then its answer never arrives (held past the read timeout). The order page
    # asks the provider's order listing instead of guessing, and the customer sees the truth.
    with provider_hangs(hang_after_commit=True, scope="register"), _fresh_gateway():
        accept_terms(page)
        page.get_by_role("button", name=re.compile("^Buy now")).click()
        expect(page.get_by_role("heading", name="Your order")).to_be_visible()
        expect(page.get_by_text("Done: 1 domain registered.")).to_be_visible()
        expect(page.locator(".outcome-line")).to_have_count(1)
        line = page.locator(".outcome-line", has_text=domain)
        expect(line.locator(".badge")).to_have_text(re.compile("Registered", re.I))
        expect(line.get_by_role("link", name=f"Manage {domain}")).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("0")
    screenshot("provider-answer-lost")
