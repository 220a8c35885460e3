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

The worker sends each as soon as its transaction commits (`storefront.tasks.send_email`) and sweeps every minute
for what is due (`send_due_emails`); a failure waits 1, 2, 4 … minutes (up to an hour) before the next attempt.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.utils import timezone

from storefront.background import claimed, retry_delay
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


def _attachments_checked(attachments: Sequence[EmailAttachment]) -> list[dict[str, Any]]:
    for attachment in attachments:
        if attachment.maker not in _ATTACHMENT_MAKERS:
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
    if renderer not in _RENDERERS:
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
    from storefront.tasks import send_email  # the tasks module imports this one

    transaction.on_commit(lambda: send_email.enqueue(email_id=email_id), robust=True)


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
