"""Checkout emails go through the worker: sent only once the mail server accepted them, retried after."""

from __future__ import annotations

import uuid

import pytest
from django.core import mail

from domains.checkout.emails import queue_checkout_confirmation
from domains.checkout.tasks import send_checkout_email, send_pending_checkout_emails
from domains.models import Registration

pytestmark = pytest.mark.django_db


def placed(customer, checkout_id, name, status, **fields) -> Registration:
    return Registration.objects.create(
        customer=customer, domain_name=name, duration=1, status=status, checkout_id=checkout_id, **fields
    )


def test_a_failing_mail_server_leaves_the_email_queued_and_it_goes_out_after_recovery(offline_customer, mail_server):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "kept-queued.com", Registration.Status.REGISTERED)
    mail_server.down = True

    result = send_checkout_email.enqueue(checkout_id=str(checkout_id))

    assert result.status == "FAILED"
    assert "SMTPServerDisconnected" in result.errors[0].exception_class_path
    assert mail.outbox == []
    assert Registration.objects.get(checkout_id=checkout_id).emailed_at is None

    send_pending_checkout_emails.enqueue()  # the server is still down: still nothing, still queued
    assert mail.outbox == []

    mail_server.down = False
    send_pending_checkout_emails.enqueue()
    send_pending_checkout_emails.enqueue()  # a second sweep finds nothing left to say

    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [offline_customer.email]
    assert "- kept-queued.com (1 year): Registered." in mail.outbox[0].body
    assert Registration.objects.get(checkout_id=checkout_id).emailed_at is not None


def test_the_checkout_hands_the_email_to_the_worker_once(offline_customer, django_capture_on_commit_callbacks):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "once.com", Registration.Status.REGISTERED)
    with django_capture_on_commit_callbacks(execute=True):
        assert queue_checkout_confirmation(customer=offline_customer, checkout_id=checkout_id)
    with django_capture_on_commit_callbacks(execute=True):
        queue_checkout_confirmation(customer=offline_customer, checkout_id=checkout_id)
    send_checkout_email.enqueue(checkout_id=str(checkout_id))  # a retry of a sent email is a no-op
    assert len(mail.outbox) == 1


def test_an_unconfirmed_line_is_not_reported_until_it_settles_then_gets_a_follow_up(offline_customer):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "settled.com", Registration.Status.REGISTERED)
    lost = placed(offline_customer, checkout_id, "lost-answer.com", Registration.Status.UNKNOWN)

    send_checkout_email.enqueue(checkout_id=str(checkout_id))

    first = mail.outbox[0]
    assert "settled.com (1 year): Registered." in first.body
    assert "lost-answer.com (1 year)" not in first.body  # no outcome claimed for it
    assert "Still being confirmed with the registry: lost-answer.com" in first.body
    assert "please do not order it again" in first.body
    assert "1 registered, 1 still being confirmed" in first.subject

    send_pending_checkout_emails.enqueue()
    assert len(mail.outbox) == 1  # nothing new while it is unknown

    Registration.objects.filter(pk=lost.pk).update(status=Registration.Status.REGISTERED)
    send_pending_checkout_emails.enqueue()

    assert len(mail.outbox) == 2
    follow_up = mail.outbox[1]
    assert follow_up.subject.startswith("Update on your order")
    assert "lost-answer.com (1 year): Registered." in follow_up.body
    assert "settled.com" not in follow_up.body


def test_nothing_is_sent_while_a_line_is_still_being_placed(offline_customer):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "done.com", Registration.Status.REGISTERED)
    placed(offline_customer, checkout_id, "in-flight.com", Registration.Status.PENDING)
    send_checkout_email.enqueue(checkout_id=str(checkout_id))
    send_pending_checkout_emails.enqueue()
    assert mail.outbox == []
