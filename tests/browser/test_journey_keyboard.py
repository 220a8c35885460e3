"""Journey 7: search, add to cart, sign in and check out with the keyboard alone; every field has a label.

Only Tab, Enter, Space and typing: no click anywhere in the journey. The account is made beforehand in a
separate browser window, so the journey starts as a visitor who already has one.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import DESKTOP
from tests.browser.steps import (
    assert_every_field_labelled,
    check_accessibility,
    new_person,
    sign_up,
    tab_to,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def existing_customer(browser: Browser, live_server, sandbox_url, sandbox_partner):
    elsewhere = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
    try:
        setup = elsewhere.new_page()
        person = new_person()
        sign_up(setup, person)
        assert_every_field_labelled(setup)  # the signup page, as it was filled in
    finally:
        elsewhere.close()
    return person


def test_a_customer_searches_adds_to_cart_signs_in_and_buys_with_the_keyboard_only(
    page: Page, existing_customer, screenshot
):
    word = unique_label("keyboard")
    domain = f"{word}.com"

    page.goto("/")
    assert_every_field_labelled(page)
    check_accessibility(page)
    # The search box has the focus when the page opens: the customer just types.
    expect(page.get_by_label("Search for a domain")).to_be_focused()
    page.keyboard.type(word, delay=30)
    expect(page.get_by_role("region", name="Featured result")).to_be_visible()
    assert_every_field_labelled(page)
    check_accessibility(page)

    add = page.get_by_role("button", name=f"Add {domain} to cart")
    tab_to(page, add)
    page.keyboard.press("Enter")
    view_cart = page.locator(".result-row", has=add).get_by_role("link", name="View cart")
    expect(view_cart).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("1")
    tab_to(page, view_cart)
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Your cart")).to_be_visible()
    assert_every_field_labelled(page)
    check_accessibility(page)
    tab_to(page, page.get_by_role("link", name="Go to checkout"))
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Sign in to buy")).to_be_visible()
    assert_every_field_labelled(page)
    check_accessibility(page)
    tab_to(page, page.locator(".checkout-auth").get_by_role("link", name="Sign in"))
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert_every_field_labelled(page)
    check_accessibility(page)
    email = page.get_by_label("Email")
    if not email.evaluate("(el) => el === document.activeElement"):
        tab_to(page, email)
    page.keyboard.type(existing_customer.email)
    tab_to(page, page.get_by_label("Password"))
    page.keyboard.type(existing_customer.password)
    page.keyboard.press("Enter")

    # Back at checkout, signed in, with the cart as it was.
    expect(page.get_by_role("heading", name="Review your order")).to_be_visible()
    expect(page.locator(".checkout-line-name")).to_have_text([domain])
    assert_every_field_labelled(page)
    check_accessibility(page)
    accept = page.get_by_role("checkbox", name=re.compile("I accept the terms of service"))
    tab_to(page, accept)
    page.keyboard.press("Space")
    buy = page.get_by_role("button", name=re.compile("^Buy now"))
    tab_to(page, buy)
    page.keyboard.press("Space")

    expect(page.get_by_role("heading", name="Your order")).to_be_visible()
    expect(page.get_by_text("Done: 1 domain registered.")).to_be_visible()
    expect(page.locator(".outcome-line", has_text=domain).locator(".badge")).to_have_text(
        re.compile("Registered", re.I)
    )
    assert_every_field_labelled(page)
    check_accessibility(page)
    screenshot("keyboard")
