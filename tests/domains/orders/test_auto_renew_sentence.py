"""What the domain page says auto-renew will do: the date of the run that renews it. Inside the window (fewer than
AUTO_RENEW_DAYS_BEFORE days from expiry) it is the next run, never "14 days before expiry", which has passed."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils.formats import date_format

from billing.models import SavedCard
from domains.models import Order
from domains.orders.auto_renew import AUTO_RENEW_CRON, auto_renew_when
from domains.orders.services import order_fetch
from storefront.background.scheduler import next_run_at

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


@pytest.fixture
def card(customer, settings) -> SavedCard:
    settings.PAYMENTS_DISABLED = False  # auto-renew is offered where cards are charged (no payment call here)
    return SavedCard.objects.create(
        customer=customer, stripe_customer_id="cus_s", payment_method_id="pm_s", brand="visa", last4="4242"
    )


def on_auto_renew(provider_orders, customer, name: str, days: float) -> Order:
    order = provider_orders.register(customer, name)
    provider_orders.set_expiry_in_days(order, days)
    order_fetch(order=order)
    Order.objects.filter(pk=order.pk).update(auto_renew=True)
    order.refresh_from_db()
    return order


def auto_renew_section(client, order: Order) -> str:
    html = client.get(reverse("order_detail", args=[order.order_id])).content.decode()
    return html[html.index('id="auto-renew"') :]


def test_a_domain_nine_days_from_expiry_is_renewed_in_the_next_run_not_14_days_before(
    signed_in, customer, provider_orders, card, settings
):
    settings.AUTO_RENEW_DAYS_BEFORE = 14
    order = on_auto_renew(provider_orders, customer, "ninedays.com", 9)
    next_run = next_run_at(cron=AUTO_RENEW_CRON, after=dt.datetime.now(tz=dt.UTC))

    section = auto_renew_section(signed_in, order)

    assert "14 days before it expires" not in section
    assert (
        f"ninedays.com expires within 14 days, so it will be renewed for the shortest term in the next auto-renew "
        f"run, on {date_format(next_run, 'DATE_FORMAT')}" in section
    )
    assert "Visa •••• 4242" in section


def test_a_domain_far_from_expiry_says_the_date_of_its_renewal(signed_in, customer, provider_orders, card, settings):
    settings.AUTO_RENEW_DAYS_BEFORE = 14
    order = on_auto_renew(provider_orders, customer, "farday.com", 100)
    opens = provider_orders.at_provider(order).expires_at - dt.timedelta(days=14)
    run = next_run_at(cron=AUTO_RENEW_CRON, after=opens)

    section = auto_renew_section(signed_in, order)

    assert f"farday.com will be renewed for the shortest term on {date_format(run, 'DATE_FORMAT')}, 14 days" in section


def test_switching_it_on_inside_the_window_says_the_next_run(signed_in, customer, provider_orders, card, settings):
    settings.AUTO_RENEW_DAYS_BEFORE = 14
    order = on_auto_renew(provider_orders, customer, "switchnine.com", 9)
    Order.objects.filter(pk=order.pk).update(auto_renew=False)

    off = auto_renew_section(signed_in, order)
    switched = signed_in.post(reverse("order_auto_renew", args=[order.order_id]), {"auto_renew": "on"}, follow=True)

    assert "switched on, it will be renewed in the next auto-renew run" in off
    html = switched.content.decode()
    assert "Auto-renew is on: switchnine.com expires within 14 days, so it will be renewed in the next" in html
    assert "14 days before it expires" not in html


def test_the_run_is_the_first_at_or_after_the_window_opening():
    now = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
    inside = auto_renew_when(expires_at=now + dt.timedelta(days=9), now=now)
    outside = auto_renew_when(expires_at=now + dt.timedelta(days=30), now=now)
    long_expired = auto_renew_when(expires_at=now - dt.timedelta(days=40), now=now)

    assert inside is not None and inside.due and inside.at == dt.datetime(2026, 3, 2, 5, 37, tzinfo=dt.UTC)
    assert outside is not None and not outside.due
    assert outside.at == dt.datetime(2026, 3, 18, 5, 37, tzinfo=dt.UTC)  # the 17th at 12:00 opens it
    assert long_expired is None
