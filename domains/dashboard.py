"""The staff dashboard at the admin's index: the business at a glance.

- Revenue and margin by month, from the ledger's kept month totals (billing.ledger.books.ledger_month_figures), the last
12
  months.
- Renewals due within 30, 60 and 90 days, with the revenue they would bring at today's prices (the price book: each
  domain's shortest renewal term).
- What needs attention: every staff alert with its count (zeros too), and the failed auto-renewals not handled yet.
- Registrations by TLD over the last 12 months.
- The queues (tasks waiting, the oldest's age), the workers (last seen, last took a task) and the breakers, with an
  alert when no worker has taken a task for 5 minutes while tasks wait (storefront/observability/queue_state.py).

Every figure is one grouped query (or the price book's three), whatever the number of orders, payments or
registrations: the dashboard stays as fast at 100,000 rows as at ten (tests/domains/test_dashboard.py counts them).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import Case, Count, IntegerField, QuerySet, Value, When
from django.db.models.functions import Reverse, Right, StrIndex
from django.utils import timezone

from billing.ledger.books import LedgerFigures, ledger_month_figures
from billing.ledger.report import in_store_currency
from domains.alerts import Alert, staff_alerts_all
from domains.models import Order, Registration
from domains.orders.auto_renew import auto_renew_failures_open
from pricing.models import Operation
from pricing.money import Money
from pricing.quotes import PriceBook, price_book
from storefront.charts import WIDTH, BarChart, bar_chart
from storefront.models import WorkerBeat
from storefront.observability.metrics_scrape import breakers_open
from storefront.observability.queue_state import QueueState, queue_states, workers_seen, workers_stalled
from storefront.site.brand import brand_color, darker

MONTHS = 12
RENEWAL_WINDOWS = (30, 60, 90)
FAILED_SHOWN = 10
TLDS_SHOWN = 12
_RENEWABLE = (Order.Status.ACTIVE, Order.Status.EXPIRED)
# The drawing width of the charts in the half-width cards (the full-width one uses charts.WIDTH).
SMALL_CHART = 360


def tld_of(field: str) -> Right:
    """The TLD of a domain name column, in SQL (what follows its last dot), as `name.rpartition(".")[2]` does."""
    return Right(field, StrIndex(Reverse(field), Value(".")) - 1)


@dataclass(frozen=True)
class RenewalWindow:
    days: int
    domains: int
    expected: list[Money]  # one per currency the prices are in
    unpriced: int  # domains whose TLD has no renewal price here now


@dataclass(frozen=True)
class TldCount:
    tld: str
    count: int


@dataclass(frozen=True)
class Dashboard:
    currency: str
    months: list[LedgerFigures]  # the store's currency, oldest first, every month (zeros included)
    other_currencies: list[LedgerFigures]  # months in another currency with no rate kept: they cannot be converted
    revenue_chart: BarChart
    renewals: list[RenewalWindow]
    renewals_chart: BarChart
    alerts: list[Alert]
    failed_auto_renewals: list[Order]
    failed_auto_renewals_total: int
    registrations_by_tld: list[TldCount]
    tld_chart: BarChart
    queues: list[QueueState]
    workers: list[WorkerBeat]
    workers_stalled: bool
    breakers: dict[str, bool]  # service: open

    @property
    def open_alerts(self) -> list[Alert]:
        return [alert for alert in self.alerts if alert.count]


def _month_start(day: dt.date, back: int) -> dt.date:
    month = day.year * 12 + day.month - 1 - back
    return dt.date(month // 12, month % 12 + 1, 1)


def _aware(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def _months(now: dt.datetime) -> tuple[list[LedgerFigures], list[LedgerFigures]]:
    today = timezone.localdate(now)
    first = _month_start(today, MONTHS - 1)
    figures = ledger_month_figures(start=first, group_by=("month",), per_rate=True)
    # Each month in the store's currency, every payment converted at its own rate (as the revenue report does): a
    # month paid in euros by a dollar store is in its bars, not a row of its own beside them.
    ours: dict[dt.date, LedgerFigures] = {}
    unconverted: list[LedgerFigures] = []
    for month in sorted({f.month for f in figures if f.month is not None}):
        parts = [f for f in figures if f.month == month]
        converted, left_out = in_store_currency(parts)
        if converted is not None:
            ours[month] = dataclasses.replace(converted, month=month)
        unconverted += [f for f in parts if f.currency in left_out]
    zero = Decimal("0.00")
    months = []
    for back in range(MONTHS - 1, -1, -1):
        month = _month_start(today, back)
        months.append(
            ours.get(month)
            or LedgerFigures(settings.STORE_CURRENCY, month, None, None, zero, zero, zero, zero, zero, 0, 0)
        )
    return months, unconverted


def _shortest_renewal(book: PriceBook, tld: str) -> Money | None:
    for years in range(1, 11):
        quote = book.retail_price(tld=tld, operation=Operation.RENEW, years=years)
        if quote is not None:
            return quote.retail
    return None


def _renewals(now: dt.datetime) -> list[RenewalWindow]:
    """Domains (not refunded) expiring within each window, counted per TLD and window in one query, priced with one
    price book."""
    horizon = [now + dt.timedelta(days=days) for days in RENEWAL_WINDOWS]
    bucket = Case(
        *[When(expires_at__lt=end, then=Value(days)) for end, days in zip(horizon, RENEWAL_WINDOWS, strict=True)],
        output_field=IntegerField(),
    )
    rows = (
        Order.objects.filter(
            status__in=_RENEWABLE, refunded_at__isnull=True, expires_at__gte=now, expires_at__lt=horizon[-1]
        )
        .annotate(tld=tld_of("domain_name"), window=bucket)
        .values("tld", "window")
        .annotate(domains=Count("pk"))
        .order_by()
    )
    counted = [(row["tld"].lower(), row["window"], row["domains"]) for row in rows]
    book = price_book(tlds=sorted({tld for tld, _, _ in counted}))
    prices = {tld: _shortest_renewal(book, tld) for tld in {tld for tld, _, _ in counted}}
    windows = []
    for days in RENEWAL_WINDOWS:
        within = [(tld, n) for tld, window, n in counted if window <= days]
        totals: dict[str, Decimal] = {}
        unpriced = 0
        for tld, n in within:
            price = prices[tld]
            if price is None:
                unpriced += n
            else:
                totals[price.currency] = totals.get(price.currency, Decimal(0)) + price.amount * n
        expected = [Money(amount, currency) for currency, amount in sorted(totals.items())]
        windows.append(RenewalWindow(days, sum(n for _, n in within), expected, unpriced))
    return windows


def _registrations_by_tld(now: dt.datetime) -> list[TldCount]:
    since = _aware(_month_start(timezone.localdate(now), MONTHS - 1))
    rows = (
        Registration.objects.filter(status=Registration.Status.REGISTERED, created_at__gte=since)
        .annotate(tld=tld_of("domain_name"))
        .values("tld")
        .annotate(count=Count("pk"))
        .order_by("-count", "tld")[:TLDS_SHOWN]
    )
    return [TldCount(row["tld"].lower(), row["count"]) for row in rows]


def failed_auto_renewals() -> QuerySet[Order]:
    return auto_renew_failures_open().select_related("customer__user").order_by("-auto_renew_failed_at")


def dashboard(*, now: dt.datetime | None = None) -> Dashboard:
    now = now or timezone.now()
    color = brand_color()
    months, others = _months(now)
    renewals = _renewals(now)
    by_tld = _registrations_by_tld(now)
    queues = queue_states(now=now)
    alerts = staff_alerts_all(now=now, queues=queues)
    failed_total = next((alert.count for alert in alerts if alert.key == "auto_renew"), 0)
    failed = list(failed_auto_renewals()[:FAILED_SHOWN]) if failed_total else []
    revenue_chart = bar_chart(
        title=f"Net revenue and margin by month ({settings.STORE_CURRENCY})",
        labels=[f"{figures.month:%b %y}" for figures in months if figures.month],
        series=[
            ("Net revenue", color, [figures.net for figures in months]),
            ("Margin", darker(darker(color)), [figures.margin for figures in months]),
        ],
    )
    renewals_chart = bar_chart(
        title="Domains due for renewal",
        labels=[f"{window.days} days" for window in renewals],
        series=[("Domains", color, [Decimal(window.domains) for window in renewals])],
        width=SMALL_CHART,
    )
    tld_chart = bar_chart(
        title=f"Registrations by TLD, last {MONTHS} months",
        labels=[f".{row.tld}" for row in by_tld],
        series=[("Registrations", color, [Decimal(row.count) for row in by_tld])],
        width=SMALL_CHART if len(by_tld) <= 6 else WIDTH,
    )
    return Dashboard(
        currency=settings.STORE_CURRENCY,
        months=months,
        other_currencies=others,
        revenue_chart=revenue_chart,
        renewals=renewals,
        renewals_chart=renewals_chart,
        alerts=alerts,
        failed_auto_renewals=failed,
        failed_auto_renewals_total=failed_total,
        registrations_by_tld=by_tld,
        tld_chart=tld_chart,
        queues=queues,
        workers=workers_seen(),
        workers_stalled=workers_stalled(now=now, queues=queues),
        breakers=dict(sorted(breakers_open().items())),
    )
