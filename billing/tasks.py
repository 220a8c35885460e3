"""The billing app's background tasks (django-tasks; run by `manage.py run_worker`): the staff alert about
authorisations close to lapsing (each payment alerted once: `expiry_alerted_at`). Receipts and credit notes are
emailed through the outbox (billing/emails.py)."""

from __future__ import annotations

from django_tasks import task

from billing.alerts import authorisation_expiry_alerts_send
from storefront.scheduler import job_schedule


@task()
def alert_expiring_authorisations() -> int:
    """Tell staff, once per payment, about authorisations still not captured after PAYMENT_AUTHORISATION_ALERT_DAYS."""
    return authorisation_expiry_alerts_send()


# Hourly: an authorisation lapses days after it was made; staff hear of it once, before it does.
job_schedule("authorisation-expiry", "37 * * * *", alert_expiring_authorisations)
