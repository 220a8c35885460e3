"""The development mailbox: an email backend that keeps messages in the database, and the page that lists them.

Only for a storefront running with DEBUG on and no EMAIL_URL (settings): a newcomer with no mail server can
still follow a verification link. Production refuses to start without a real mail backend, and the page
answers 404 unless this backend is the one in use, so it can never show customers' emails on a live site. It
shows password-reset links too: it answers only to a browser on this machine (`bin/run` may be reachable from the
network), never to one behind a proxy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from storefront.models import MailboxMessage
from storefront.requests.acting_rules import acting_allowed
from storefront.requests.hosts import is_loopback_host

BACKEND = "storefront.background.mailbox.MailboxBackend"
SHOWN = 50


class MailboxBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        for message in email_messages:
            html = next((body for body, kind in getattr(message, "alternatives", []) if kind == "text/html"), "")
            MailboxMessage.objects.create(
                to=", ".join(message.recipients()),
                subject=str(message.subject),
                body=str(message.body),
                html=html,
                attachments=[_attached(attachment) for attachment in message.attachments],
            )
        return len(email_messages)


def _attached(attachment: Any) -> dict[str, Any]:
    # Django keeps an attachment as (filename, content, mimetype), or as a MIME part made elsewhere.
    if isinstance(attachment, tuple):
        filename, content, mimetype = attachment
        return {"filename": filename, "mimetype": mimetype or "", "size": len(content or b"")}
    return {"filename": attachment.get_filename() or "", "mimetype": attachment.get_content_type(), "size": 0}


def mailbox_enabled() -> bool:
    return settings.EMAIL_BACKEND == BACKEND


def mailbox_open_to(request: HttpRequest) -> bool:
    """The mailbox is in use and this request comes straight from this machine: a loopback connection that no
    proxy forwarded (a proxy on this machine would make every visitor's connection a loopback one)."""
    forwarded = any(header in request.META for header in ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP"))
    return mailbox_enabled() and not forwarded and is_loopback_host(request.META.get("REMOTE_ADDR", "") or "")


@acting_allowed
@never_cache
@require_safe
def mailbox(request: HttpRequest) -> HttpResponse:
    if not mailbox_open_to(request):
        raise Http404
    return render(request, "storefront/mailbox.html", {"messages_sent": MailboxMessage.objects.all()[:SHOWN]})
