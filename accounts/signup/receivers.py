"""allauth's signals: the provider customer is created when the customer's address is confirmed; password, email and
two-factor changes are written to the activity log; acting as a customer (django-hijack) is logged at both ends;
background tasks act as the system."""

from __future__ import annotations

import datetime as dt
from typing import Any

from allauth.account.signals import email_changed, email_confirmed, password_changed, password_reset
from allauth.mfa.signals import authenticator_added, authenticator_removed, authenticator_reset
from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext
from django_tasks.signals import task_finished, task_started
from hijack.signals import hijack_ended, hijack_started

from accounts.models import Customer
from accounts.security.middleware import known_browser_users
from accounts.security.notices import security_notice
from accounts.security.signin_limits import signin_limits_clear
from accounts.signup import services
from accounts.signup.adapter import CONFIRMATION_TOLD
from accounts.staff.activity import acting, activity_record, actor_of_request, task_acting_end, task_acting_start
from accounts.tasks import provider_signup_retry
from storefront.background.retries import retry_delay
from storefront.gateway import GatewayError, RateLimited, Unavailable
from storefront.requests.provider_errors import provider_error


@receiver(email_confirmed)
def provider_signup_on_confirmation(sender: Any, request: Any, email_address: Any, **kwargs: Any) -> None:
    customer = Customer.objects.filter(user=email_address.user, customer_id__isnull=True).first()
    if customer is None or email_address.email.lower() != customer.user.email.lower():
        return
    # Whatever follows says the address is confirmed: allauth's own "confirmed" banner would be a second one.
    if request is not None:
        setattr(request, CONFIRMATION_TOLD, True)
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
    if getattr(request, "acting_as_customer", False):
        return  # staff beginning or ending acting as a customer: not the customer signing in
    if str(user.pk) not in known_browser_users(request) and not getattr(request, "signing_up", False):
        security_notice(request=request, what="new_browser", user=user)
    request.known_browser_add = user.pk


def _log_for_user(request: Any, user: Any, action: str, **detail: Any) -> None:
    customer = Customer.objects.filter(user=user).first()
    if customer is not None:  # staff without a customer record have no customer log
        activity_record(action=action, customer=customer, detail=detail)


@receiver(password_changed)
def log_password_changed(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    _log_for_user(request, user, "password_changed")


@receiver(password_reset)
def log_password_reset(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    _log_for_user(request, user, "password_reset")


@receiver(email_changed)
def log_email_changed(
    sender: Any, request: Any, user: Any, from_email_address: Any, to_email_address: Any, **kwargs: Any
) -> None:
    # allauth also sends this when a new account confirms its first address (from nothing): no change to log.
    if from_email_address is None or from_email_address.email.lower() == to_email_address.email.lower():
        return
    _log_for_user(request, user, "email_changed", email=to_email_address.email)


@receiver(authenticator_added)
def log_two_factor_on(sender: Any, request: Any, user: Any, authenticator: Any, **kwargs: Any) -> None:
    if authenticator.type != "recovery_codes":  # made alongside the first method: that method is the news
        _log_for_user(request, user, "two_factor_on", method=authenticator.type)


@receiver(authenticator_removed)
def log_two_factor_off(sender: Any, request: Any, user: Any, authenticator: Any, **kwargs: Any) -> None:
    _log_for_user(request, user, "two_factor_off", method=authenticator.type)


@receiver(authenticator_reset)
def log_recovery_codes(sender: Any, request: Any, user: Any, authenticator: Any, **kwargs: Any) -> None:
    _log_for_user(request, user, "recovery_codes")


@receiver(hijack_started)
def log_acting_started(sender: Any, request: Any, hijacker: Any, hijacked: Any, **kwargs: Any) -> None:
    with acting(actor_of_request(request)):
        _log_for_user(request, hijacked, "acting_started")


@receiver(hijack_ended)
def log_acting_ended(sender: Any, request: Any, hijacker: Any, hijacked: Any, **kwargs: Any) -> None:
    with acting(actor_of_request(request)):
        _log_for_user(request, hijacked, "acting_ended")


@receiver(task_started)
def task_acts_as_system(sender: Any, task_result: Any, **kwargs: Any) -> None:
    task_acting_start(task_result.id)


@receiver(task_finished)
def task_acted(sender: Any, task_result: Any, **kwargs: Any) -> None:
    task_acting_end(task_result.id)


@receiver(password_reset)
def signin_limits_reset(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A successful password reset proves the owner: their account's failed sign-ins start again from zero."""
    if request is not None:
        signin_limits_clear(request=request, user=user)
