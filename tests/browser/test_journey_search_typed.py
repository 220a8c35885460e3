"""Search as customers really type: addresses, accents, unsold extensions, junk, long names, an empty box; the
loading state of a slow search; browser history while typing; the results on a phone after Add to cart."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from domains.search import views as search_views
from storefront.gateway import ResellerGateway
from tests.browser.conftest import PHONE
from tests.browser.steps import add_to_cart, check_accessibility, unique_label

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def search_box(page: Page):
    return page.get_by_label("Search for a domain")


def submit(page: Page, typed: str) -> None:
    box = search_box(page)
    box.fill(typed)
    box.press("Enter")


def summary(page: Page):
    return page.locator(".search-summary")


def test_what_was_typed_is_searched_as_the_customer_meant_it(page: Page):
    page.goto("/")
    check_accessibility(page, where="(home)")
    word = unique_label("coffee")

    submit(page, f"https://www.{word}.com/menu?x=1")
    expect(summary(page)).to_have_text(f"Results for {word}.com")
    mine = page.locator(".result-row-mine")
    expect(mine).to_have_count(1)
    expect(mine.locator(".result-domain")).to_have_text(f"{word}.com")
    expect(page.get_by_text(f"https{word}")).to_have_count(0)
    check_accessibility(page, where="(an address searched)")

    submit(page, f"{word}.co.uk")
    expect(page.get_by_text("We don't sell .co.uk domains.")).to_be_visible()
    expect(page.get_by_text("Your search")).to_have_count(0)
    expect(page.get_by_role("region", name="Featured result").locator(".result-domain")).to_have_text(f"{word}.com")

    # A name in another script is searched as its A-label and shown in both forms.
    submit(page, "café.com")
    expect(summary(page)).to_have_text("Results for café.com (xn--caf-dma.com)")
    expect(page.locator(".result-row-mine .result-domain")).to_have_text("café.com")
    expect(page.locator(".result-row-mine .result-ace")).to_have_text("xn--caf-dma.com")
    check_accessibility(page, where="(an accented name)")

    submit(page, "xq$$##!!zz")
    expect(page.get_by_text("A domain cannot contain “$”, “#” or “!”.")).to_be_visible()
    expect(page.get_by_text("sanitisation")).to_have_count(0)

    # The whole name fits the box: 60 letters and .com are 64 characters, and none is cut off.
    long_name = "q" * 54 + unique_label("")[:6] + ".com"
    submit(page, long_name)
    expect(search_box(page)).to_have_value(long_name)
    expect(summary(page)).to_have_text(f"Results for {long_name}")
    expect(page.locator(".result-row-mine .result-domain")).to_have_text(long_name)

    # An empty box says what to type.
    submit(page, "")
    expect(page.get_by_text("Type a name to search for, like bluebird")).to_be_visible()


@pytest.fixture
def slow_search(monkeypatch) -> Iterator[tuple[str, threading.Event]]:
    """MetaSearch held back for one word until the test sets the event, as a slow provider is."""
    word = unique_label("slowpoke")
    release = threading.Event()
    real = ResellerGateway.metasearch

    def metasearch(self, **kwargs):
        if kwargs["search_term"] == word and not kwargs.get("aisuggest"):
            release.wait(timeout=30)
        return real(self, **kwargs)

    monkeypatch.setattr(ResellerGateway, "metasearch", metasearch)
    yield word, release
    release.set()


def test_a_slow_search_shows_a_loading_state_in_the_results_area(page: Page, slow_search):
    word, release = slow_search
    page.goto("/search/")
    loading = page.locator("#search-loading")
    expect(loading).to_be_hidden()
    submit(page, word)
    expect(loading).to_be_visible()
    expect(loading).to_have_text("Searching…")
    check_accessibility(page, where="(while searching)")
    release.set()
    expect(summary(page)).to_have_text(f"Results for {word}")
    expect(loading).to_be_hidden()


def test_typing_shows_the_typed_name_priced_on_each_key_before_the_provider_answers(page: Page, slow_search):
    # MetaSearch holds this word's answer until released: a provider slower than any wait, so what shows before
    # it can only come from the page itself.
    word, release = slow_search
    page.goto("/")
    check_accessibility(page, where="(home)")
    search_box(page).press_sequentially(word, delay=120)

    typed = page.locator(".result-row", has=page.locator(".result-domain", has_text=re.compile(rf"^{word}\.com$")))
    expect(typed).to_contain_text("checking…")
    expect(typed.locator(".price")).to_have_text(re.compile(r"^\$\d+\.\d\d first year, then \$\d+\.\d\d/yr$"))
    drawn_price = typed.locator(".price").inner_text()
    expect(page.locator(".search-typed-summary")).to_have_text(f"Checking {word}…")
    expect(page.locator(".result-row")).to_have_count(10)  # each extension the store sells, priced
    expect(typed.get_by_role("button")).to_have_count(0)  # nothing to add before it is known to be free
    check_accessibility(page, where="(typed, before the answer)")

    release.set()
    expect(summary(page)).to_have_text(f"Results for {word}")
    expect(page.locator(".typed-row-checking")).to_have_count(0)
    expect(page.get_by_role("button", name=f"Add {word}.com to cart")).to_be_visible()
    expect(typed.locator(".price")).to_have_text(drawn_price)  # the price drawn was the price
    # Said once the answer has settled, from the answer: the number of its rows and of those that can be bought.
    rows = page.locator("#search-results .search-block:not(.search-ai) .result-row")
    # Counted whether shown or folded under "Show N more" (a role query sees only the shown ones).
    buttons = rows.locator("button[name=domain_name]")
    expect(page.locator("#search-announce")).to_have_text(re.compile(r"^\d+ domains found, \d+ available to buy\.$"))
    announced = page.locator("#search-announce").inner_text()
    assert announced == f"{rows.count()} domains found, {buttons.count()} available to buy.", announced


@pytest.fixture
def held_search(monkeypatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Once armed, the next search's answer is held back until released, as over a slow connection."""
    armed, release = threading.Event(), threading.Event()
    real = search_views.metasearch_cached

    def metasearch_cached(term):
        if armed.is_set():
            armed.clear()
            release.wait(timeout=30)
        return real(term)

    monkeypatch.setattr(search_views, "metasearch_cached", metasearch_cached)
    yield armed, release
    release.set()


