"""Journey 5: a signup with bad details shows each error beside its own field and keeps what was typed."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.steps import assert_every_field_labelled, choose_country, fill_signup, new_person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _error_beside(page: Page, row_id: str, text: str) -> None:
    """The message sits in the field's own row, next to its input, not in a list at the top."""
    expect(page.locator(f"#{row_id} .errorlist")).to_contain_text(text)


def test_a_signup_with_bad_details_shows_every_error_beside_its_field_and_keeps_the_input(page: Page, screenshot):
    page.goto("/accounts/signup/")

    # What the browser lets through, the server still refuses: a US number one digit short.
    person = new_person(phone="5551234")
    fill_signup(page, person)
    page.get_by_role("button", name="Create account").click()
    _error_beside(page, "row-phone", "This is not a valid phone number for the dialling prefix +1.")
    expect(page.locator(".errorlist")).to_have_count(1)
    expect(page.get_by_label("Full name")).to_have_value(person.name)
    expect(page.get_by_label("Email")).to_have_value(person.email)
    expect(page.get_by_label("Country")).to_have_value("US")
    expect(page.get_by_label("State or province")).to_have_value(person.state)
    expect(page.get_by_label("Phone")).to_have_value("5551234")
    # Passwords are never sent back to the browser; the customer types them again.
    expect(page.get_by_label("Password", exact=True)).to_have_value("")

    # Many mistakes at once. The page's own checks would stop most of them in the browser first; switching those
    # off shows what the server says about each, as a browser without them would see it.
    page.get_by_label("Full name").fill("Grâce Hopper")
    page.get_by_label("Email").fill("grace@")
    choose_country(page, "United Kingdom", "Scotland")
    page.get_by_label("Street address", exact=True).fill("")
    page.get_by_label("City", exact=True).fill("Edinburgh")
    # A name in any script is taken as written; its English spelling, as the customer corrects it, must be English.
    page.get_by_text("Correct the spelling in English letters").click()
    page.get_by_label("Name in English letters").fill("Grâce Hopper")
    page.get_by_label("Postal code").fill("EH1 1YZ!")
    page.get_by_label("Dialling prefix").fill("44")
    page.get_by_label("Phone").fill("131")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Password again").fill("short")
    page.locator("#signup-form").evaluate("form => { form.noValidate = true; }")
    page.get_by_role("button", name="Create account").click()

    _error_beside(page, "row-name_ascii", "Please use English (ASCII) characters only in Name in English letters")
    _error_beside(page, "row-email", "Enter a valid email address.")
    _error_beside(page, "row-address", "Please enter your street address.")
    _error_beside(page, "row-zipcode", "Enter the postal code with letters, digits, spaces or hyphens only")
    _error_beside(page, "row-phone", "The phone number needs at least 4 digits.")
    _error_beside(page, "row-password", "Use 9 to 15 characters.")
    _error_beside(page, "row-password", "Include at least one uppercase letter (A-Z).")
    _error_beside(page, "row-password", "Include at least one digit (0-9).")
    for row in ("row-name", "row-city", "row-country", "state-row", "row-country_code", "row-password2"):
        expect(page.locator(f"#{row} .errorlist")).to_have_count(0)
    # Each invalid input says so to assistive technology, too.
    for label in ("Email", "Street address", "Postal code", "Phone"):
        expect(page.get_by_label(label, exact=True)).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Name in English letters")).to_have_attribute("aria-invalid", "true")

    expect(page.get_by_label("Full name")).to_have_value("Grâce Hopper")
    expect(page.get_by_label("Email")).to_have_value("grace@")
    expect(page.get_by_label("Country")).to_have_value("GB")
    expect(page.get_by_label("State or province")).to_have_value("Scotland")
    expect(page.get_by_label("City", exact=True)).to_have_value("Edinburgh")
    expect(page.get_by_label("Postal code")).to_have_value("EH1 1YZ!")
    expect(page.get_by_label("Dialling prefix")).to_have_value("44")
    expect(page.get_by_label("Phone")).to_have_value("131")
    expect(page.get_by_role("heading", name="Create your account")).to_be_visible()
    assert_every_field_labelled(page)
    screenshot("signup-errors")

    # The refused spelling comes with its English form: one press puts it in the field.
    page.get_by_role("button", name="Use “Grace Hopper”").click()
    expect(page.get_by_label("Name in English letters")).to_have_value("Grace Hopper")
    expect(page.get_by_label("Full name")).to_have_value("Grâce Hopper")
