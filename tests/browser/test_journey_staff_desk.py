"""Journey: a staff member opens the dashboard, follows a failed auto-renewal to its customer, acts as the customer to
see their domain's page as they do (the banner says so; the transfer code is refused), stops, and the customer's page
in the admin logs both, beside the failure itself."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from playwright.sync_api import BrowserContext, Page, expect

from accounts.models import Activity
from domains.models import Order
from domains.orders.auto_renew import auto_renew_all
from storefront.gateway import gateway
from tests.browser.conftest import _OVERFLOWING, DESKTOP, PHONE, SCREENSHOTS, Watch, _attach
from tests.browser.steps import check_accessibility, resize, unique_label

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _failed_auto_renewal(customer, settings) -> Order:
    """A domain of the customer's at the sandbox, on auto-renew, due, and no card to charge: the daily job fails it."""
    name = f"{unique_label('desk')}.com"
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=name, duration=1)
    order = Order.objects.create(
        order_id=registered.order_id,
        customer=customer,
        domain_name=name,
        auto_renew=True,
        expires_at=timezone.now() + dt.timedelta(days=5),
    )
    settings.PAYMENTS_DISABLED = False
    assert auto_renew_all() == {"failed": 1}
    settings.PAYMENTS_DISABLED = True
    return order


def _sign_in_staff(context: BrowserContext, live_server) -> None:
    """Staff sign in with two-factor (tests/conftest.py gives every staff user an authenticator); the session is
    handed to the browser as a cookie."""
    staff = get_user_model().objects.create_superuser("desk@example.org", "desk@example.org", "Desk#Journey32")
    client = Client()
    client.force_login(staff)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])


def _screenshot(page: Page, watch: Watch, name: str, *, ours: bool = True) -> None:
    """At phone and desktop sizes; our own pages also pass axe at both and fit a phone. Django's generic change form
    is not checked with axe: its stylesheet's @import makes axe inject a <style>, which the CSP refuses."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for size_name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        resize(page, size)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{size_name}.png"), full_page=True, caret="initial")
        if ours:
            check_accessibility(page, where=f"({size_name})")
            wide = page.evaluate(_OVERFLOWING) if size is PHONE else []
            assert not wide, f"{page.url} is wider than a phone: {wide}"
    page.set_viewport_size(DESKTOP)


def test_staff_follow_a_failed_auto_renewal_act_as_the_customer_and_the_log_shows_it(
    context: BrowserContext, watch: Watch, live_server, customer, settings
):
    order = _failed_auto_renewal(customer, settings)
    _sign_in_staff(context, live_server)
    page = context.new_page()
    _attach(page, watch)  # JavaScript errors, CSP violations and server errors fail the journey

    page.goto("/admin/")
    failed = page.locator("#failed-auto-renewals")
    expect(page.get_by_role("heading", name="Failed auto-renewals (1 not handled)")).to_be_visible()
    expect(failed.get_by_role("row", name=re.compile(order.domain_name))).to_contain_text("no_saved_card")
    expect(page.locator("#revenue-table")).to_be_visible()
    _screenshot(page, watch, "staff-dashboard")

    failed.get_by_role("link", name=customer.user.email).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Change customer"))).to_be_visible()
    page.get_by_role("button", name="Act as this customer").click()

    expect(page.get_by_role("heading", name="My domains")).to_be_visible()
    banner = page.get_by_role("alert").filter(has_text="Staff view")
    expect(banner).to_contain_text(f"you are acting as {customer.name}")
    check_accessibility(page)
    page.get_by_role("link", name=order.domain_name).first.click()
    expect(page.get_by_role("heading", name=order.domain_name)).to_be_visible()
    expect(banner).to_be_visible()
    _screenshot(page, watch, "staff-acting-order")

    page.get_by_role("button", name="Show transfer code").click()
    expect(page.get_by_text("This is not available while our staff act as a customer")).to_be_visible()
    check_accessibility(page)
    page.get_by_role("button", name="Stop acting as this customer").click()

    expect(page.get_by_role("heading", name=re.compile(r"^Change customer"))).to_be_visible()
    log = page.locator(".activity-table")
    expect(log.get_by_role("row").nth(1)).to_contain_text("Staff member stopped acting as the customer")
    expect(log.get_by_role("row").nth(2)).to_contain_text("Staff member began acting as the customer")
    expect(log).to_contain_text("Auto-renewal failed (no_saved_card)")
    _screenshot(page, watch, "staff-customer-log", ours=False)
    acted = Activity.objects.filter(customer=customer, action__in=["acting_started", "acting_ended"])
    assert sorted(acted.values_list("actor_name", flat=True)) == ["desk@example.org", "desk@example.org"]
    assert not Activity.objects.filter(action="transfer_code_shown").exists()
    assert not watch.errors, "The browser saw problems:\n" + "\n".join(watch.errors)
