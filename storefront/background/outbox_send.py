"""Sending the outbox's emails (storefront/background/outbox.py queues them): the worker's side, and the registries of
what is made only when an email is sent (renderers of emails carrying a secret link, makers of attachments).

Kept apart from the queueing side so that the tasks (storefront/tasks.py) call this and the queueing side enqueues
those tasks, without a circle between the two modules.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.utils import timezone

from storefront.background.retries import claimed, retry_delay
from storefront.models import OutgoingEmail

logger = logging.getLogger(__name__)

# Makes the email of a renderer row from its params when it is sent; None: nothing to send any more.
Renderer = Callable[[dict[str, Any]], EmailMessage | None]
_RENDERERS: dict[str, Renderer] = {}


@dataclass(frozen=True)
class AttachedFile:
    filename: str
    content: bytes
    mimetype: str


@dataclass(frozen=True)
class EmailAttachment:
    """A file to attach when the email is sent: `maker` (registered) makes it from `params` (JSON: ids, a language)."""

    maker: str
    params: dict[str, Any] = field(default_factory=dict)


# Makes one attachment from its params when the email is sent; None: nothing to attach any more.
AttachmentMaker = Callable[[dict[str, Any]], AttachedFile | None]
_ATTACHMENT_MAKERS: dict[str, AttachmentMaker] = {}
# A sweep sends at most this many emails (the next minute's sweep takes the rest).
SWEEP_LIMIT = 200


def email_renderer_register(name: str, renderer: Renderer) -> None:
    _RENDERERS[name] = renderer


def email_attachment_register(name: str, maker: AttachmentMaker) -> None:
    _ATTACHMENT_MAKERS[name] = maker


def email_renderer_registered(name: str) -> bool:
    return name in _RENDERERS


def email_attachment_maker_registered(name: str) -> bool:
    return name in _ATTACHMENT_MAKERS


def outbox_send(*, email_id: int) -> bool:
    """Send this email now if it is due and the oldest unsent of its thread, then the thread's next ones. True if
    it went out. A failure is recorded on the row (and raised): it is tried again after a wait."""
    sent = _send_one(email_id)
    if sent:
        _send_thread_after(email_id)
    return sent


def outbox_send_due(*, limit: int = SWEEP_LIMIT) -> int:
    """Send every due email, oldest first (each thread in order). Emails sent; failures wait for their retry."""
    due = OutgoingEmail.objects.filter(sent_at__isnull=True, dropped_at__isnull=True, send_after__lte=timezone.now())
    sent = 0
    for email_id in due.order_by("pk").values_list("pk", flat=True)[:limit]:
        # A failure is recorded on its row (and logged); the others still go out.
        sent += _send_one(email_id, raise_failure=False)
    return sent


def _send_thread_after(email_id: int) -> None:
    email = OutgoingEmail.objects.filter(pk=email_id).only("thread").first()
    if email is None or not email.thread:
        return
    waiting = OutgoingEmail.objects.filter(
        thread=email.thread, pk__gt=email_id, sent_at__isnull=True, dropped_at__isnull=True
    ).filter(send_after__lte=timezone.now())
    for next_id in waiting.order_by("pk").values_list("pk", flat=True):
        if not _send_one(next_id):
            return


def _send_one(email_id: int, *, raise_failure: bool = True) -> bool:
    rows = OutgoingEmail.objects.filter(
        pk=email_id, sent_at__isnull=True, dropped_at__isnull=True, send_after__lte=timezone.now()
    )
    failure: Exception | None = None
    with claimed(rows) as found:
        if not found:
            return False  # sent, dropped, not due yet, or being sent by another worker
        email = found[0]
        if (
            email.thread
            and OutgoingEmail.objects.filter(
                thread=email.thread, pk__lt=email.pk, sent_at__isnull=True, dropped_at__isnull=True
            ).exists()
        ):
            return False  # an older email of its thread goes first
        try:
            message = _message(email)
            if message is not None:
                message.send()
        except Exception as err:  # noqa: BLE001 - recorded on the row (inside the claim), raised below
            failure = err
            attempts = email.attempts + 1
            OutgoingEmail.objects.filter(pk=email.pk).update(
                attempts=attempts,
                last_error=f"{type(err).__name__}: {err}"[:500],
                send_after=timezone.now() + retry_delay(attempt=attempts),
            )
            logger.warning("email %s not sent (attempt %d): %s", email.key, attempts, type(err).__name__)
        else:
            done = {"sent_at": timezone.now(), "last_error": ""} if message else {"dropped_at": timezone.now()}
            OutgoingEmail.objects.filter(pk=email.pk).update(**done)
    if failure is not None and raise_failure:
        raise failure
    return message is not None


def _message(email: OutgoingEmail) -> EmailMessage | None:
    if email.renderer:
        renderer = _RENDERERS.get(email.renderer)
        if renderer is None:
            raise LookupError(f"no email renderer {email.renderer!r} is registered")
        return renderer(email.params)
    message = EmailMultiAlternatives(email.subject, email.body, email.from_email, email.to)
    if email.html:
        message.attach_alternative(email.html, "text/html")
    for attachment in email.attachments:
        maker = _ATTACHMENT_MAKERS.get(attachment["maker"])
        if maker is None:
            raise LookupError(f"no email attachment maker {attachment['maker']!r} is registered")
        # A maker that fails fails the send: it is tried again later, never sent without what it promised.
        made = maker(attachment.get("params", {}))
        if made is not None:
            message.attach(made.filename, made.content, made.mimetype)
    return message
