"""Password-reset emails are sent by the worker; the outbox holds the user's id, never the reset link."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from storefront.models import OutgoingEmail
from storefront.queues import QUEUES

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}})
def test_the_reset_email_waits_for_the_worker_and_the_queue_holds_no_link(client, offline_customer, mailoutbox):
    response = client.post("/accounts/password/reset/", {"email": offline_customer.email})
    assert response["Location"] == "/accounts/password/reset/done/"
    assert mailoutbox == []  # the page did not wait on the mail server

    # Queued with the user's id: neither the outbox nor the task queue holds the link.
    [email] = OutgoingEmail.objects.all()
    assert email.renderer == "password_reset" and email.params["user_id"] == offline_customer.user.pk
    assert "/reset/" not in json.dumps(email.params) + email.body + email.html
    queued = DBTaskResult.objects.get()
    assert queued.args_kwargs["kwargs"] == {"email_id": email.pk}

    call_command("run_worker", "--batch", "--no-startup-delay", "-v", "0")
    [message] = mailoutbox
    # The worker has no request: the link is on SITE_URL.
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", message.body).group(1)
    assert client.get(link).status_code == 302  # a working link: allauth swaps the key for a session marker
