"""Checkout emails go through the outbox: queued once per news, sent by the worker, retried after a failure."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from domains.checkout.emails import checkout_email_queue
from domains.checkout.tasks import send_pending_checkout_emails
from domains.models import Registration
from storefront.models import OutgoingEmail
from storefront.tasks import send_due_emails

pytestmark = pytest.mark.django_db


def placed(customer, checkout_id, name, status, **fields) -> Registration:
    return Registration.objects.create(
        customer=customer, domain_name=name, duration=1, status=status, checkout_id=checkout_id, **fields
    )


def test_a_failing_mail_server_leaves_the_email_queued_and_it_goes_out_after_recovery(offline_customer, mail_server):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "kept-queued.com", Registration.Status.REGISTERED)
    mail_server.down = True

    assert checkout_email_queue(checkout_id=checkout_id) == 1  # queued, and its send fails at once

    [queued] = OutgoingEmail.objects.all()
    assert queued.attempts == 1 and "SMTPServerDisconnected" in queued.last_error
    assert mail.outbox == []
    assert checkout_email_queue(checkout_id=checkout_id) == 0  # told (queued): nothing new to queue
    send_pending_checkout_emails.enqueue()
    assert OutgoingEmail.objects.count() == 1

    later = timezone.now() + dt.timedelta(minutes=3)
    with time_machine.travel(later):
        send_due_emails.enqueue()  # the server is still down: still nothing, still queued
    assert mail.outbox == []

    mail_server.down = False
    with time_machine.travel(later + dt.timedelta(minutes=5)):
        send_due_emails.enqueue()
        send_due_emails.enqueue()  # a second sweep finds nothing left to send

    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [offline_customer.email]
    assert "- kept-queued.com (1 year): Registered." in mail.outbox[0].body
    assert Registration.objects.get(checkout_id=checkout_id).emailed_at is not None


def test_the_checkout_queues_its_email_once(offline_customer):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "once.com", Registration.Status.REGISTERED)
    assert checkout_email_queue(checkout_id=checkout_id) == 1
    assert checkout_email_queue(checkout_id=checkout_id) == 0  # the page polled again, the worker finished too
    send_pending_checkout_emails.enqueue()
    send_due_emails.enqueue()  # a sweep of the outbox sends nothing twice
    assert len(mail.outbox) == 1


def test_an_unconfirmed_line_is_not_reported_until_it_settles_then_gets_a_follow_up(offline_customer):
    checkout_id = uuid.uuid4()
    placed(offline_customer, checkout_id, "settled.com", Registration.Status.REGISTERED)
    lost = placed(offline_customer, checkout_id, "lost-answer.com", Registration.Status.UNKNOWN)

    checkout_email_queue(checkout_id=checkout_id)

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
    assert checkout_email_queue(checkout_id=checkout_id) == 0
    send_pending_checkout_emails.enqueue()
    assert mail.outbox == [] and not OutgoingEmail.objects.exists()
