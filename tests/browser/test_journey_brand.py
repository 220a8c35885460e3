"""Journey: a reseller's own shop (Acme Domains, a logo, a green): the brand shows in the header, titles and
buttons, the legal pages are a click away, and checkout will not buy until the terms are accepted."""

from __future__ import annotations

import re

import pytest
from django.contrib.flatpages.models import FlatPage
from playwright.sync_api import Page, expect

from domains.models import LegalAcceptance
from storefront.apps import _sync_site
from tests.browser.steps import (
    add_to_cart,
    check_accessibility,
    new_person,
    search_page,
    sign_up,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GREEN = "rgb(11, 110, 79)"  # #0b6e4f


@pytest.fixture(autouse=True)
def acme(settings) -> None:
    settings.STORE_NAME = "Acme Domains"
    settings.STORE_LEGAL_NAME = "Acme Domains Ltd"
    settings.STORE_LEGAL_ADDRESS = "1 Main Street\nSpringfield"
    settings.STORE_LOGO_URL = "img/favicon.svg"
    settings.STORE_PRIMARY_COLOR = "#0b6e4f"
    settings.SUPPORT_EMAIL = "help@acme.example"
    # As a reseller's first migrate does with these settings: the legal pages' starter text names the store.
    FlatPage.objects.all().delete()
    _sync_site()


def test_the_shop_wears_the_resellers_brand_and_checkout_asks_for_the_terms(page: Page, screenshot):
    page.goto("/")
    expect(page).to_have_title(re.compile(r"· Acme Domains$"))
    brand = page.get_by_role("link", name="Acme Domains", exact=True)
    expect(brand.locator("img.brand-logo")).to_be_visible()
    expect(page.get_by_role("button", name="Search").first).to_have_css("background-color", GREEN)
    footer = page.locator("footer")
    expect(footer.get_by_role("link", name="help@acme.example")).to_have_attribute("href", "mailto:help@acme.example")
    expect(footer).to_contain_text("Acme Domains Ltd")
    check_accessibility(page)
    screenshot("brand-home")

    footer.get_by_role("link", name="Domain registration agreement").click()
    expect(page.get_by_role("heading", name="Domain registration agreement", level=1)).to_be_visible()
    expect(page).to_have_title("Domain registration agreement · Acme Domains")
    expect(page.locator("main")).to_contain_text("between you (the registrant) and Acme Domains Ltd, operating Acme")
    expect(page.get_by_role("main").get_by_role("link", name="help@acme.example")).to_be_visible()
    check_accessibility(page)
    screenshot("brand-legal")

    sign_up(page, new_person())
    name = f"{unique_label('acme')}.com"
    search_page(page, name)
    add_to_cart(page, name)
    page.goto("/checkout/")
    expect(page).to_have_title("Checkout · Acme Domains")
    box = page.get_by_role("checkbox", name=re.compile("I accept the terms of service"))
    expect(box).not_to_be_checked()
    expect(page.get_by_role("link", name="domain registration agreement", exact=True)).to_have_attribute(
        "href", "/legal/registration-agreement/"
    )
    check_accessibility(page)

    # Buy without the box: the browser holds the form back and nothing is bought.
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    expect(page.get_by_role("heading", name="Review your order")).to_be_visible()
    assert page.evaluate("document.getElementById('accept-terms').matches(':invalid')")
    assert not LegalAcceptance.objects.exists()

    box.check()
    screenshot("brand-checkout")
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    expect(page.get_by_text("Done: 1 domain registered.")).to_be_visible()
    check_accessibility(page)
    assert LegalAcceptance.objects.get().terms.url == "/legal/terms/"
