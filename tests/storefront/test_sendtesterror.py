"""`manage.py sendtesterror` sends one test error through every configured channel, as sendtestemail does."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.test import override_settings

from tests.storefront.error_tracker import TrackerCapture


def test_it_reaches_admins_and_the_error_tracker():
    output = StringIO()
    with TrackerCapture().running() as tracker, override_settings(ADMINS=[("Ops", "ops@example.com")]):
        with override_settings(SENTRY_DSN=tracker.dsn):
            call_command("sendtesterror", stdout=output)
        (event,) = tracker.flushed().events()
    reference = event["tags"]["request_id"]
    assert event["exception"]["values"][-1]["type"] == "SendTestError"
    (sent,) = mail.outbox
    assert sent.to == ["ops@example.com"] and reference in sent.body
    assert f"reference {reference}" in output.getvalue()
    assert "Sent to the error tracker" in output.getvalue()
    assert '"public_key":"publickey"' in tracker.raw  # the envelope still names its DSN (not a secret)


@override_settings(ADMINS=[], SENTRY_DSN="")
def test_with_no_channel_it_says_so():
    with pytest.raises(CommandError, match="No channel is configured"):
        call_command("sendtesterror", stdout=StringIO())
    assert mail.outbox == []
