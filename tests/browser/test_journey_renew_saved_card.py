"""Journey: a customer adds a card from their account without buying (the payment provider's page in setup mode),
buys two domains, renews one with the saved card in one click (no payment page), then renews both together from the
order list in one payment. Screenshots of every page this changes, at 1280x800 and 390x844, in /tmp/shots-renew/
too (besides the journey's own artifacts)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from billing.models import Payment
from tests.browser.steps import check_accessibility, new_person, pay_by_card, resize, sign_up, start_checkout
from tests.browser.steps import unique_label as label

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/shots-renew")
MASTERCARD = "5555 5555 5555 4444"
PHONE = ViewportSize(width=390, height=844)


def _expiry(years_from_now: int) -> str:
    today = datetime.now(UTC).date()
    return f"{today:%b} {today.day}, {today.year + years_from_now}"


@pytest.fixture
def shoot(page: Page, screenshot):
    """The journey's screenshots (axe and the phone-width check at both sizes), and a 1280x800 one for review."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> None:
        screenshot(f"renew-saved-{name}")
        before = page.viewport_size
        for size_name, size in (("desktop", ViewportSize(width=1280, height=800)), ("phone", PHONE)):
            resize(page, size)
            page.screenshot(path=str(SHOTS / f"{name}-{size_name}.png"), full_page=True, caret="initial")
        if before:
            page.set_viewport_size(before)

    return take


def test_add_a_card_then_renew_in_one_click_and_several_in_one_payment(page: Page, shoot, stripe_sandbox):
    sign_up(page, new_person())

    # A card without buying: the account page, the payment provider's page in setup mode, back.
    page.goto("/account/")
    saved = page.get_by_role("region", name="Saved card")
    expect(saved).to_contain_text("No card is saved")
    saved.get_by_role("button", name="Add a card").click()
    expect(page.get_by_role("heading", name="Save a card for later payments")).to_be_visible()
    page.get_by_label("Card number").fill(MASTERCARD)
    page.get_by_role("button", name="Save card", exact=True).click()
    expect(page.get_by_text("Your Mastercard •••• 4444 is saved")).to_be_visible()
    expect(page.get_by_role("region", name="Saved card")).to_contain_text("Mastercard •••• 4444")
    shoot("account-card")

    first, second = f"{label('oneclick')}.com", f"{label('together')}.com"
    start_checkout(page, first, second)
    expect(page.get_by_role("heading", name="Pay 28.98 USD", exact=True)).to_be_visible()
    pay_by_card(page, MASTERCARD)
    expect(page.get_by_text("Done: 2 domains registered")).to_be_visible()
    check_accessibility(page, where="(bought)")

    # One click: the confirmation charges the saved card, no payment page.
    page.goto("/orders/")
    page.get_by_role("link", name=first, exact=True).click()
    renew = page.get_by_role("region", name="Renew")
    renew.get_by_role("button", name=f"Review renewal of {first}").click()
    button = page.get_by_role("button", name="Charge $16.49 to Mastercard •••• 4444 and renew", exact=True)
    expect(button).to_be_visible()
    expect(page.get_by_role("button", name="Pay with another card")).to_be_visible()
    shoot("confirm-saved-card")
    button.click()
    expect(page.get_by_text(f"Renewed until {_expiry(2)}. Your card was charged $16.49.")).to_be_visible()
    expect(page.locator(".order-expiry-date")).to_have_text(_expiry(2))
    assert stripe_sandbox.api_base not in page.url  # never on the payment page
    renewal = Payment.objects.get(lines__description=f"{first}, renewal for 1 year")
    assert (renewal.status, renewal.amount_captured, renewal.stripe_session_id) == ("captured", Decimal("16.49"), None)
    auto = page.get_by_role("region", name="Auto-renew")
    auto.get_by_role("button", name="Turn auto-renew on").click()
    expect(page.get_by_text(re.compile(rf"^Auto-renew is on: {re.escape(first)} will be renewed on "))).to_be_visible()
    shoot("domain-renewed")

    # Several in one payment, from the order list.
    page.goto("/orders/")
    page.get_by_label(f"Renew {first}").check()
    page.get_by_label(f"Renew {second}").check()
    shoot("orders-ticked")
    page.get_by_role("button", name="Renew selected domains").click()
    expect(page.get_by_role("heading", name="Confirm the renewal of these domains")).to_be_visible()
    expect(page.locator(".renew-many-total")).to_have_text("$32.98")
    shoot("confirm-several")
    page.get_by_role("button", name="Charge $32.98 to Mastercard •••• 4444 and renew 2 domains").click()
    expect(page.get_by_text("Your card was charged $32.98.")).to_be_visible()
    expect(page.get_by_text(f"renewed until {_expiry(3)}.")).to_be_visible()
    expect(page.get_by_text(f"renewed until {_expiry(2)}.")).to_be_visible()
    check_accessibility(page, where="(renewed together)")
    shoot("renewed-together")
    together = Payment.objects.get(amount=Decimal("32.98"))
    assert (together.status, together.lines.count()) == ("captured", 2)
