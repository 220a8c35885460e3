"""What customers ask for that the provider lacks: counted per customer, TLD, feature and month (once a day), shown
to staff by month with a CSV for the provider, and each customer who ticked "email me" told once when it arrives."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from demand.models import DemandCount, DemandSubscription, FeatureState
from demand.services import demand_arrivals_check
from domains.models import Order
from tests.domains.orders.test_acting import REFUSED, staff_member, start_acting

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 5, 14, 10, 0, tzinfo=dt.UTC)


def _signed_in(customer) -> Client:
    client = Client()
    client.force_login(customer.user)
    return client


@pytest.fixture
def shop_order(customer) -> Order:
    return Order.objects.create(order_id=880001, customer=customer, domain_name="bakery.shop")


def test_asking_is_counted_per_customer_tld_feature_and_month_once_a_day(customer, other_customer, shop_order):
    client = _signed_in(customer)
    url = f"/wanted/nameservers/?order={shop_order.order_id}"
    with time_machine.travel(NOW, tick=False) as clock:
        page = client.get(url)
        assert page.status_code == 200
        assert "Our provider offers no way to move a domain to other nameservers yet." in page.content.decode()
        client.get(url)  # a reload is not another ask
        clock.move_to(NOW + dt.timedelta(days=1))
        client.get(url)
        client.get("/wanted/dnssec/?order=880001")
        _signed_in(other_customer).get("/wanted/transfer_in/?domain=Mine.SHOP")
        clock.move_to(dt.datetime(2026, 6, 1, 8, 0, tzinfo=dt.UTC))
        client.get(url)

    rows = DemandCount.objects.order_by("month", "feature", "customer_id")
    assert [(row.month, row.customer_id, row.tld, row.feature, row.count) for row in rows] == [
        (dt.date(2026, 5, 1), customer.pk, "shop", "dnssec", 1),
        (dt.date(2026, 5, 1), customer.pk, "shop", "nameservers", 2),
        (dt.date(2026, 5, 1), other_customer.pk, "shop", "transfer_in", 1),
        (dt.date(2026, 6, 1), customer.pk, "shop", "nameservers", 1),
    ]


def test_an_unknown_feature_and_someone_elses_domain_are_not_found(customer, other_customer):
    theirs = Order.objects.create(order_id=880002, customer=other_customer, domain_name="theirs.com")
    client = _signed_in(customer)
    assert client.get("/wanted/teleport/").status_code == 404
    assert client.get(f"/wanted/dnssec/?order={theirs.order_id}").status_code == 404
    assert not DemandCount.objects.exists()


def test_staff_see_the_month_and_download_it_for_the_provider_without_customers(
    customer, other_customer, shop_order, admin_client
):
    with time_machine.travel(NOW, tick=False):
        _signed_in(customer).get(f"/wanted/nameservers/?order={shop_order.order_id}")
        _signed_in(other_customer).get("/wanted/nameservers/?domain=their.shop")
        _signed_in(other_customer).get("/wanted/email_forwarding/")
        page = admin_client.get("/admin/demand/demandcount/?month=2026-05").content.decode()
        csv = admin_client.get("/admin/demand/demandcount/?month=2026-05&format=csv")
    assert "Your own nameservers" in page and ".shop" in page
    assert csv["Content-Disposition"] == 'attachment; filename="demand-2026-05.csv"'
    assert csv.content.decode().splitlines() == [
        "month,feature,tld,customers,days_asked",
        "2026-05,email_forwarding,,1,1",
        "2026-05,nameservers,shop,2,2",
    ]
    assert customer.email not in csv.content.decode() and other_customer.email not in csv.content.decode()


def test_the_customer_is_emailed_once_when_the_capability_is_switched_on(customer, shop_order, settings):
    settings.RESELLER_CAPABILITIES = [name for name in settings.RESELLER_CAPABILITIES if name != "privacy"]
    customer.language = "es"
    customer.save()
    client = _signed_in(customer)
    url = f"/wanted/privacy/?order={shop_order.order_id}"
    page = client.get(url).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page and 'name="notify"' in page
    response = client.post(url, {"notify": "on"})
    assert response.status_code == 302 and response["Location"] == url
    assert DemandSubscription.objects.filter(customer=customer, feature="privacy").exists()
    assert 'name="notify" checked' in client.get(url).content.decode()

    assert demand_arrivals_check() == {"arrived": 0, "emailed": 0}
    assert FeatureState.objects.get(feature="privacy").available is False
    assert mail.outbox == []

    settings.RESELLER_CAPABILITIES = [*settings.RESELLER_CAPABILITIES, "privacy"]
    assert demand_arrivals_check() == {"arrived": 1, "emailed": 1}
    [email] = mail.outbox
    assert email.to == [customer.email]
    assert email.subject == "Privacidad WHOIS ya está aquí"
    assert "Nos pediste que te avisáramos" in email.body
    assert demand_arrivals_check() == {"arrived": 0, "emailed": 0}  # told once
    assert len(mail.outbox) == 1
    # Available now: the page says so, and asking again is not counted.
    counted = DemandCount.objects.get(feature="privacy").count
    assert 'name="notify"' not in _signed_in(customer).get(url).content.decode()
    assert DemandCount.objects.get(feature="privacy").count == counted


def test_unticking_takes_the_request_back(customer, shop_order):
    client = _signed_in(customer)
    url = "/wanted/dnssec/"
    client.post(url, {"notify": "on"})
    client.post(url, {})
    assert not DemandSubscription.objects.exists()


def test_staff_acting_as_the_customer_read_the_page_uncounted_and_cannot_ask_for_emails(client, customer, shop_order):
    start_acting(client, staff_member(), customer)
    url = f"/wanted/nameservers/?order={shop_order.order_id}"
    assert client.get(url).status_code == 200
    refused = client.post(url, {"notify": "on"})
    assert refused.status_code == 403 and REFUSED in refused.content.decode()
    assert not DemandCount.objects.exists() and not DemandSubscription.objects.exists()


def test_staff_without_the_view_permission_do_not_see_the_month(client):
    clerk = get_user_model().objects.create_user("clerk@example.org", "clerk@example.org", "Clerk#Pass9", is_staff=True)
    client.force_login(clerk)
    assert client.get("/admin/demand/demandcount/").status_code == 403
