"""The storefront's own background tasks: sending the outbox's emails (storefront/background/outbox.py), pruning expired
one-time claims (storefront/background/claims.py), pruning the provider call log
(storefront/observability/provider_calls.py)."""

from __future__ import annotations

from django_tasks import task

from storefront.background.claims import claims_prune
from storefront.background.outbox_send import outbox_send, outbox_send_due
from storefront.background.scheduler import job_schedule
from storefront.observability.provider_calls import provider_calls_prune
from storefront.queues import BULK, DEFAULT


@task(queue_name=DEFAULT)
def send_email(*, email_id: int) -> bool:
    """One queued email, as soon as the change it reports is committed (then the next ones of its thread)."""
    return outbox_send(email_id=email_id)


@task(queue_name=DEFAULT)
def send_due_emails() -> int:
    """Every email that is due: a lost enqueue, a failed attempt whose wait is over, a thread's next email."""
    return outbox_send_due()


@task(queue_name=BULK)
def prune_claims() -> int:
    """Remove the one-time claims that expired (each holds only while it lasts)."""
    return claims_prune()


@task(queue_name=BULK)
def prune_provider_calls() -> int:
    """Remove provider calls older than PROVIDER_CALL_LOG_DAYS (and the request ids kept for tasks as long)."""
    return provider_calls_prune()


job_schedule("send-emails", "* * * * *", send_due_emails)
job_schedule("prune-claims", "41 3 * * *", prune_claims)
job_schedule("prune-provider-calls", "53 3 * * *", prune_provider_calls)
