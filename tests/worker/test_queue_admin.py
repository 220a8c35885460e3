"""Staff see the queue in the admin (pending, failed with its error) and can retry a failed task; the admin
index shows what needs attention."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from domains.checkout.emails import checkout_email_queue
from domains.checkout.registrations import unknown_limit
from domains.models import CustomerSync, Registration
from storefront.models import OutgoingEmail
from storefront.queues import QUEUES
from storefront.tasks import send_due_emails
from tests.worker.jobs import Mailbox, deliver

pytestmark = pytest.mark.django_db(transaction=True)
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
QUEUE = "/admin/django_tasks_database/dbtaskresult/"


def run_worker() -> None:
    call_command("run_worker", "--batch", "--no-startup-delay", "-v", "0")


@override_settings(TASKS=DATABASE_TASKS)
def test_a_failed_task_shows_its_error_and_can_be_retried(admin_client):
    Mailbox.broken = True
    deliver.enqueue(to="ada@example.org")
    page = admin_client.get(QUEUE).content.decode()
    assert "Ready" in page  # pending, before a worker ran it

    run_worker()
    failed = DBTaskResult.objects.get()
    assert failed.status == "FAILED"
    page = admin_client.get(QUEUE + "?status__exact=FAILED").content.decode()
    assert "mail relay refused the message for ada@example.org" in page

    Mailbox.broken = False
    response = admin_client.post(QUEUE, {"action": "retry", "_selected_action": [str(failed.pk)]}, follow=True)
    assert "1 task(s) enqueued again." in response.content.decode()
    run_worker()
    retried = DBTaskResult.objects.exclude(pk=failed.pk).get()
    assert (retried.status, retried.return_value) == ("SUCCESSFUL", "ada@example.org")


def test_the_admin_index_lists_what_needs_attention(admin_client, offline_customer):
    old = Registration.objects.create(
        customer=offline_customer,
        domain_name="stuck.com",
        duration=1,
        status=Registration.Status.UNKNOWN,
        checkout_id=uuid.uuid4(),
    )
    Registration.objects.filter(pk=old.pk).update(created_at=timezone.now() - unknown_limit() - dt.timedelta(hours=1))
    CustomerSync.objects.create(customer=offline_customer, failures=3, last_error="Unavailable")

    page = admin_client.get("/admin/").content.decode()

    assert "1 registration(s) still unconfirmed past the limit" in page
    assert "1 customer(s) whose order sync failed last time" in page
    assert "repeated outage" in page


def test_staff_alerts_are_mailed_to_admins(offline_customer, mailoutbox):
    from domains.tasks import send_staff_alerts

    CustomerSync.objects.create(customer=offline_customer, failures=1, last_error="RateLimited")
    with override_settings(ADMINS=[("Ops", "ops@example.org")]):
        send_staff_alerts.enqueue()
    [message] = mailoutbox
    assert message.to == ["ops@example.org"]
    assert "1 customer(s) whose order sync failed last time" in message.body


def test_a_quiet_day_sends_no_alert(mailoutbox):
    from domains.tasks import send_staff_alerts

    with override_settings(ADMINS=[("Ops", "ops@example.org")]):
        send_staff_alerts.enqueue()
    assert mailoutbox == []


@override_settings(TASKS=DATABASE_TASKS)
def test_a_failed_email_is_retried_later_with_backoff(offline_customer, mail_server, mailoutbox):
    checkout_id = uuid.uuid4()
    Registration.objects.create(
        customer=offline_customer,
        domain_name="backoff.com",
        duration=1,
        status=Registration.Status.REGISTERED,
        checkout_id=checkout_id,
    )
    mail_server.down = True
    before = timezone.now()
    checkout_email_queue(checkout_id=checkout_id)  # committed: its send task is queued for the worker
    run_worker()

    failed = DBTaskResult.objects.get(status="FAILED")
    assert failed.exception_class_path.endswith("SMTPServerDisconnected")
    email = OutgoingEmail.objects.get()
    assert email.attempts == 1 and email.sent_at is None
    assert email.send_after >= before + dt.timedelta(seconds=60)  # not before its delay
    assert mailoutbox == []

    mail_server.down = False
    send_due_emails.enqueue()
    run_worker()
    assert mailoutbox == []  # its wait is not over
    OutgoingEmail.objects.filter(pk=email.pk).update(send_after=timezone.now())  # its time has come
    send_due_emails.enqueue()
    run_worker()
    assert len(mailoutbox) == 1
    assert OutgoingEmail.objects.get().sent_at is not None
