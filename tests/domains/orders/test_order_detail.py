"""One domain, /orders/<order_id>/: status, expiry, renew form, DNS and control panel links."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from django.urls import reverse

from domains.models import Order
from pricing.models import CostPrice
from tests.pricing.conftest import markup

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


def url(order: Order) -> str:
    return reverse("order_detail", args=[order.order_id])


def test_an_unknown_order_is_not_found(signed_in, provider_calls):
    response = signed_in.get(reverse("order_detail", args=[123456789]))

    assert response.status_code == 404
    assert provider_calls == []


def test_it_shows_status_expiry_and_links(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "mypage.com", duration=2)
    expires = provider_orders.at_provider(order).expires_at

    response = signed_in.get(url(order))

    body = response.content.decode()
    assert response.status_code == 200
    assert "<h1>mypage.com</h1>" in body
    assert '<span class="badge badge-ok">Active</span>' in body
    assert expires.strftime("%b %-d, %Y") in body
    assert reverse("dns", args=[order.order_id]) in body
    assert f'action="{reverse("panel")}"' in body
    assert f'action="{reverse("order_renew", args=[order.order_id])}"' in body
    assert f'action="{reverse("order_transfer_code", args=[order.order_id])}"' in body


def test_it_reads_the_order_fresh_and_refreshes_the_local_copy(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "fresh.com")
    provider_orders.set_status(order, "Suspended")

    body = signed_in.get(url(order)).content.decode()

    assert '<span class="badge badge-warn">Suspended</span>' in body
    order.refresh_from_db()
    assert order.status == "Suspended"
    assert order.last_synced_at is not None


def test_it_shows_renew_prices_per_term(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "priced.com")

    body = signed_in.get(url(order)).content.decode()

    # The demo catalogue renews .com at 14.99 a year; the tests' settings add 1.50 a year.
    assert "Renewal price: $16.49 per year." in body
    assert "3 years · $49.47" in body
    assert '<option value="4"' not in body  # the provider prices no four-year renewal


@markup(percent="20")
def test_renew_prices_are_our_retail_prices(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "marked.com")

    body = signed_in.get(url(order)).content.decode()

    assert "Renewal price: $17.99 per year." in body  # 14.99 + 20 %, rounded to the cent
    assert "14.99" not in body


def test_it_says_when_the_price_is_unavailable(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "unpriced.com")
    CostPrice.objects.filter(tld__name="com", operation="renew").delete()  # we have no renewal cost for .com

    body = signed_in.get(url(order)).content.decode()

    assert "Renewal price unavailable" in body
    assert "Review renewal of unpriced.com" in body


def test_it_gives_the_page_a_renew_token_kept_in_the_session(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "tokened.com")

    body = signed_in.get(url(order)).content.decode()

    issued = signed_in.session["renew_tokens"][str(order.order_id)]
    assert f'name="renew_token" value="{issued[-1]}"' in body


def test_an_expired_domain_can_be_renewed_and_stands_out(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "overdue.com")
    provider_orders.set_expiry_in_days(order, -10.5)

    body = signed_in.get(url(order)).content.decode()

    assert '<span class="badge badge-bad">Expired</span>' in body
    assert "Expired 10 days ago" in body
    assert "order-expiry order-expired" in body
    assert "Review renewal of overdue.com" in body


def test_pending_delete_explains_restore_and_offers_no_renewal(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "almostgone.com")
    provider_orders.set_status(order, "Pending Delete Restorable")

    body = signed_in.get(url(order)).content.decode()

    assert "must be restored" in body or "has to be <strong>restored</strong>" in body
    assert "Please contact support and mention almostgone.com" in body
    assert reverse("order_renew", args=[order.order_id]) not in body
    # With a support page set, "contact support" leads there.
    with override_settings(SUPPORT_URL="https://help.example.org/"):
        body = signed_in.get(url(order)).content.decode()
    assert (
        'Please <a href="https://help.example.org/" class="support-link">contact support</a> and mention almostgone.com'
    ) in body


def test_a_provider_outage_shows_the_message_and_what_we_last_saw(signed_in, customer, provider_orders, fake_gateway):
    order = provider_orders.register(customer, "outage.com")
    assert signed_in.get(url(order)).status_code == 200  # a first visit keeps our copy of the order, synced now

    with fake_gateway.fault(error_rate=1.0, scope="orders"):
        response = signed_in.get(url(order))

    assert response.status_code == 503
    body = response.content.decode()
    assert "<h1>outage.com</h1>" in body
    notice = re.search(r'<div class="notice notice-error"[^>]*role="alert">(.*?)</div>', body, re.S)
    assert notice is not None, "the outage notice is missing"
    assert "so we could not load the latest details of this domain" in notice.group(1)
    assert "Showing what we last saw, " in body
    assert "no longer listed in your account" not in body  # an outage is not a vanished domain
    # No renewal offered from our copy alone (the page's session is not even kept with a 503): it says why.
    assert 'name="renew_token"' not in body
    assert "Renewing starts from the expiry the domain service has now" in body


def test_an_order_no_longer_listed_says_so(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "vanished.com")
    provider_orders.set_status(order, "Deleted")

    response = signed_in.get(url(order))

    assert response.status_code == 200
    body = response.content.decode()
    assert "no longer listed in your account" in body
    assert reverse("order_renew", args=[order.order_id]) not in body
