"""Customer signup in two steps: our account at once, the provider's customer once the address is confirmed.

The provider customer is created only for a VERIFIED address: otherwise anyone could claim someone else's
email at the provider (it refuses a second customer with the same email, so the owner could never sign up).

1. `customer_register`: an active User (username = the email lowercased), its Customer with `customer_id`
   empty, and its unconfirmed allauth EmailAddress, in one transaction. The customer may sign in and fill a
   cart; checkout refuses to buy until the provider customer exists.
2. `customer_provider_signup`, when the address is confirmed (accounts/signup/receivers.py): the provider's signup,
   idempotent. Under a row lock it records that the signup was sent (`signup_sent_at`), then calls:
   - success: `customer_id` stored;
   - a definite refusal (invalid details, key refused, rate limited, never sent): `signup_sent_at` cleared,
     so a later attempt is a first attempt again;
   - unknown outcome (the request went out and the answer was lost, or a provider 500 to it): `signup_sent_at`
     KEPT (SignupPending): the worker sends it again (accounts/tasks.py), with exactly the same email string. The
     provider refuses a duplicate email, so the re-send either creates the one customer (the first never landed)
     or is refused as a duplicate (the first did land but we never learnt its id): then the customer is marked for
     staff (`signup_conflict_at`, emailed to ADMINS) and no longer retried.
   An attempt sent less than `IN_FLIGHT` ago is not repeated: two confirmations at once call the provider once.
   Until a confirmed customer is linked, the worker keeps trying (a retry with backoff, then the periodic
   `link-provider-customers` job), so an outage at confirmation never leaves an account unlinked for good.

The provider's password is not the customer's: the customer signs in here, and the control panel opens through
the provider's auto-login by email. It is made at random to the provider's rules and never stored.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Customer
from accounts.security import passwords
from accounts.staff.activity import activity_record
from reseller_webhooks.events import CUSTOMER_CREATED, webhook_event_emit
from storefront.background.outbox import email_queue_admins
from storefront.errors import StoreError
from storefront.gateway import CustomerExists, GatewayError, OutcomeUnknown, gateway

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)
User = get_user_model()
IN_FLIGHT = dt.timedelta(minutes=2)


class SignupError(Exception):
    message: StrOrPromise = ""

    def __init__(self, message: StrOrPromise = "") -> None:
        self.message = message or self.message
        super().__init__(self.message)


class EmailTaken(SignupError):
    """The email already has an account, with us or (`at_provider`) with the provider."""

    message = gettext_lazy("An account with this email already exists. Please sign in instead.")

    def __init__(self, message: str = "", *, at_provider: bool = False) -> None:
        super().__init__(message)
        self.at_provider = at_provider


class SignupPending(SignupError):
    """The provider's answer to signup was lost: the worker sends it again until the outcome is known."""

    message = gettext_lazy(
        "Your email is confirmed. We are finishing your account with the domain registry: you can buy domains in a "
        "few minutes."
    )


class SignupUnconfirmed(SignupError):
    """The provider may or may not have created the customer; the local record waits for staff."""

    message = gettext_lazy(
        "We could not confirm your account with the domain registry. Our staff have been notified and will "
        "confirm it; you can buy as soon as they have. Please contact support if this takes more than a day."
    )


def customer_register(*, details: dict[str, str], email: str, password: str) -> Customer:
    """Our account for a new customer, its address not yet confirmed. Raises EmailTaken.

    The language active while they sign up is theirs, kept for their pages and emails until they choose another.
    `details`: every contact field of Customer.contact() (as written, and the ASCII forms the provider is sent)."""
    email = email.strip()
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=email.lower(), email=email, password=password)
            customer = Customer.objects.create(
                user=user, customer_id=None, language=translation.get_language() or "", **details
            )
            EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=False)
            activity_record(action="signup", customer=customer)
            webhook_event_emit(
                CUSTOMER_CREATED,
                key=str(customer.pk),
                data={
                    "customer": {
                        "id": customer.pk,
                        "email": user.email,
                        "name": customer.name,
                        "company": customer.company,
                        "country": customer.country,
                        "language": customer.language,
                    }
                },
            )
    except IntegrityError as err:
        raise EmailTaken() from err  # a concurrent signup for the same email won the race
    return customer


