"""The account emails that carry a key (address confirmation, password reset), made only when the outbox sends
them (storefront/background/outbox.py renderers), so no link is ever stored: queued with ids
(accounts/signup/adapter.py), rendered here by allauth inside a request made from SITE_URL (the worker has no request of
its own; allauth builds its links from one), in the language the customer was using when they asked for it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from allauth.account.adapter import get_adapter
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.mail import EmailMessage
from django.http import HttpRequest
from django.urls import reverse
from django.utils import translation

from accounts.signup.adapter import rendering
from storefront.background.outbox import email_renderer_register


@contextmanager
def _site_request(language: str = "") -> Iterator[tuple[HttpRequest, list[Any]]]:
    """A request for the site's own address, so allauth renders absolute links as a web request would, and the list
    the adapter puts the rendered message in (instead of queueing it again)."""
    site = urlsplit(settings.SITE_URL)
    request = HttpRequest()
    request.META.update(
        {
            "HTTP_HOST": site.netloc,
            "SERVER_NAME": site.hostname or "localhost",
            "SERVER_PORT": str(site.port or (443 if site.scheme == "https" else 80)),
            "REMOTE_ADDR": "",
        }
    )
    if site.scheme == "https":
        request.META["HTTP_X_FORWARDED_PROTO"] = "https"
    request.user = AnonymousUser()
    # Rendered outside any browser: nothing is read from or kept in this session, so a plain dict stands in for
    # Django's SessionBase (whose storage methods would have nowhere to save).
    request.session = {}  # type: ignore[assignment]
    captured: list[Any] = []
    token = rendering.set(captured)
    try:
        with allauth_context.request_context(request), translation.override(language or settings.LANGUAGE_CODE):
            request.LANGUAGE_CODE = translation.get_language()
            yield request, captured
    finally:
        rendering.reset(token)


def email_confirmation_render(params: dict[str, Any]) -> EmailMessage | None:
    """The confirmation link of this address; None once it is confirmed (nothing to send)."""
    address = EmailAddress.objects.filter(pk=params["email_address_id"], verified=False).select_related("user").first()
    if address is None:
        return None
    with _site_request(params.get("language", "")) as (request, captured):
        get_adapter(request).send_confirmation_mail(request, EmailConfirmationHMAC(address), params["signup"])
    return captured[0] if captured else None


def password_reset_render(params: dict[str, Any]) -> EmailMessage | None:
    """A reset link for this user, if they may still reset their password; None otherwise."""
    user = get_user_model().objects.filter(pk=params["user_id"], is_active=True).first()
    if user is None or not user.has_usable_password():
        return None
    with _site_request(params.get("language", "")) as (request, captured):
        key = default_token_generator.make_token(user)
        path = reverse("account_reset_password_from_key", kwargs={"uidb36": user_pk_to_url_str(user), "key": key})
        context = {"user": user, "password_reset_url": request.build_absolute_uri(path), "request": request}
        get_adapter(request).send_password_reset_mail(user, params["email"], context)
    return captured[0] if captured else None


email_renderer_register("email_confirmation", email_confirmation_render)
email_renderer_register("password_reset", password_reset_render)
