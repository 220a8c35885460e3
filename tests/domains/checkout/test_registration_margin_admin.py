"""Staff see each sale's retail price, cost and margin in the admin; revenue and margin are the ledger's report."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Customer
from domains.models import Registration
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/domains/registration/"
REVENUE = "/admin/domains/registration/revenue/"


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser("staff@example.com", "staff@example.com", "x")
    client.force_login(staff)
    return client


@pytest.fixture
def buyer() -> Customer:
    return CustomerFactory.create()  # staff pages and a refused page only: the provider is never asked


def sale(buyer, name: str, *, retail: str, cost: str | None, status: str = Registration.Status.REGISTERED, when=None):
    registration = Registration.objects.create(
        customer=buyer, domain_name=name, duration=1, currency="USD", total_price=Decimal(retail),
        cost_price=Decimal(cost) if cost is not None else None, provider_cost=Decimal(cost or "0"),
        price_rule="default: cost + 20% + 0/yr", status=status, checkout_id=uuid.uuid4(),
    )  # fmt: skip
    if when is not None:
        Registration.objects.filter(pk=registration.pk).update(created_at=when)
    return registration


def test_each_sale_shows_retail_cost_and_margin(staff_client, buyer):
    sale(buyer, "margin.com", retail="12.99", cost="10.00")

    html = staff_client.get(CHANGELIST).content.decode()

    assert "$12.99" in html and "$10.00" in html and "$2.99" in html


def test_the_old_revenue_page_leads_to_the_ledgers_report(staff_client):
    response = staff_client.get(REVENUE)
    assert (response.status_code, response.url) == (302, "/admin/billing/ledgerentry/report/")


def test_the_changelist_links_to_the_revenue_report(staff_client):
    assert 'href="/admin/billing/ledgerentry/report/"' in staff_client.get(CHANGELIST).content.decode()


def test_customers_cannot_see_the_revenue_page(client, buyer):
    client.force_login(buyer.user)
    assert staff_response_is_login(client.get(REVENUE))


def staff_response_is_login(response) -> bool:
    return response.status_code == 302 and "/admin/login/" in response.url
