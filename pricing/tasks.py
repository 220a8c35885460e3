"""The pricing app's background task: the daily refresh of the cost table (scheduled daily, below).

A failed refresh keeps the last table pricing the store, so nothing breaks for customers: staff are mailed
(ADMINS) so that prices do not silently go stale. Rules that the new costs put below cost are mailed too.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django_tasks import task

from pricing.sync import prices_sync
from storefront.outbox import email_queue_admins
from storefront.scheduler import job_schedule

logger = logging.getLogger(__name__)


@task()
def sync_prices() -> str:
    """Refresh the cost table; mail ADMINS when it fails (or leaves rules below cost). Returns the summary."""
    try:
        result = prices_sync()
    except Exception as err:
        # A bug or the database: the task fails (staff see it in Task results), and staff are told at once.
        _mail(subject="Price sync failed", lines=[f"The price sync stopped with an error: {type(err).__name__}."])
        raise
    if not result.ok:
        _mail(subject="Price sync failed", lines=[result.message])
    elif result.warnings:
        _mail(subject="Price rules below cost after the price sync", lines=result.warnings)
    return result.message


def _mail(*, subject: str, lines: list[str]) -> None:
    admin = settings.SITE_URL + reverse("admin:pricing_pricesync_changelist")
    body = "\n\n".join(
        [*lines, "The last cost table keeps pricing the store until a sync succeeds.", f"Price syncs: {admin}"]
    )
    # The failure is recorded too (PriceSync, the task result): the email only tells staff sooner.
    email_queue_admins(subject, body, key=f"price-sync:{subject}:{timezone.now():%Y-%m-%dT%H:%M}")


# Daily, at a quiet hour: the provider changes its prices rarely, and a failure mails ADMINS.
job_schedule("price-sync", "23 4 * * *", sync_prices)
