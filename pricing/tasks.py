"""The pricing app's background tasks: the daily refresh of the cost table and of the currency rates (scheduled
below).

A failed refresh keeps the last table pricing the store, so nothing breaks for customers: staff are mailed
(ADMINS) so that prices do not silently go stale. Rules that the new costs put below cost are mailed too.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django_tasks import task

from pricing.models import Currency
from pricing.rate_feed import FeedError, rates_update, stale_rates
from pricing.sync import prices_sync
from storefront.background.outbox import email_queue_admins
from storefront.background.scheduler import job_schedule
from storefront.queues import BULK

logger = logging.getLogger(__name__)


@task(queue_name=BULK)
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


@task(queue_name=BULK)
def currency_rates_refresh() -> str:
    """Update the feed's currencies from CURRENCY_FEED_URL (when set); tell staff once a rate is going stale."""
    if not settings.CURRENCY_FEED_URL:
        return "no rate feed set"
    try:
        result = rates_update()
        summary = f"updated {', '.join(result.updated) or 'nothing'}"
        if result.missing:
            summary += f"; not in the feed: {', '.join(result.missing)}"
    except FeedError as err:
        # The last rates keep pricing; a failure is only news to staff once a rate gets old (below).
        logger.warning("currency rate feed failed: %s", err)
        summary = f"feed failed: {err}"
    stale = stale_rates()
    if stale:
        hours = settings.CURRENCY_RATE_STALE_HOURS
        lines = [
            f"{c.code}: 1 {settings.STORE_CURRENCY} = {c.rate} {c.code}, set {c.rate_set_at or 'never'}" for c in stale
        ]
        admin = settings.SITE_URL + reverse("admin:pricing_currency_changelist")
        body = "\n".join(
            [
                f"These rates have not been updated by the feed for more than {hours} hours ({summary}):",
                *lines,
                "They keep pricing the store until the feed works again; set them by hand (and untick 'from the "
                f"feed') if they are wrong. Currencies: {admin}",
            ]
        )
        email_queue_admins("Currency rates are stale", body, key=f"currency-stale:{timezone.now():%Y-%m-%dT%H}")
        Currency.objects.filter(pk__in=[c.pk for c in stale]).update(stale_alerted_at=timezone.now())
    return summary


# The ECB publishes around 16:00 CET on working days: read after it, and once more in the morning.
job_schedule("currency-rates", "35 15,6 * * *", currency_rates_refresh)
