"""The hot pages and the admin lists cost a fixed number of queries, whatever the store holds: each is asked for
at two sizes (a few rows, then many more) and must run no more statements the second time than the first, and at
most its stated budget. Counts, never timings (those are bench/scale.py's)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Customer
from billing.models import Document, Payment, PaymentLine
from domains.models import Order, Registration, Renewal
from tests.factories import CustomerFactory

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db

SMALL, LARGE = 3, 60


def queries(client, url: str, **kwargs) -> int:
    """The statements the page runs; the savepoints are left out: they come from the test's own transaction (in
    production each is a plain commit)."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, **kwargs)
    assert response.status_code == 200, (url, response.status_code)
    return sum(1 for query in captured.captured_queries if not query["sql"].startswith(_SAVEPOINTS))


_SAVEPOINTS = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def grow(customer, start: int, count: int) -> None:
    """`count` more domains, registrations, renewals and payments with receipts for `customer`, and as many for
    another customer (rows the pages must not read)."""
    now = timezone.now()
    other: Customer = CustomerFactory.create(user__email=f"other{start}@example.com", name="Other Customer")
    for owner in (customer, other):
        for i in range(start, start + count):
            name = f"grown{i}-{owner.pk}.com"
            order = Order.objects.create(
                order_id=900_000 + i * 10 + owner.pk % 10 + owner.pk * 100_000,
                customer=owner,
                domain_name=name,
                expires_at=now + dt.timedelta(days=i + 1),
            )
            Registration.objects.create(
                customer=owner,
                domain_name=name,
                duration=1,
                status=Registration.Status.REGISTERED,
                order=order,
                checkout_id=uuid.uuid4(),
                currency="USD",
                total_price=Decimal("12.99"),
            )
            Renewal.objects.create(
                customer=owner,
                order=order,
                provider_order_id=order.order_id,
                domain_name=name,
                duration=1,
                status=Renewal.RENEWED,
                token=uuid.uuid4(),
            )
            payment = Payment.objects.create(
                customer=owner, checkout_id=uuid.uuid4(), currency="USD", amount=Decimal("12.99"), status="captured"
            )
            PaymentLine.objects.create(
                payment=payment, position=1, reference=name, description=name, amount=Decimal("12.99")
            )
            Document.objects.create(
                kind=Document.Kind.RECEIPT,
                store="Domain Store",
                number=payment.pk,
                payment=payment,
                amount=Decimal("12.99"),
                currency="USD",
            )


def test_the_order_page_runs_at_most_ten_queries_whatever_the_customer_has(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "counted.com")
    grow(customer, 0, SMALL)
    # The first view after the purchase writes our copy of the order; the views after it, unchanged, do not.
    signed_in.get(reverse("order_detail", args=[order.order_id]))
    small = queries(signed_in, reverse("order_detail", args=[order.order_id]))
    grow(customer, SMALL, LARGE)
    large = queries(signed_in, reverse("order_detail", args=[order.order_id]))
    assert large <= small <= 10, (small, large)


def tasks(count: int) -> None:
    from django_tasks_db.models import DBTaskResult, get_date_max

    now = timezone.now()
    DBTaskResult.objects.bulk_create(
        [
            DBTaskResult(
                task_path="storefront.tasks.send_email",
                args_kwargs={"args": [], "kwargs": {"email_id": i}},
                status="FAILED",
                queue_name="default",
                backend_name="default",
                priority=0,
                enqueued_at=now,
                finished_at=now,
                run_after=get_date_max(),
                exception_class_path="smtplib.SMTPServerDisconnected",
                traceback="Traceback\nsmtplib.SMTPServerDisconnected: gone",
                worker_ids=["test"],
            )
            for i in range(count)
        ]
    )


ADMIN_LISTS = [
    "/admin/accounts/customer/",
    "/admin/accounts/customer/?q=grown",
    "/admin/accounts/customer/?q=other1%40example.com",
    "/admin/domains/order/",
    "/admin/domains/order/?q=grown1",
    "/admin/domains/order/?expiry=soon",
    "/admin/domains/registration/",
    "/admin/domains/registration/?q=grown1",
    "/admin/domains/registration/?status__exact=registered",
    "/admin/domains/renewal/",
    "/admin/domains/renewal/?q=grown",
    "/admin/billing/payment/",
    "/admin/billing/payment/?q=other1%40example.com",
    "/admin/billing/payment/?status__exact=captured",
    "/admin/billing/document/",
    "/admin/billing/ledgerentry/",
    "/admin/pricing/costprice/",
    "/admin/pricing/costprice/?q=com",
    "/admin/django_tasks_database/dbtaskresult/",
    "/admin/django_tasks_database/dbtaskresult/?status__exact=FAILED",
]


def test_the_admin_lists_run_as_many_queries_at_two_sizes(admin_client, customer, fake_priced):
    grow(customer, 0, SMALL)
    tasks(SMALL)
    small = {url: queries(admin_client, url) for url in ADMIN_LISTS}
    grow(customer, SMALL, LARGE)
    tasks(LARGE)
    large = {url: queries(admin_client, url) for url in ADMIN_LISTS}
    grew = {url: (small[url], large[url]) for url in ADMIN_LISTS if large[url] > small[url]}
    assert not grew, grew
    assert max(large.values()) <= 12, large


def test_the_order_list_and_billing_documents_page_with_fixed_queries(signed_in, customer, provider_orders):
    provider_orders.register(customer, "listed.com")
    grow(customer, 0, SMALL)
    small = [queries(signed_in, reverse("orders")), queries(signed_in, reverse("billing:billing"))]
    grow(customer, SMALL, LARGE)
    large = [queries(signed_in, reverse("orders")), queries(signed_in, reverse("billing:billing"))]
    assert large <= small, (small, large)


def test_the_billing_documents_page_in_pages(signed_in, customer):
    grow(customer, 0, 30)
    first = signed_in.get(reverse("billing:billing")).content.decode()
    second = signed_in.get(reverse("billing:billing"), {"page": 2}).content.decode()
    assert first.count('class="doc-kind"') == 25 and 'rel="next"' in first
    assert second.count('class="doc-kind"') == 5 and 'rel="prev"' in second and 'rel="next"' not in second
    # Newest first: the last receipt made opens the first page.
    newest = Document.objects.filter(payment__customer=customer).order_by("-issued_at", "-number").first()
    assert newest is not None and f"/payments/receipts/{newest.number}/" in first
    # Past the end: said so, with the way back.
    beyond = signed_in.get(reverse("billing:billing"), {"page": 9}).content.decode()
    assert 'class="doc-kind"' not in beyond and reverse("billing:billing") in beyond


def test_a_signed_in_search_asks_only_for_the_names_shown(signed_in, customer, fake_priced):
    grow(customer, 0, SMALL)
    queries(signed_in, reverse("search"), data={"q": "warm"})  # the process's copy of the price book, read once
    small = queries(signed_in, reverse("search"), data={"q": "bluebird"}, headers={"HX-Request": "true"})
    grow(customer, SMALL, LARGE)
    large = queries(signed_in, reverse("search"), data={"q": "bluebird2"}, headers={"HX-Request": "true"})
    # The session, the user, the names they own among those shown.
    assert large <= small <= 3, (small, large)
