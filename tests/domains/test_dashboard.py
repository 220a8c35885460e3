"""The staff dashboard at the admin's index (domains/dashboard.py): revenue and margin by month from the ledger,
renewals due with the revenue they would bring, what needs attention, failed auto-renewals (handled by a logged staff
action), registrations by TLD, the queues, workers and breakers; charts as SVG with a table each; the same number of
queries at ten rows as at many."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Activity
from billing.ledger.books import ledger_month_totals_add
from billing.models import LedgerEntry, Payment, PaymentLine, SaleCause
from domains.dashboard import dashboard
from domains.models import Order
from pricing.models import Operation
from pricing.quotes import retail_price
from storefront.models import WorkerBeat
from storefront.resilience.breaker import CircuitBreaker
from tests.factories import CustomerFactory, OrderFactory, RegistrationFactory

pytestmark = pytest.mark.django_db


def expiring(days: float, name: str, **fields) -> Order:
    return OrderFactory.create(domain_name=name, expires_at=timezone.now() + dt.timedelta(days=days), **fields)


def book(
    amount: str,
    cost: str | None,
    *,
    kind: str = LedgerEntry.Kind.CAPTURE,
    tld: str = "com",
    currency: str = "USD",
    rate: Decimal | None = Decimal(1),
    tax: str = "0",
) -> None:
    customer = CustomerFactory.create()
    payment = Payment.objects.create(
        customer=customer, checkout_id=uuid.uuid4(), currency=currency, amount=Decimal("100"), status="captured",
        amount_authorised=Decimal("100"), amount_captured=Decimal("100"), rate=rate,
    )  # fmt: skip
    line = PaymentLine.objects.create(
        payment=payment, position=0, reference=f"x.{tld}", description="x", amount=Decimal("100"), tld=tld
    )
    entry = LedgerEntry.objects.create(
        kind=kind, cause=SaleCause.REGISTRATION, amount=Decimal(amount), currency=currency, tld=tld, payment=payment,
        line=line, source_id=f"ch_{uuid.uuid4().hex}", occurred_at=timezone.now(),
        cost=Decimal(cost) if cost is not None else None, tax=Decimal(tax),
    )  # fmt: skip
    ledger_month_totals_add([entry], rate=rate)  # as billing.ledger.books's booking does


def renew_price(tld: str) -> Decimal:
    quote = retail_price(tld=tld, operation=Operation.RENEW, years=1)
    assert quote is not None
    return quote.retail.amount


def test_the_figures(fake_priced):
    expiring(10, "soon1.com")
    expiring(12, "soon2.com")
    expiring(45, "later.net")
    expiring(80, "last.com")
    expiring(10, "refunded.com", refunded_at=timezone.now())  # not renewed here
    expiring(200, "far.com")
    book("100.00", "80.00")
    book("-20.00", None, kind=LedgerEntry.Kind.REFUND)
    RegistrationFactory.create_batch(3)  # .com
    RegistrationFactory(domain_name="one.net")
    RegistrationFactory(domain_name="failed.org", status="failed")

    figures = dashboard()

    com, net = renew_price("com"), renew_price("net")
    assert [(w.days, w.domains, [m.amount for m in w.expected]) for w in figures.renewals] == [
        (30, 2, [2 * com]),
        (60, 3, [2 * com + net]),
        (90, 4, [3 * com + net]),
    ]
    this_month = figures.months[-1]
    assert (this_month.captured, this_month.refunded, this_month.net, this_month.margin) == (
        Decimal("100.00"), Decimal("20.00"), Decimal("80.00"), Decimal("0.00"),
    )  # fmt: skip
    assert len(figures.months) == 12 and all(m.net == 0 for m in figures.months[:-1])
    assert [(row.tld, row.count) for row in figures.registrations_by_tld] == [("com", 3), ("net", 1)]
    heights = [bar.height for bar in figures.revenue_chart.groups[-1].bars]
    assert heights[0] > 0 and heights[1] == 0  # this month's net drawn, its margin nothing


def test_another_currencys_month_is_converted_into_the_stores_bars(settings):
    assert settings.STORE_CURRENCY == "USD"
    book("100.00", "80.00")
    book("46.00", "36.80", currency="EUR", rate=Decimal("0.92"))  # $50.00 at its payment's rate, cost $40.00
    book("10.00", None, currency="GBP", rate=None)  # no rate kept: cannot be converted, listed on its own
    figures = dashboard()
    this_month = figures.months[-1]
    assert (this_month.currency, this_month.net, this_month.margin) == ("USD", Decimal("150.00"), Decimal("30.00"))
    assert [(row.currency, row.net) for row in figures.other_currencies] == [("GBP", Decimal("10.00"))]


def test_a_negative_margin_is_drawn_below_the_line(admin_client):
    book("100.00", "90.00", tax="20.00")  # $100 with $20 VAT in it and $90 cost: $10 lost
    chart = dashboard().revenue_chart
    net, margin = chart.groups[-1].bars
    assert margin.value == Decimal("-10.00")
    assert margin.height > 0 and margin.y == chart.baseline  # drawn down from the zero line
    assert net.y + net.height == chart.baseline and chart.baseline < chart.height - 34
    html = admin_client.get("/admin/").content.decode()
    assert "margin is net less the tax in it (collected for the state) less our cost" in html


def test_the_index_draws_each_chart_with_its_table_in_the_stores_colour(admin_client, fake_priced, settings):
    settings.STORE_PRIMARY_COLOR = "#0b6e4f"
    expiring(10, "soon.com")
    book("50.00", "40.00")
    RegistrationFactory()
    html = admin_client.get("/admin/").content.decode()
    for table in ("revenue-table", "renewals-table", "tld-table"):
        assert f'id="{table}"' in html
    assert html.count('<svg class="bar-chart"') == 3 and 'aria-hidden="true"' in html
    assert 'fill="#0b6e4f"' in html
    assert "<script" not in html.split('id="dashboard"')[1].split("</div>")[0]


def test_a_failed_auto_renewal_leads_to_its_customer_until_staff_mark_it_handled(admin_client, admin_user):
    order = OrderFactory(
        domain_name="lapsed.com", auto_renew_failed_at=timezone.now(), auto_renew_failure="card_declined"
    )
    html = admin_client.get("/admin/").content.decode()
    assert f'href="/admin/domains/order/{order.pk}/change/">lapsed.com</a>' in html
    assert f'href="/admin/accounts/customer/{order.customer.pk}/change/">{order.customer.user.email}</a>' in html
    assert "1 auto-renewal(s) failed and not handled yet" in html

    response = admin_client.post(
        "/admin/domains/order/", {"action": "handle_auto_renew_failures", "_selected_action": [order.pk]}
    )
    assert response.status_code == 302
    row = Activity.objects.get(action="alert_resolved")
    assert (row.actor, row.actor_user_id, row.order_id, row.detail["alert"]) == (
        Activity.Actor.STAFF, admin_user.pk, order.order_id, "auto_renew",
    )  # fmt: skip
    html = admin_client.get("/admin/").content.decode()
    assert "lapsed.com" not in html and "failed and not handled" not in html
    # Failing again later brings it back.
    Order.objects.filter(pk=order.pk).update(auto_renew_failed_at=timezone.now() + dt.timedelta(seconds=1))
    assert "1 auto-renewal(s) failed and not handled yet" in admin_client.get("/admin/").content.decode()


def test_all_clear_says_so_and_warns_when_nobody_gets_the_emails(admin_client, settings):
    settings.ADMINS = []
    html = admin_client.get("/admin/").content.decode()
    assert "Nothing needs attention" in html and "ADMINS is empty" in html


def _seed(size: int) -> None:
    for n in range(size):
        expiring(5 + n % 80, f"d{size}x{n}.{('com', 'net', 'org')[n % 3]}")
        OrderFactory(domain_name=f"f{size}x{n}.com", auto_renew_failed_at=timezone.now(), auto_renew_failure="x")
        RegistrationFactory(domain_name=f"r{size}x{n}.{('com', 'net', 'org', 'io')[n % 4]}")
        book("10.00", "8.00", tld=("com", "net")[n % 2])


def _index_queries(client) -> int:
    client.get("/admin/")  # the first page of a session reads what later pages find cached (content types, site)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/admin/").status_code == 200
    return len(queries)


def test_the_index_asks_as_many_queries_at_five_rows_as_at_sixty(admin_client, fake_priced):
    _seed(5)
    small = _index_queries(admin_client)
    _seed(55)
    assert _index_queries(admin_client) == small


def _waiting_task(*, queue: str, minutes: float) -> None:
    DBTaskResult.objects.create(
        task_path="domains.orders.tasks.sync_orders",
        args_kwargs={"args": [], "kwargs": {}},
        backend_name="default",
        queue_name=queue,
        run_after=timezone.now() - dt.timedelta(minutes=minutes),
    )


def test_the_index_shows_the_queues_the_workers_and_the_breakers(admin_client):
    _waiting_task(queue="bulk", minutes=2)
    _waiting_task(queue="bulk", minutes=1)
    now = timezone.now()
    WorkerBeat.objects.create(
        worker_id="worker-one", queues="paid,default", started_at=now, seen_at=now, took_task_at=now
    )
    html = admin_client.get("/admin/").content.decode()
    queues = html[html.index('id="queues-table"') :]
    assert re.search(r">bulk</a></th><td>2</td><td>12\d s</td>", queues)
    assert re.search(r">paid</a></th><td>0</td><td>—</td>", queues)
    assert "paid,default" in html[html.index('id="workers-table"') :]
    assert "No worker has taken a task" not in html


def test_an_open_breaker_is_shown(admin_client, fake_gateway):
    breaker = CircuitBreaker(threshold=1, cooldown=30, name="provider main")
    breaker.failed()
    html = admin_client.get("/admin/").content.decode()
    breakers = html[html.index('id="breakers-table"') :]
    assert re.search(r"provider main</th><td><strong>open</strong>", breakers)
    breaker.succeeded()
    html = admin_client.get("/admin/").content.decode()
    assert re.search(r"provider main</th><td>closed", html[html.index('id="breakers-table"') :])


def test_staff_are_alerted_when_no_worker_has_taken_a_task_for_five_minutes_while_tasks_wait(admin_client):
    _waiting_task(queue="paid", minutes=6)
    now = timezone.now()
    WorkerBeat.objects.create(
        worker_id="stuck", queues="paid", started_at=now, seen_at=now, took_task_at=now - dt.timedelta(minutes=6)
    )
    html = admin_client.get("/admin/").content.decode()
    assert "No worker has taken a task for 5 minutes while tasks wait" in html
    assert "1 task(s) waiting while no worker has taken one for 5 minutes" in html
    WorkerBeat.objects.filter(pk="stuck").update(took_task_at=now - dt.timedelta(minutes=1))
    html = admin_client.get("/admin/").content.decode()
    assert "No worker has taken a task" not in html  # a worker is taking tasks: the queue is only busy


def test_the_dashboard_runs_at_most_ten_queries_and_the_index_page_fourteen(admin_client, fake_priced):
    _seed(5)
    with CaptureQueriesContext(connection) as queries:
        shown = dashboard()
    # Its figures: the kept ledger totals, the renewals, the price book (2), registrations by TLD, every alert's count
    # in one statement, the queues, the failed auto-renewals listed, the workers.
    assert len(queries) <= 10, [query["sql"][:80] for query in queries]
    assert shown.failed_auto_renewals_total == 5 and sum(alert.count for alert in shown.alerts) >= 5
    # The page adds the session, the user, the two-factor check, the tax registration (once) and Django's recent
    # actions.
    assert _index_queries(admin_client) <= 14