def test_typing_replaces_the_address_and_a_submitted_search_stays_in_history(page: Page, held_search):
    first, second = unique_label("harbour"), unique_label("lantern")
    armed, release = held_search
    page.goto("/")
    check_accessibility(page)
    start = page.evaluate("() => history.length")
    box = search_box(page)

    # Pauses longer than the box's 150 ms wait: a search per pause, but one history entry for the lot.
    box.press_sequentially(first, delay=400)
    expect(summary(page)).to_have_text(f"Results for {first}")
    expect(page).to_have_url(re.compile(rf"/search/\?q={first}$"))
    assert page.evaluate("() => history.length") == start + 1
    # Enter on the search shown keeps it in history, even when the box is cleared before Enter's own request
    # answers (clearing a search box is a search of its own, which replaces the one in flight).
    armed.set()
    box.press("Enter")
    expect(summary(page)).to_have_text(f"Results for {first}")
    assert page.evaluate("() => history.length") == start + 1

    box.fill("")
    release.set()
    box.press_sequentially(second, delay=400)
    expect(summary(page)).to_have_text(f"Results for {second}")
    assert page.evaluate("() => history.length") == start + 2

    page.go_back()
    expect(page).to_have_url(re.compile(rf"/search/\?q={first}$"))
    expect(search_box(page)).to_have_value(first)
    check_accessibility(page, where="(back to a search)")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/$"))


def test_on_a_phone_the_row_keeps_its_name_readable_after_add_to_cart(page: Page, screenshot):
    page.set_viewport_size(PHONE)
    word = unique_label("pebble")
    page.goto(f"/search/?q={word}")
    expect(summary(page)).to_have_text(f"Results for {word}")
    name = f"{word}.net"
    add_to_cart(page, name)
    row = page.locator(".result-row", has=page.get_by_role("button", name=f"Add {name} to cart"))
    domain = row.locator(".result-domain").bounding_box()
    assert domain is not None
    # One line of text, not a letter per line: wider than a few letters and about one line high.
    assert domain["width"] > 120, domain
    assert domain["height"] < 40, domain
    screenshot("search-after-add-to-cart")
    check_accessibility(page, where="(after Add to cart)")

    # A long term never makes the page wider than the phone.
    page.goto(f"/search/?q={'w' * 60}{word}")
    expect(page.locator(".search-notice")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    check_accessibility(page, where="(a long term)")


def test_choosing_a_language_after_a_typed_search_returns_to_that_search(page: Page):
    word = unique_label("compass")
    page.goto("/")
    check_accessibility(page, where="(home)")
    search_box(page).press_sequentially(word, delay=40)
    expect(summary(page)).to_have_text(f"Results for {word}")
    expect(page).to_have_url(re.compile(rf"/search/\?q={word}$"))

    # The footer was drawn with the home page; the address changed under it as the customer typed.
    footer = page.locator("footer")
    footer.get_by_label("Language").select_option(label="Español")
    footer.get_by_role("button", name="Change").click()
    expect(page).to_have_url(re.compile(rf"/search/\?q={word}$"))
    expect(summary(page)).to_have_text(f"Resultados para {word}")
    check_accessibility(page, where="(the search, in Spanish)")
    # Back to English for the journeys after this one (the choice is kept in a cookie of this browser context).
    page.locator("footer").get_by_label("Idioma").select_option("en")
    page.locator("footer").get_by_role("button", name="Cambiar").click()
    expect(summary(page)).to_have_text(f"Results for {word}")
