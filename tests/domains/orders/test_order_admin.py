"""Staff see orders in the admin: domain, customer, status, expiry, last synced; filters by status and expiry."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from domains.models import Order
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser("staff@example.com", "staff@example.com", "x")
    client.force_login(staff)
    return client


@pytest.fixture
def orders():
    customer = CustomerFactory.create(email="owner@example.com")  # staff pages only: the provider is never asked
    now = timezone.now()
    made = {}
    for number, (name, status, days) in enumerate(
        [
            ("fine.com", "Active", 200),
            ("soon.net", "Active", 10),
            ("gone.org", "Expired", -3),
            ("held.io", "Suspended", 90),
        ]
    ):
        made[name] = Order.objects.create(
            order_id=900000000 + number,
            customer=customer,
            domain_name=name,
            status=status,
            expires_at=now + dt.timedelta(days=days),
            last_synced_at=now,
        )
    return made


def _listed(response) -> set[str]:
    return {order.domain_name for order in response.context["cl"].result_list}


def test_the_list_shows_domain_customer_status_expiry_and_sync(staff_client, orders):
    response = staff_client.get("/admin/domains/order/")
    assert response.status_code == 200
    body = response.content.decode()
    for heading in ("Domain name", "Customer", "Status", "Expires at", "Last synced at"):
        assert heading in body
    assert _listed(response) == set(orders)


def test_it_filters_by_status(staff_client, orders):
    assert _listed(staff_client.get("/admin/domains/order/", {"status__exact": "Suspended"})) == {"held.io"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [("soon", {"soon.net"}), ("expired", {"gone.org"}), ("attention", {"soon.net", "gone.org"})],
)
def test_it_filters_by_expiry(staff_client, orders, value, expected):
    assert _listed(staff_client.get("/admin/domains/order/", {"expiry": value})) == expected


def test_it_searches_by_customer_email(staff_client, orders):
    assert _listed(staff_client.get("/admin/domains/order/", {"q": "owner@example"})) == set(orders)


def test_orders_cannot_be_edited_by_hand(staff_client, orders):
    order = orders["fine.com"]
    response = staff_client.post(f"/admin/domains/order/{order.pk}/change/", {"status": "Suspended"})
    assert response.status_code == 403
    order.refresh_from_db()
    assert order.status == "Active"


def test_orders_cannot_be_deleted_so_the_list_offers_no_delete_action(staff_client, orders):
    page = staff_client.get("/admin/domains/order/").content.decode()
    assert "delete_selected" not in page and "Delete selected" not in page
    order = next(iter(orders.values()))
    assert staff_client.get(f"/admin/domains/order/{order.pk}/delete/").status_code == 403
