"""allauth's signals: the provider customer is created when the customer's address is confirmed."""

from __future__ import annotations

import datetime as dt
from typing import Any

from allauth.account.signals import email_confirmed, password_reset
from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext

from accounts import services
from accounts.middleware import known_browser_users
from accounts.models import Customer
from accounts.notices import security_notice
from accounts.signin_limits import signin_limits_clear
from accounts.tasks import provider_signup_retry
from storefront.background import retry_delay
from storefront.gateway import GatewayError, RateLimited, Unavailable
from storefront.provider_errors import provider_error


@receiver(email_confirmed)
def provider_signup_on_confirmation(sender: Any, request: Any, email_address: Any, **kwargs: Any) -> None:
    customer = Customer.objects.filter(user=email_address.user, customer_id__isnull=True).first()
    if customer is None or email_address.email.lower() != customer.user.email.lower():
        return
    try:
        services.customer_provider_signup(customer=customer)
    except services.SignupPending as err:
        # The answer was lost: the worker sends the signup again once it can no longer be in flight.
        _retry_soon(customer, after=services.IN_FLIGHT)
        messages.info(request, err.message)
    except services.SignupError as err:
        messages.error(request, err.message)
    except GatewayError as err:
        if isinstance(err, Unavailable | RateLimited):
            # The address cannot be confirmed twice: the worker tries again, with a growing delay.
            _retry_soon(customer, after=retry_delay(attempt=1))
        messages.error(
            request,
            gettext("Your email is confirmed, but we could not finish your account. %(reason)s")
            % {"reason": provider_error(err)},
        )
    else:
        messages.success(request, gettext("Your email is confirmed and your account is ready to buy domains."))


def _retry_soon(customer: Customer, *, after: dt.timedelta) -> None:
    if provider_signup_retry.get_backend().supports_defer:
        provider_signup_retry.using(run_after=timezone.now() + after).enqueue(customer_pk=customer.pk)


@receiver(user_logged_in)
def notice_of_a_new_browser(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A sign-in from a browser this account never signed in from is emailed to its owner (not the signup's
    own first sign-in: that browser is the one the account was made in)."""
    if request is None or user is None or not request.META.get("REMOTE_ADDR"):
        return  # not a browser: Django's test client `force_login`, a script
    if str(user.pk) not in known_browser_users(request) and not getattr(request, "signing_up", False):
        security_notice(request=request, what="new_browser", user=user)
    request.known_browser_add = user.pk


@receiver(password_reset)
def signin_limits_reset(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A successful password reset proves the owner: their account's failed sign-ins start again from zero."""
    if request is not None:
        signin_limits_clear(request=request, user=user)
