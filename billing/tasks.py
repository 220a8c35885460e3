"""The billing app's background tasks (django-tasks; run by `manage.py db_worker`): the customer's receipts and
credit notes by email, and the staff alert about authorisations close to lapsing. Each is idempotent: a document
is mailed once (`emailed_at`), a payment alerted once (`expiry_alerted_at`)."""

from __future__ import annotations

from django_tasks import task

from billing.alerts import authorisation_expiry_alerts_send
from billing.emails import document_email_send, documents_not_emailed
from storefront.background import retry_later
from storefront.scheduler import job_schedule


@task()
def send_document_email(*, document_id: int, attempt: int = 1) -> bool:
    """The customer's copy of one receipt or credit note (enqueued when it is issued)."""
    try:
        return document_email_send(document_id=document_id)
    except Exception:
        retry_later(send_document_email, attempt=attempt, kwargs={"document_id": document_id})
        raise


@task()
def send_pending_billing_emails() -> int:
    """Enqueue the email of every recent receipt or credit note not mailed yet (a failed send, a lost enqueue).
    Emails enqueued."""
    pending = documents_not_emailed()
    for document_id in pending:
        send_document_email.enqueue(document_id=document_id)
    return len(pending)


@task()
def alert_expiring_authorisations() -> int:
    """Mail staff, once per payment, about authorisations still not captured after PAYMENT_AUTHORISATION_ALERT_DAYS."""
    return authorisation_expiry_alerts_send()


# Receipts and credit notes whose email failed or whose enqueue was lost.
job_schedule("billing-emails", "*/5 * * * *", send_pending_billing_emails)
# Hourly: an authorisation lapses days after it was made; staff hear of it once, before it does.
job_schedule("authorisation-expiry", "37 * * * *", alert_expiring_authorisations)
