"""django-allauth's hooks: every email through the outbox, where to land after confirming, the client address.

Emails that carry a key (address confirmation, password reset) are queued with ids only: what the outbox stores is
shown in the admin, and a key there would let anyone who reads it act for the customer. The worker makes the key
itself when it sends (accounts/signup/emails.py renders them then). Notices carry no key: they are rendered here, with
the request's address and browser, and queued as they are.
"""

from __future__ import annotations

import uuid
from contextvars import ContextVar
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.mfa.adapter import DefaultMFAAdapter
from django import forms
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from accounts.security.signin_limits import Attempt, SignInLimited, signin_attempt
from storefront.background.outbox import email_queue, email_queue_rendered_when_sent
from storefront.requests.request_helpers import client_address, safe_next
from storefront.site.brand import brand_context, from_email

# Set while the worker renders a keyed email (accounts/signup/emails.py): the adapter then hands the message back here
# instead of queueing it again.
rendering: ContextVar[list[Any] | None] = ContextVar("accounts_rendering", default=None)
VERIFY_NEXT_KEY = "accounts:verify-next"
# Set on a request whose email confirmation our receiver already told the customer about (a request attribute).
CONFIRMATION_TOLD = "accounts_confirmation_told"
_TOLD_BY_THE_SIGNUP_PAGE = ("account/messages/logged_in.txt", "account/messages/email_confirmation_sent.txt")


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request: HttpRequest) -> str:
        # The same address every other throttle uses (TRUSTED_PROXY_COUNT decides which header to trust).
        return client_address(request)

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        # Our limits (accounts/security/signin_limits.py) in place of allauth's: they never lock the owner out.
        login = str(credentials.get("email") or credentials.get("username") or "")
        try:
            self._signin_attempt: Attempt | None = signin_attempt(request=request, login=login)
        except SignInLimited as err:
            raise forms.ValidationError(err.message, code="too_many_login_attempts") from err

    def authenticate(self, request: HttpRequest, **credentials: Any) -> Any:
        """Sign-in and re-authentication by password: the attempt's share of the limits is given back when it
        succeeds, and counts against the account when it fails."""
        self._signin_attempt = None
        user = super().authenticate(request, **credentials)
        attempt = self._signin_attempt
        if attempt is not None:
            if user is not None:
                attempt.succeeded()
            else:
                attempt.failed()
        return user

    def get_from_email(self) -> str:
        return from_email()

    def format_email_subject(self, subject: str) -> str:
        # Read at send time (not ACCOUNT_EMAIL_SUBJECT_PREFIX, fixed at start-up), like every other brand use.
        return f"[{settings.STORE_NAME}] {subject}"

    def get_login_redirect_url(self, request: HttpRequest) -> str:
        return reverse(settings.LOGIN_REDIRECT_URL)

    def get_email_verification_redirect_url(self, email_address: Any) -> str:
        # Back where the customer was heading at signup; else the checkout when this browser holds a cart (the
        # session keeps it), else the search: never an empty checkout.
        request = self.request
        if request is None:
            return reverse("home")
        stored = safe_next(request, request.session.pop(VERIFY_NEXT_KEY, ""))
        return stored or reverse("checkout" if request.session.get("cart") else "home")

    def add_message(
        self,
        request: HttpRequest,
        level: int,
        message_template: str | None = None,
        message_context: dict[str, Any] | None = None,
        extra_tags: str = "",
        message: str | None = None,
    ) -> None:
        # A confirmation that finished a signup already says so, once (accounts/signup/receivers.py): not a second
        # banner.
        if message_template == "account/messages/email_confirmed.txt" and getattr(request, CONFIRMATION_TOLD, False):
            return
        # Signing up leads to the page that says the link was sent and the customer is signed in: no banners on top.
        if message_template in _TOLD_BY_THE_SIGNUP_PAGE and getattr(request, "signing_up", False):
            return
        super().add_message(request, level, message_template, message_context, extra_tags, message=message)

    def send_confirmation_mail(self, request: HttpRequest, emailconfirmation: Any, signup: bool) -> None:
        if rendering.get() is not None:
            super().send_confirmation_mail(request, emailconfirmation, signup)
            return
        address = emailconfirmation.email_address
        params = {"email_address_id": address.pk, "signup": signup, "language": get_language() or ""}
        email_queue_rendered_when_sent(renderer="email_confirmation", params=params, to=[address.email])

    def send_password_reset_mail(self, user: Any, email: str, context: dict[str, Any]) -> None:
        if rendering.get() is not None:
            super().send_password_reset_mail(user, email, context)
            return
        params = {"user_id": user.pk, "email": email, "language": get_language() or ""}
        email_queue_rendered_when_sent(renderer="password_reset", params=params, to=[email])

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        base = {**brand_context(), "email": email, "current_site": get_current_site(self.request)}
        captured = rendering.get()
        if captured is not None:
            captured.append(self.render_mail(template_prefix, email, {**base, **context}))
            return
        message = self.render_mail(template_prefix, email, {**base, "request": self.request, **context})
        email_queue(message, key=f"account:{template_prefix}:{uuid.uuid4()}")


class MFAAdapter(DefaultMFAAdapter):
    # The store's own words (and in Spanish its own term, "verificación en dos pasos", and "tú"), not allauth's.
    error_messages = {
        **DefaultMFAAdapter.error_messages,
        "add_email_blocked": _("You cannot add an email address while two-factor sign-in is on."),
        "cannot_delete_authenticator": _("You cannot turn off two-factor sign-in."),
        "cannot_generate_recovery_codes": _(
            "Turn on two-factor sign-in first: recovery codes stand in for its codes when your phone is not at hand."
        ),
        "incorrect_code": _("Incorrect code."),
        "unverified_email": _("Confirm your email address before you turn on two-factor sign-in."),
    }
