"""`manage.py sandbox_purge`: old customers, orders and DNS records go, as in the provider's sandbox (purged
every 24 hours); nothing runs it by default."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from sandbox.models import Customer, DnsRecord, DomainOrder, Partner

pytestmark = pytest.mark.django_db


def register(api, customer_id, name):
    response = api.post("/api/v1/domains/register", {"customer_id": customer_id, "domain_name": name, "duration": 1})
    assert response.status_code == 200, response.content
    order_id = response.json()["order_id"]
    assert api.post("/api/v1/dns/activate", {"order_id": order_id}).status_code == 200
    return order_id


def age(model, hours, **lookup):
    model.objects.filter(**lookup).update(created_at=timezone.now() - dt.timedelta(hours=hours))


def purge(*args):
    out = StringIO()
    call_command("sandbox_purge", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def old_and_new(api, make_customer):
    old = make_customer(email="old@example.org")
    new = make_customer(email="new@example.org")
    register(api, old, "oldname.com")
    register(api, new, "newname.com")
    register(api, new, "stalename.com")
    age(Customer, 25, customer_id=old)
    age(DomainOrder, 25, domain_name__in=["oldname.com", "stalename.com"])
    return old, new


def test_it_deletes_what_is_older_than_a_day(api, old_and_new):
    _, new = old_and_new
    output = purge()
    assert "Purged 1 customers, 2 orders and 6 DNS records older than 24 hours (test)." in output
    assert list(Customer.objects.values_list("customer_id", flat=True)) == [new]
    assert list(DomainOrder.objects.values_list("domain_name", flat=True)) == ["newname.com"]
    assert set(DnsRecord.objects.values_list("order__domain_name", flat=True)) == {"newname.com"}
    # The purged names are free again, and the customer's login is gone.
    body = api.get("/api/v1/domains/availability", {"search_term": "oldname", "tlds[]": "com"}).json()
    assert body["results"][0]["available"] is True
    assert api.post("/api/v1/customers/auto-login", {"email": "old@example.org"}).status_code == 422


def test_the_age_is_configurable_and_a_dry_run_deletes_nothing(old_and_new):
    assert "Would purge 1 customers, 2 orders" in purge("--dry-run")
    assert Customer.objects.count() == 2
    assert "Purged 0 customers, 0 orders" in purge("--hours", "48")
    assert "Purged 2 customers, 3 orders" in purge("--hours", "0")
    assert not DomainOrder.objects.exists()


def test_live_data_is_kept_unless_asked(live_api, partner, make_customer):
    Partner.objects.filter(pk=partner.pk).update(live_balance=100)
    live_customer = make_customer(client=live_api)
    register(live_api, live_customer, "livename.com")
    age(Customer, 30)
    age(DomainOrder, 30)
    assert "Purged 0 customers" in purge()
    assert "Purged 1 customers, 1 orders" in purge("--environment", "all")
    assert not Customer.objects.exists()


def test_a_negative_age_is_refused(partner):
    with pytest.raises(CommandError, match="negative"):
        purge("--hours", "-1")
