"""A mail backend that plays a mail server which is down until told otherwise, for the worker's email tests."""

from __future__ import annotations

import smtplib
from collections.abc import Sequence

from django.core.mail import EmailMessage
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend


class FlakyServer:
    down = False


class EmailBackend(LocmemBackend):
    def send_messages(self, messages: Sequence[EmailMessage]) -> int:
        if FlakyServer.down:
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(messages)
