"""The billing app's background tasks (django-tasks; run by `manage.py db_worker`): the customer's receipts and
credit notes by email, and the staff alert about authorisations close to lapsing. Each is idempotent: a document
is mailed once (`emailed_at`), a payment alerted once (`expiry_alerted_at`)."""

from __future__ import annotations

from django_tasks import task

from billing.alerts import authorisation_expiry_alerts_send
from billing.emails import credit_note_email_send, documents_not_emailed, receipt_email_send
from storefront.background import retry_later
from storefront.scheduler import job_schedule


@task()
def send_receipt_email(*, receipt_id: int, attempt: int = 1) -> bool:
    """The customer's copy of one receipt (enqueued when it is issued, after capture)."""
    try:
        return receipt_email_send(receipt_id=receipt_id)
    except Exception:
        retry_later(send_receipt_email, attempt=attempt, kwargs={"receipt_id": receipt_id})
        raise


@task()
def send_credit_note_email(*, credit_note_id: int, attempt: int = 1) -> bool:
    """The customer's copy of one credit note (enqueued when staff refund a line)."""
    try:
        return credit_note_email_send(credit_note_id=credit_note_id)
    except Exception:
        retry_later(send_credit_note_email, attempt=attempt, kwargs={"credit_note_id": credit_note_id})
        raise


@task()
def send_pending_billing_emails() -> int:
    """Enqueue the email of every recent receipt or credit note not mailed yet (a failed send, a lost enqueue).
    Emails enqueued."""
    receipts, notes = documents_not_emailed()
    for receipt_id in receipts:
        send_receipt_email.enqueue(receipt_id=receipt_id)
    for credit_note_id in notes:
        send_credit_note_email.enqueue(credit_note_id=credit_note_id)
    return len(receipts) + len(notes)


@task()
def alert_expiring_authorisations() -> int:
    """Mail staff, once per payment, about authorisations still not captured after PAYMENT_AUTHORISATION_ALERT_DAYS."""
    return authorisation_expiry_alerts_send()


# Receipts and credit notes whose email failed or whose enqueue was lost.
job_schedule("billing-emails", "*/5 * * * *", send_pending_billing_emails)
# Hourly: an authorisation lapses days after it was made; staff hear of it once, before it does.
job_schedule("authorisation-expiry", "37 * * * *", alert_expiring_authorisations)
