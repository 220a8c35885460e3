"""A domain whose registration was refunded in full is locked for the customer: the reseller paid the provider for
it and the customer has their money back, so no transfer code, DNS change or control panel is given for it (each
refused before any provider call), and its page says why. Staff see it listed to delete."""

from __future__ import annotations

import pytest
from django.utils import timezone

from domains.models import Order
from storefront.gateway import gateway
from tests.domains.orders.test_order_transfer_code import confirmed, url  # noqa: F401 (a fixture)

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


@pytest.fixture
def refunded(customer, provider_orders) -> Order:
    order = provider_orders.register(customer, "lockedrefund.com")
    gateway().dns_activate(order_id=order.order_id)  # its DNS was on before the refund
    Order.objects.filter(pk=order.pk).update(refunded_at=timezone.now(), dns_active=True)
    order.refresh_from_db()
    return order


LOCKED = "This domain was refunded, so its transfer code, DNS records and control panel are closed."


def test_its_page_offers_no_transfer_code_dns_or_panel_and_says_why(confirmed, refunded):  # noqa: F811
    page = confirmed.get(f"/orders/{refunded.order_id}/").content.decode()
    assert LOCKED in page
    assert url(refunded) not in page
    assert f"/orders/{refunded.order_id}/dns/" not in page
    assert 'action="/accounts/panel/"' not in page


def test_the_transfer_code_is_refused_before_any_call(confirmed, refunded, provider_calls):  # noqa: F811
    response = confirmed.post(url(refunded), follow=True)
    body = response.content.decode()
    assert LOCKED in body
    assert 'id="transfer-code"' not in body
    assert provider_calls.count("transfer_auth_code") == 0


def test_dns_changes_are_refused_before_any_call(confirmed, refunded, provider_calls):  # noqa: F811
    form = {"type": "A", "host": "www", "value": "192.0.2.10", "ttl": "3600"}
    response = confirmed.post(f"/orders/{refunded.order_id}/dns/add/", form)
    assert response.status_code == 403
    assert LOCKED in response.content.decode()
    assert provider_calls.count("dns_record_add") == 0


def test_the_control_panel_is_closed_while_it_is_held(confirmed, refunded, provider_calls):  # noqa: F811
    response = confirmed.post("/accounts/panel/", follow=True)
    assert (
        "The control panel is closed while lockedrefund.com, which was refunded, is still registered in your account."
        in response.content.decode()
    )
    assert provider_calls.count("customer_auto_login") == 0
    Order.objects.filter(pk=refunded.pk).delete()  # deleted by staff: the panel opens again
    assert confirmed.post("/accounts/panel/")["Location"].startswith("http")
