"""The accounts app's background tasks: every account email, sent by the worker instead of the request.

Emails with a key (address confirmation, password reset) are given ids, never the link: task arguments are
stored in the database and shown in the admin, and a link there would let anyone who can read it act for the
customer. The worker makes the key itself, when it sends, inside a request made from SITE_URL (the worker has
no request of its own; allauth builds its links from one).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from allauth.account.adapter import get_adapter
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.mail import EmailMultiAlternatives, mail_admins
from django.http import HttpRequest
from django.urls import reverse
from django.utils import translation
from django_tasks import task

from accounts.adapter import sending_now
from storefront.background import retry_later
from storefront.gateway import RateLimited, Unavailable


@contextmanager
def _site_request(language: str = "") -> Iterator[HttpRequest]:
    """A request for the site's own address, so allauth renders absolute links as a web request would; the email
    is written in `language`, the one the customer was using when it was asked for (the site's default if none)."""
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
    token = sending_now.set(True)
    try:
        with allauth_context.request_context(request), translation.override(language or settings.LANGUAGE_CODE):
            request.LANGUAGE_CODE = translation.get_language()
            yield request
    finally:
        sending_now.reset(token)


@task()
def send_email_verification(*, email_address_id: int, signup: bool, attempt: int = 1, language: str = "") -> bool:
    """Email the confirmation link of this address, unless it is confirmed already. True if sent."""
    address = EmailAddress.objects.filter(pk=email_address_id, verified=False).select_related("user").first()
    if address is None:
        return False
    try:
        with _site_request(language) as request:
            get_adapter(request).send_confirmation_mail(request, EmailConfirmationHMAC(address), signup)
    except Exception:
        retry_later(
            send_email_verification,
            attempt=attempt,
            kwargs={"email_address_id": email_address_id, "signup": signup, "language": language},
        )
        raise
    return True


@task()
def send_password_reset_email(*, user_id: int, email: str, attempt: int = 1, language: str = "") -> bool:
    """Email a reset link to this user if they may still reset their password. True if sent."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.has_usable_password():
        return False
    try:
        with _site_request(language) as request:
            key = default_token_generator.make_token(user)
            path = reverse("account_reset_password_from_key", kwargs={"uidb36": user_pk_to_url_str(user), "key": key})
            context = {"user": user, "password_reset_url": request.build_absolute_uri(path), "request": request}
            get_adapter(request).send_password_reset_mail(user, email, context)
    except Exception:
        kwargs = {"user_id": user_id, "email": email, "language": language}
        retry_later(send_password_reset_email, attempt=attempt, kwargs=kwargs)
        raise
    return True


@task()
def send_rendered_email(
    *, subject: str, body: str, html: str, to: list[str], from_email: str, attempt: int = 1
) -> None:
    """A notice rendered by the request (it carries no key): sent as it is."""
    message = EmailMultiAlternatives(subject, body, from_email, to)
    if html:
        message.attach_alternative(html, "text/html")
    try:
        message.send()
    except Exception:
        kwargs = {"subject": subject, "body": body, "html": html, "to": to, "from_email": from_email}
        retry_later(send_rendered_email, attempt=attempt, kwargs=kwargs)
        raise


@task()
def mail_staff(*, subject: str, body: str, attempt: int = 1) -> None:
    """An email to ADMINS (account deletion requests, signups to reconcile)."""
    try:
        mail_admins(subject, body)
    except Exception:
        retry_later(mail_staff, attempt=attempt, kwargs={"subject": subject, "body": body})
        raise


@task()
def provider_signup_retry(*, customer_pk: int, attempt: int = 1) -> bool:
    """The provider signup of a confirmed customer, again, after the provider was unavailable at confirmation.
    True once linked. Safe to run twice: the service does nothing for a linked customer."""
    from accounts.models import Customer
    from accounts.services import customer_provider_signup

    customer = Customer.objects.filter(pk=customer_pk, customer_id__isnull=True).first()
    if customer is None:
        return True
    try:
        return customer_provider_signup(customer=customer).customer_id is not None
    except (Unavailable, RateLimited):
        retry_later(provider_signup_retry, attempt=attempt, kwargs={"customer_pk": customer_pk})
        raise
