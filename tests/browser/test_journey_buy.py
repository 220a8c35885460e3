"""Journey 1: a visitor searches as they type, fills a cart of two, signs up from the cart and buys both."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from storefront.gateway import ResellerGateway
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.steps import (
    accept_terms,
    assert_every_field_labelled,
    check_accessibility,
    choose_country,
    confirm_email,
    fill_signup,
    new_person,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PRICE = re.compile(r"\$\d+\.\d\d")


@pytest.fixture
def slow_ai(monkeypatch) -> Iterator[threading.Event]:
    """MetaSearch's AI, held back until the test sets the event (as the provider takes seconds on a cache miss).

    The live server runs in this process, so its calls go through the patched gateway; results without AI are
    not held. Set on teardown, so no server thread is left waiting.
    """
    release = threading.Event()
    real = ResellerGateway.metasearch

    def metasearch(self, **kwargs):
        if kwargs.get("aisuggest"):
            release.wait(timeout=60)
        return real(self, **kwargs)

    monkeypatch.setattr(ResellerGateway, "metasearch", metasearch)
    yield release
    release.set()


# The whole journey once at each size: on a phone every button must still be reachable and work.
@pytest.mark.parametrize("window", ["desktop", "phone"])
def test_a_visitor_searches_as_they_type_signs_up_from_the_cart_and_buys_two_domains(
    page: Page, screenshot, window: str, slow_ai: threading.Event
):
    page.set_viewport_size(PHONE if window == "phone" else DESKTOP)
    prefix = "buy" if window == "desktop" else "buy-on-phone"
    word = unique_label("bluebird")
    page.goto("/")
    check_accessibility(page)

    # Typed a key at a time, never submitted: the results arrive by themselves, into the same page.
    page.evaluate("() => { window.journeyMarker = 'same page'; }")
    page.get_by_label("Search for a domain").press_sequentially(word, delay=50)
    featured = page.get_by_role("region", name="Featured result")
    expect(featured).to_be_visible()
    assert page.evaluate("() => window.journeyMarker") == "same page", "the page reloaded instead of updating"
    expect(page).to_have_url(re.compile(rf"/search/\?q={word}$"))
    hero_name = f"{word}.com"
    expect(featured.locator(".result-domain")).to_have_text(hero_name)
    expect(featured.get_by_text("Available")).to_be_visible()
    # The sandbox's .com costs 12.99, then 14.99 a year; the tests' store sells at cost + 1.50 a year.
    expect(featured.locator(".price")).to_have_text("$14.49 first year, then $16.49/yr")

    # The results are complete while the AI ideas are still being found; they fill in when they arrive.
    ai = page.get_by_role("region", name="Ideas from AI")
    expect(ai).to_be_visible()
    ai_status = ai.locator("#ai-status")
    expect(ai_status).to_have_text("Finding more ideas…")
    expect(ai_status).to_have_attribute("aria-live", "polite")
    ai_rows = ai.locator(".result-row")
    expect(ai_rows).to_have_count(0)
    expect(page.get_by_role("button", name=f"Add {hero_name} to cart")).to_be_enabled()
    slow_ai.set()
    expect(ai_rows.first).to_be_visible()
    expect(ai.get_by_text("Finding more ideas…")).to_have_count(0)
    expect(ai_status).to_have_text(re.compile(r"^\s*\d+ more ideas? from AI\.\s*$"))
    assert ai_rows.count() >= 2
    for index in range(ai_rows.count()):
        expect(ai_rows.nth(index).locator(".price")).to_have_text(PRICE)
    ai_name = ai_rows.first.locator(".result-domain").inner_text().strip()
    screenshot(f"{prefix}-search-results")

    # Two domains into the cart: each row confirms in place and the header's count follows.
    for name in (hero_name, ai_name):
        page.get_by_role("button", name=f"Add {name} to cart").click()
        row = page.locator(".result-row", has=page.get_by_role("button", name=f"Add {name} to cart"))
        expect(row.get_by_text("In your cart")).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("2")

    page.get_by_role("navigation", name="Account").get_by_role("link", name=re.compile("^Cart")).click()
    expect(page.get_by_role("heading", name="Your cart")).to_be_visible()
    expect(page.get_by_role("heading", name=hero_name)).to_be_visible()
    expect(page.get_by_role("heading", name=ai_name)).to_be_visible()
    assert_every_field_labelled(page)
    screenshot(f"{prefix}-cart")
    page.get_by_role("link", name="Go to checkout").click()

    # Not signed in: checkout offers the signup, which brings the customer back with the cart intact.
    expect(page.get_by_role("heading", name="Sign in to buy")).to_be_visible()
    check_accessibility(page)
    page.get_by_role("link", name="Create an account").click()
    expect(page.get_by_role("heading", name="Create your account")).to_be_visible()
    check_accessibility(page)

    # The state list follows the country: British regions first, then American states replace them.
    person = new_person(country="United States", state="California", dial_code="1")
    choose_country(page, "United Kingdom", "Scotland")
    expect(page.get_by_label("Dialling prefix")).to_have_value("44")
    fill_signup(page, person)
    states = page.get_by_label("State or province")
    expect(states.locator("option", has_text="California")).to_have_count(1)
    expect(states.locator("option", has_text="Scotland")).to_have_count(0)
    expect(states).to_have_value("California")
    page.get_by_role("button", name="Create account").click()

    # Signed in but not yet confirmed: the link in the (sandbox) mailbox brings the customer back to checkout.
    expect(page.get_by_role("heading", name="Confirm your email address")).to_be_visible()
    check_accessibility(page, where="(confirm your email)")
    confirm_email(page, person)
    expect(page.get_by_role("heading", name="Review your order")).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("2")
    contact = page.locator("address")
    expect(contact).to_contain_text(person.name)
    expect(contact).to_contain_text("California")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()

    expect(page.get_by_role("heading", name="Your order")).to_be_visible()
    expect(page.get_by_text("Done: 2 domains registered.")).to_be_visible()
    for name in (hero_name, ai_name):
        line = page.locator(".outcome-line", has_text=name)
        expect(line.locator(".badge")).to_have_text(re.compile("Registered", re.I))
        expect(line.get_by_role("link", name=f"Manage {name}")).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("0")
    screenshot(prefix)
