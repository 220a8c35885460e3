"""Journey: the store sells in euros too; a customer in Germany signs up (their currency chosen by their country),
sees the cart in euros, pays in euros at the payment page and gets a receipt in euros. Screenshots of the three
pages at 1280x800 and 390x844 go to /tmp/shots-currency/."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import Customer
from billing.models import Payment
from pricing.currencies import currency_table_forget
from pricing.models import Currency
from pricing.quotes import display_price_book_forget
from tests.browser.conftest import SHOT_SIZES
from tests.browser.steps import (
    accept_terms,
    add_to_cart,
    check_accessibility,
    confirm_email,
    fill_signup,
    new_person,
    pay_by_card,
    resize,
    search_page,
    unique_label,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots-currency")


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    check_accessibility(page)
    for size_name, size in SHOT_SIZES.items():
        resize(page, size)
        page.screenshot(path=str(SHOTS / f"{name}-{size_name}.png"), full_page=True, caret="initial")
    page.set_viewport_size(SHOT_SIZES["desktop"])


def test_a_customer_in_germany_buys_and_is_receipted_in_euros(page: Page, stripe_sandbox, live_server):
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    currency_table_forget()
    display_price_book_forget()
    person = new_person(
        country="Germany", state="Bayern", city="München", zipcode="80331", dial_code="49", phone="8912345678"
    )

    page.goto("/accounts/signup/")
    fill_signup(page, person)
    expect(page.get_by_label("Currency")).to_have_value("")  # by the country, unless the customer picks one
    expect(page.get_by_label("Currency").locator("option", has_text="EUR, Euro")).to_have_count(1)
    shot(page, "signup-currency")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Confirm your email address")).to_be_visible()
    check_accessibility(page)
    confirm_email(page, person)
    assert Customer.objects.get(user__email=person.email).currency == "EUR"

    name = f"{unique_label('euro')}.com"
    search_page(page, name)
    add_to_cart(page, name)
    page.goto("/cart/")
    expect(page.get_by_role("main")).to_contain_text("€")
    expect(page.get_by_role("main")).not_to_contain_text("$")
    shot(page, "cart-eur")

    page.goto("/checkout/")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Pay \d+\.99 EUR$"))).to_be_visible()
    pay_by_card(page)
    expect(page.get_by_text("Done: 1 domain registered")).to_be_visible()
    check_accessibility(page)

    payment = Payment.objects.get(customer__user__email=person.email)
    assert (payment.currency, payment.rate) == ("EUR", Decimal("0.92"))
    receipt = payment.receipt
    assert receipt is not None
    page.goto(f"/payments/receipts/{receipt.number}/")
    expect(page.get_by_role("main")).to_contain_text(f"€{payment.amount}")
    shot(page, "receipt-eur")

    page.goto("/account/")
    expect(page.get_by_text("Your prices are in EUR.")).to_be_visible()
    shot(page, "account-currency-fixed")
