"""What staff must look at: counted for the admin index banner and mailed to ADMINS by the worker."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db.models import Count, Q, QuerySet, Value
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Customer
from billing.alerts import authorisations_expiring
from billing.models import Dispute, Payment
from billing.payments.services import payments_needing_attention
from domains.checkout.registrations import registrations_needing_attention
from domains.models import CustomerSync
from domains.orders.auto_renew import auto_renew_failures_open
from domains.orders.payment_marks import orders_refunded
from reseller_webhooks.models import Endpoint
from storefront.background.outbox import email_queue_admins
from storefront.models import OutgoingEmail
from storefront.observability.queue_state import STALLED_AFTER, QueueState, queue_states, workers_stalled

# A signup younger than this may still be completing; older and still unlinked, it needs staff.
_SIGNUP_SETTLE = dt.timedelta(minutes=10)
# Consecutive failed syncs of one customer, all because the provider was down, that count as an outage.
OUTAGE_FAILURES = 3
_FAILED_TASKS_WINDOW = dt.timedelta(days=1)
# Refunded domains stay listed for staff (Orders, "refunded at"); the banner and the mail mention the recent ones.
_REFUNDED_WINDOW = dt.timedelta(days=7)


@dataclass(frozen=True)
class Alert:
    key: str
    count: int
    text: str
    admin_path: str


def staff_alerts(*, now: dt.datetime | None = None) -> list[Alert]:
    """Every alert that currently has something in it."""
    return [alert for alert in staff_alerts_all(now=now) if alert.count]


def staff_alerts_all(*, now: dt.datetime | None = None, queues: list[QueueState] | None = None) -> list[Alert]:
    """Every alert the store knows, empty ones too (the dashboard shows the zeros: all clear is news as well). Every
    count in one statement (`_counts`); `queues`: the queue states when the caller has read them already."""
    now = now or timezone.now()
    counted = _counts(
        {
            "registrations": registrations_needing_attention(),
            "signups": Customer.objects.filter(customer_id__isnull=True, created_at__lt=now - _SIGNUP_SETTLE).filter(
                Q(signup_conflict_at__isnull=False)
                | Q(user__is_active=False)
                | Q(user_id__in=EmailAddress.objects.filter(verified=True).values("user_id"))
            ),
            "syncs": CustomerSync.objects.filter(failures__gt=0),
            "outage": CustomerSync.objects.filter(failures__gte=OUTAGE_FAILURES, last_error="Unavailable"),
            "payments": payments_needing_attention(),
            "authorisations": authorisations_expiring(now=now),
            "unpaid": Payment.objects.filter(status=Payment.Status.UNPAID),
            "disputes": Dispute.objects.filter(status__in=Dispute.OPEN_STATUSES),
            "refunded": orders_refunded().filter(refunded_at__gt=now - _REFUNDED_WINDOW),
            "auto_renew": auto_renew_failures_open(),
            "emails": OutgoingEmail.objects.filter(sent_at__isnull=True, dropped_at__isnull=True, attempts__gte=3),
            "tasks": DBTaskResult.objects.failed().filter(finished_at__gt=now - _FAILED_TASKS_WINDOW),
            "webhooks": Endpoint.objects.filter(active=False, disabled_at__isnull=False),
        }
    )
    return [
        Alert(
            "registrations",
            counted["registrations"],
            "registration(s) still unconfirmed past the limit: check them with the provider",
            reverse("admin:domains_registration_changelist") + "?status__exact=unknown",
        ),
        Alert(
            "signups",
            counted["signups"],
            "confirmed customer(s) not linked to the provider (the worker keeps trying; a conflict needs you)",
            reverse("admin:accounts_customer_changelist") + "?provider_link=missing",
        ),
        Alert(
            "syncs",
            counted["syncs"],
            "customer(s) whose order sync failed last time",
            reverse("admin:accounts_customer_changelist"),
        ),
        Alert(
            "outage",
            counted["outage"],
            f"customer(s) whose last {OUTAGE_FAILURES}+ syncs found the provider unavailable (repeated outage)",
            reverse("admin:accounts_customer_changelist"),
        ),
        Alert(
            "payments",
            counted["payments"],
            "payment(s) need attention (a line unknown, a capture not confirmed, an amount not the quoted one)",
            reverse("admin:billing_payment_changelist") + "?attention=yes",
        ),
        Alert(
            "authorisations",
            counted["authorisations"],
            f"payment authorisation(s) within {settings.PAYMENT_CAPTURE_ALERT_HOURS} hours of their capture "
            "deadline: Stripe releases them then",
            reverse("admin:billing_payment_changelist") + "?attention=expiring",
        ),
        Alert(
            "unpaid",
            counted["unpaid"],
            "registered domain payment(s) not paid (the card hold lapsed): being collected; write off or collect",
            reverse("admin:billing_payment_changelist") + "?attention=unpaid",
        ),
        Alert(
            "disputes",
            counted["disputes"],
            "payment dispute(s) open: answer them in Stripe's Dashboard before the evidence is due",
            reverse("admin:billing_payment_changelist") + "?attention=disputed",
        ),
        Alert(
            "refunded",
            counted["refunded"],
            "domain(s) refunded in the last week, still registered at the provider (it has no delete call yet)",
            reverse("admin:domains_order_changelist") + "?refunded_at__isempty=0",
        ),
        Alert(
            "auto_renew",
            counted["auto_renew"],
            "auto-renewal(s) failed and not handled yet (customers emailed, switched back to reminders): contact "
            "them, then mark each handled",
            reverse("admin:domains_order_changelist") + "?auto_renew_failure=open",
        ),
        Alert(
            "emails",
            counted["emails"],
            "email(s) the mail server refused three times or more (still retried)",
            reverse("admin:storefront_outgoingemail_changelist") + "?sent_at__isempty=1",
        ),
        Alert(
            "webhooks",
            counted["webhooks"],
            "webhook endpoint(s) switched off after a day of failed deliveries: tick Active once they answer",
            reverse("admin:reseller_webhooks_endpoint_changelist") + "?active__exact=0",
        ),
        _workers_alert(now, queues),
        Alert(
            "tasks",
            counted["tasks"],
            "background task(s) failed in the last day",
            reverse("admin:django_tasks_database_dbtaskresult_changelist") + "?status__exact=FAILED",
        ),
    ]


def _counts(querysets: dict[str, QuerySet[Any]]) -> dict[str, int]:
    """Each queryset's row count, all in one statement (a UNION ALL of one COUNT per key, each on its own indexes as
    a lone COUNT would be): a dozen alerts cost one round trip, not twelve."""
    counts = [
        rows.order_by().annotate(alert=Value(key)).values("alert").annotate(rows=Count("pk")).values("alert", "rows")
        for key, rows in querysets.items()
    ]
    found = {row["alert"]: row["rows"] for row in counts[0].union(*counts[1:], all=True)}
    return {key: found.get(key, 0) for key in querysets}


def _workers_alert(now: dt.datetime, queues: list[QueueState] | None) -> Alert:
    queues = queue_states(now=now) if queues is None else queues
    stalled = workers_stalled(now=now, queues=queues)
    return Alert(
        "workers",
        sum(queue.waiting for queue in queues) if stalled else 0,
        f"task(s) waiting while no worker has taken one for {STALLED_AFTER.seconds // 60} minutes: the workers are "
        "down or stuck (restart them; see the dashboard's Queues and workers)",
        reverse("admin:django_tasks_database_dbtaskresult_changelist") + "?status__exact=READY",
    )


def staff_alerts_send() -> int:
    """Mail the current alerts to ADMINS; nothing when all is well or nobody is configured. Alerts sent."""
    alerts = staff_alerts()
    if not alerts or not settings.ADMINS:
        return 0
    lines = [f"- {alert.count} {alert.text}: {settings.SITE_URL}{alert.admin_path}" for alert in alerts]
    email_queue_admins(
        f"{sum(a.count for a in alerts)} item(s) need attention",
        "The storefront needs a look:\n\n" + "\n".join(lines) + "\n",
        key=f"staff-alerts:{timezone.now():%Y-%m-%dT%H}",
    )
    return len(alerts)
