"""The outbox (storefront/background/outbox.py): an email exists exactly when its change does, goes out once, in its
thread's order, and is retried after a failure."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core import mail
from django.core.mail import EmailMessage
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from storefront.background.outbox import (
    email_queue,
    email_queue_admins,
    email_queue_rendered_when_sent,
    email_renderer_register,
)
from storefront.models import OutgoingEmail
from storefront.tasks import send_due_emails
from tests.worker.mailserver import FlakyServer

FLAKY = "tests.worker.mailserver.EmailBackend"


def message(subject: str, to: str = "ada@example.org") -> EmailMessage:
    return EmailMessage(subject, f"{subject}.", "shop@example.org", [to])


@pytest.fixture
def server_down():
    FlakyServer.down = True
    with override_settings(EMAIL_BACKEND=FLAKY):
        yield FlakyServer
    FlakyServer.down = False


@pytest.mark.django_db
def test_one_key_is_one_email_however_often_it_is_queued():
    assert email_queue(message("Your receipt 1"), key="receipt:1")
    assert not email_queue(message("Your receipt 1"), key="receipt:1")
    send_due_emails.enqueue()
    assert [m.subject for m in mail.outbox] == ["Your receipt 1"]


@pytest.mark.django_db
def test_a_thread_goes_out_in_order_and_a_failing_email_holds_the_ones_after_it(server_down):
    email_queue(message("Registered"), key="checkout:1", thread="checkout:a")
    server_down.down = False
    email_queue(message("Receipt"), key="receipt:1", thread="checkout:a")
    email_queue(message("Elsewhere"), key="other:1", thread="checkout:b")
    first = OutgoingEmail.objects.get(key="checkout:1")
    assert first.attempts == 1 and "SMTPServerDisconnected" in first.last_error
    # The first waits for its retry and the receipt after it waits too; another thread's goes out.
    send_due_emails.enqueue()
    assert [m.subject for m in mail.outbox] == ["Elsewhere"]

    with time_machine.travel(timezone.now() + dt.timedelta(minutes=3)):
        send_due_emails.enqueue()
    assert [m.subject for m in mail.outbox] == ["Elsewhere", "Registered", "Receipt"]


@pytest.mark.django_db(transaction=True)
def test_a_change_rolled_back_sends_nothing_and_a_committed_one_sends_after_commit():
    with pytest.raises(RuntimeError), transaction.atomic():
        email_queue(message("Credit note 1"), key="credit-note:1")
        raise RuntimeError("the refund's transaction failed")
    assert not OutgoingEmail.objects.exists() and mail.outbox == []

    with transaction.atomic():
        email_queue(message("Credit note 2"), key="credit-note:2")
        assert mail.outbox == []  # not before the change is committed
    assert [m.subject for m in mail.outbox] == ["Credit note 2"]


@pytest.mark.django_db
def test_an_email_made_when_sent_stores_no_body_and_is_dropped_when_there_is_nothing_to_say():
    calls = []

    def render(params):
        calls.append(params)
        return None if params["n"] == 2 else message(f"Link for {params['n']}")

    email_renderer_register("test_link", render)
    email_queue_rendered_when_sent(renderer="test_link", params={"n": 1}, to=["ada@example.org"])
    email_queue_rendered_when_sent(renderer="test_link", params={"n": 2}, to=["ada@example.org"])
    assert [m.subject for m in mail.outbox] == ["Link for 1"]
    assert all(email.body == "" and email.subject == "" for email in OutgoingEmail.objects.all())
    assert OutgoingEmail.objects.get(params={"n": 2}).dropped_at is not None


@pytest.mark.django_db
def test_staff_emails_need_admins():
    with override_settings(ADMINS=[]):
        assert not email_queue_admins("Alert", "Look.", key="alert:1")
    with override_settings(ADMINS=[("Ops", "ops@example.org")], EMAIL_SUBJECT_PREFIX="[Shop] "):
        assert email_queue_admins("Alert", "Look.", key="alert:2")
    [sent] = mail.outbox
    assert sent.to == ["ops@example.org"] and sent.subject == "[Shop] Alert"


@pytest.mark.django_db
def test_an_attachment_is_made_when_the_email_is_sent_and_a_failure_to_make_it_is_retried():
    from storefront.background.outbox import AttachedFile, EmailAttachment, email_attachment_register

    made: list[dict] = []

    def notes(params: dict) -> AttachedFile:
        made.append(params)
        if params.get("fail"):
            raise RuntimeError("the renderer failed")
        return AttachedFile(f"notes-{params['n']}.txt", b"hello", "text/plain")

    email_attachment_register("test_notes", notes)
    with pytest.raises(ValueError, match="no email attachment maker"):
        email_queue(message("Nothing"), key="nothing", attachments=[EmailAttachment("unknown")])

    email_queue(message("Notes"), key="notes", attachments=[EmailAttachment("test_notes", {"n": 7})])
    # Stored as what makes it (the worker makes it when it sends), not as the file.
    assert OutgoingEmail.objects.get(key="notes").attachments == [{"maker": "test_notes", "params": {"n": 7}}]
    send_due_emails.enqueue()
    assert made == [{"n": 7}]
    [sent] = mail.outbox
    assert [tuple(attached) for attached in sent.attachments] == [("notes-7.txt", "hello", "text/plain")]

    email_queue(message("Broken"), key="broken", attachments=[EmailAttachment("test_notes", {"fail": True})])
    send_due_emails.enqueue()
    broken = OutgoingEmail.objects.get(key="broken")
    # Never sent without what it promised: the send failed, is recorded, and waits for its retry.
    assert broken.sent_at is None and broken.attempts == 1 and "RuntimeError" in broken.last_error
    assert len(mail.outbox) == 1
