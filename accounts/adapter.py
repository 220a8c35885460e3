"""django-allauth's hooks: every email through the worker, where to land after confirming, the client address.

Emails that carry a key (address confirmation, password reset) are queued with ids only: task arguments are
stored in the database and shown in the admin, and a key there would let anyone who reads it act for the
customer. The worker makes the key itself when it sends (accounts/tasks.py). Notices carry no key: they are
rendered here, with the request's address and browser, and queued as they are.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.mfa.adapter import DefaultMFAAdapter
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language

from storefront.brand import brand_context, from_email
from storefront.request_helpers import client_address, safe_next

# Set while a task sends: then the adapter sends for real instead of queueing again.
sending_now: ContextVar[bool] = ContextVar("accounts_sending_now", default=False)
VERIFY_NEXT_KEY = "accounts:verify-next"


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request: HttpRequest) -> str:
        # The same address every other throttle uses (TRUSTED_PROXY_COUNT decides which header to trust).
        return client_address(request)

    def get_from_email(self) -> str:
        return from_email()

    def format_email_subject(self, subject: str) -> str:
        # Read at send time (not ACCOUNT_EMAIL_SUBJECT_PREFIX, fixed at start-up), like every other brand use.
        return f"[{settings.STORE_NAME}] {subject}"

    def get_login_redirect_url(self, request: HttpRequest) -> str:
        return reverse(settings.LOGIN_REDIRECT_URL)

    def get_email_verification_redirect_url(self, email_address: Any) -> str:
        # Back where the customer was heading at signup (the checkout, with the cart in the same session).
        request = self.request
        stored = request.session.pop(VERIFY_NEXT_KEY, "") if request is not None else ""
        return safe_next(request, stored) or reverse("checkout")

    def send_confirmation_mail(self, request: HttpRequest, emailconfirmation: Any, signup: bool) -> None:
        if sending_now.get():
            super().send_confirmation_mail(request, emailconfirmation, signup)
            return
        from accounts.tasks import send_email_verification

        send_email_verification.enqueue(
            email_address_id=emailconfirmation.email_address.pk, signup=signup, language=get_language() or ""
        )

    def send_password_reset_mail(self, user: Any, email: str, context: dict[str, Any]) -> None:
        if sending_now.get():
            super().send_password_reset_mail(user, email, context)
            return
        from accounts.tasks import send_password_reset_email

        send_password_reset_email.enqueue(user_id=user.pk, email=email, language=get_language() or "")

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        if sending_now.get():
            super().send_mail(template_prefix, email, {**brand_context(), **context})
            return
        from accounts.tasks import send_rendered_email

        base = {
            **brand_context(),
            "email": email,
            "request": self.request,
            "current_site": get_current_site(self.request),
        }
        message = self.render_mail(template_prefix, email, {**base, **context})
        html = next((body for body, kind in getattr(message, "alternatives", []) if kind == "text/html"), "")
        send_rendered_email.enqueue(
            subject=message.subject, body=message.body, html=html, to=list(message.to), from_email=message.from_email
        )


class MFAAdapter(DefaultMFAAdapter):
    pass
