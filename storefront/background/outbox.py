"""The one way the store sends email: queued in the transaction of the change it reports, sent by the worker.

Why an outbox (and not a send in a task per kind of email, as before): an email queued in the same transaction
as its change exists exactly when the change does (a rolled-back refund mails no credit note, a committed one
always does), a key makes queueing it twice a no-op, retries live in one place, and the emails of one thread
(a checkout: its confirmation, its receipt, a credit note) go out in the order their changes happened, never a
"registered" email after the credit note that refunds it. A maintained library (django-post-office) was
considered: it sends from its own queue runner and knows no threads, and its queue is not our task worker.

- `email_queue(message, key=…, thread=…)`: a rendered message (rendered now, in the customer's language).
- `email_queue_rendered_when_sent(renderer=…, params=…)`: an email that carries a secret link (address
  confirmation, password reset) is made only when sent, by a renderer registered with `email_renderer_register`,
  from ids: the link is never stored.
- `attachments=[EmailAttachment(maker, params)]` on `email_queue`: files made when the email is sent (a receipt's
  PDF), by a maker registered with `email_attachment_register`, so the worker renders them, not the request.
- `email_queue_admins(subject, body, key=…)`: to ADMINS (nothing is queued, and a warning is logged, without).

The worker sends each as soon as its transaction commits (`storefront.tasks.send_email`, which calls
storefront/background/outbox_send.py) and sweeps every minute for what is due (`send_due_emails`); a failure
waits 1, 2, 4 … minutes (up to an hour) before the next attempt.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.utils import timezone

from storefront.background.outbox_send import (
    AttachedFile,
    AttachmentMaker,
    EmailAttachment,
    Renderer,
    email_attachment_maker_registered,
    email_attachment_register,
    email_renderer_register,
    email_renderer_registered,
)
from storefront.models import OutgoingEmail
from storefront.tasks import send_email

__all__ = [
    "AttachedFile",
    "AttachmentMaker",
    "EmailAttachment",
    "Renderer",
    "email_attachment_register",
    "email_queue",
    "email_queue_admins",
    "email_queue_rendered_when_sent",
    "email_renderer_register",
]

logger = logging.getLogger(__name__)


def _attachments_checked(attachments: Sequence[EmailAttachment]) -> list[dict[str, Any]]:
    for attachment in attachments:
        if not email_attachment_maker_registered(attachment.maker):
            raise ValueError(f"no email attachment maker {attachment.maker!r} is registered")
    return [asdict(attachment) for attachment in attachments]


def email_queue(
    message: EmailMessage, *, key: str, thread: str = "", attachments: Sequence[EmailAttachment] = ()
) -> bool:
    """Queue a rendered message in the caller's transaction. False when `key` was queued already (nothing added)."""
    html = ""
    if isinstance(message, EmailMultiAlternatives):
        html = next((str(body) for body, kind in message.alternatives if kind == "text/html"), "")
    return _insert(
        key=key,
        thread=thread,
        to=list(message.to),
        from_email=message.from_email or settings.DEFAULT_FROM_EMAIL,
        subject=str(message.subject),
        body=str(message.body),
        html=html,
        attachments=_attachments_checked(attachments),
    )


def email_queue_rendered_when_sent(*, renderer: str, params: dict[str, Any], to: list[str], key: str = "") -> bool:
    """Queue an email made only when it is sent (it carries a secret link): `renderer` makes it from `params`
    (ids, never the link). Each call queues one unless `key` says otherwise."""
    if not email_renderer_registered(renderer):
        raise ValueError(f"no email renderer {renderer!r} is registered")
    return _insert(key=key or f"{renderer}:{uuid.uuid4()}", thread="", to=to, renderer=renderer, params=params)


def email_queue_admins(subject: str, body: str, *, key: str) -> bool:
    """Queue an email to ADMINS (staff alerts). Without ADMINS nothing is queued: the warning says so."""
    to = [address for _name, address in settings.ADMINS]
    if not to:
        logger.warning("staff email %r not sent: ADMINS is empty", key)
        return False
    message = EmailMessage(f"{settings.EMAIL_SUBJECT_PREFIX}{subject}", body, settings.SERVER_EMAIL, to)
    return email_queue(message, key=key)


def _insert(*, key: str, thread: str, to: list[str], **fields: Any) -> bool:
    try:
        with transaction.atomic():
            email = OutgoingEmail.objects.create(
                key=key[:200], thread=thread[:100], to=to, send_after=timezone.now(), **fields
            )
    except IntegrityError:
        return False
    _send_after_commit(email.pk)
    return True


def _send_after_commit(email_id: int) -> None:
    """Sent once the change it reports is committed; a lost enqueue is picked up by the minute's sweep. (Tests that
    run inside one transaction replace this with a send at once: tests/conftest.py.)"""

    transaction.on_commit(lambda: send_email.enqueue(email_id=email_id), robust=True)