def customer_provider_signup(*, customer: Customer) -> Customer:
    """The provider customer for this (verified) customer; returns the Customer, `customer_id` set on success.

    Raises EmailTaken(at_provider=True), SignupUnconfirmed, or the gateway's error (its `.message` is for
    the customer). Safe to call again: a linked customer is returned as it is.
    """
    now = timezone.now()
    with transaction.atomic():
        locked = Customer.objects.select_for_update().select_related("user").get(pk=customer.pk)
        if locked.customer_id is not None:
            return locked
        if not EmailAddress.objects.filter(user=locked.user, email__iexact=locked.user.email, verified=True).exists():
            raise SignupError(gettext("Please confirm your email address first."))
        sent_at = locked.signup_sent_at
        resend = sent_at is not None
        if sent_at is not None and now - sent_at < IN_FLIGHT:
            return locked  # another request is calling the provider right now
        locked.signup_sent_at = now
        locked.save(update_fields=["signup_sent_at"])
    details = locked.provider_contact()  # the ASCII forms of what the customer wrote (accounts/signup/spelling.py)
    try:
        created = gateway().customer_signup(**details, email=locked.user.email, password=provider_password())
    except CustomerExists as err:
        if resend:
            # The first attempt did land; its id was never learnt and the provider has no lookup by email.
            Customer.objects.filter(pk=locked.pk).update(signup_conflict_at=timezone.now())
            _notify_staff(locked, "the provider already has this email after an unknown outcome")
            raise SignupUnconfirmed() from err
        _notify_staff(locked, "the provider already has this email")
        raise EmailTaken(at_provider=True) from err
    except OutcomeUnknown as err:
        logger.warning(
            "Signup of local customer pk %s: the provider's answer was lost; the worker sends it again", locked.pk
        )
        raise SignupPending() from err
    except GatewayError:
        if not resend:
            Customer.objects.filter(pk=locked.pk).update(signup_sent_at=None)
        raise
    Customer.objects.filter(pk=locked.pk).update(customer_id=created.customer_id)
    locked.customer_id = created.customer_id
    activity_record(action="provider_linked", customer=locked, detail={"provider_id": created.customer_id})
    return locked


def provider_password() -> str:
    """A random password that keeps every provider rule: one of each required class, the rest mixed."""
    rng = secrets.SystemRandom()
    classes = ["ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnpqrstuvwxyz", "23456789", passwords.SPECIALS]
    chosen = [rng.choice(chars) for chars in classes]
    chosen += [rng.choice("".join(classes[:3])) for _ in range(passwords.MAX_LENGTH - len(chosen))]
    rng.shuffle(chosen)
    return "".join(chosen)


def _notify_staff(customer: Customer, why: str) -> None:
    logger.error("Signup of local customer pk %s needs reconciliation: %s", customer.pk, why)
    email_queue_admins(
        "A customer's provider account needs linking by hand",
        f"The signup of customer {customer.pk} ({customer.user.email}) could not be linked to the provider: {why}. "
        "Look the email up at the provider and enter its customer ID on the customer's admin page.",
        key=f"signup-conflict:{customer.pk}",
    )


def customers_awaiting_provider(*, limit: int = 200) -> list[Customer]:
    """Confirmed customers not linked to the provider yet that the worker should try again: not marked for staff,
    and no attempt in flight."""
    confirmed = EmailAddress.objects.filter(verified=True).values("user_id")
    return list(
        Customer.objects.filter(customer_id__isnull=True, signup_conflict_at__isnull=True, user_id__in=confirmed)
        .exclude(signup_sent_at__gt=timezone.now() - IN_FLIGHT)
        .select_related("user")
        .order_by("pk")[:limit]
    )


class PanelRefused(StoreError):
    """The control panel is not opened for this customer now (a refusal an app registered says why)."""

    http_status = 403


# Why the panel is closed to a customer ("" when it is not), registered at start-up by the apps that know (the domains
# app: a refunded domain still in the account). accounts knows nothing of domains (the apps' layers).
_PANEL_REFUSALS: list[Callable[[Customer], str]] = []


def panel_refusal_register(refusal: Callable[[Customer], str]) -> None:
    if refusal not in _PANEL_REFUSALS:
        _PANEL_REFUSALS.append(refusal)


def panel_login_url(*, email: str) -> str:
    """The control panel's one-time auto-login address for the signed-in customer with this email (a fresh token
    each time). Raises PanelRefused, before any call, when a registered refusal closes it.
    Never store, log or cache it: it signs the customer in."""
    customer = Customer.objects.filter(user__email__iexact=email, user__is_active=True).first()
    for refusal in _PANEL_REFUSALS:
        if customer is not None and (sentence := refusal(customer)):
            raise PanelRefused(message=sentence)
    issued = gateway().customer_auto_login(email=email)
    if customer is not None:
        activity_record(action="panel_opened", customer=customer)
    return f"{settings.RESELLER_PANEL_URL.rstrip('/')}/auto-login?" + urlencode({"token": issued.token})


class CurrencyFixed(SignupError):
    """The customer has paid for something: their currency stays the one their payments were made in."""

    message = gettext_lazy(
        "Your currency is fixed since your first purchase, so your receipts, renewals and refunds stay in one "
        "currency. Please contact support if you need another one."
    )


def customer_currency_set(*, customer: Customer, currency: str) -> Customer:
    """Change the currency prices are shown and charged in, until the first purchase. Raises CurrencyFixed."""
    with transaction.atomic():
        locked = Customer.objects.select_for_update().get(pk=customer.pk)
        if locked.currency_code == currency:
            return locked
        if locked.has_purchased:
            raise CurrencyFixed()
        old, locked.currency = locked.currency_code, currency
        locked.save(update_fields=["currency"])
        activity_record(action="currency_changed", customer=locked, detail={"old": old, "new": currency})
    return locked
