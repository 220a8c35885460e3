"""Customer signup: the provider's customer and our local account, created together.

How "together" works without holding a database transaction open across the provider call (with SQLite, every
other request that writes would wait on our lock until the call timed out):

1. Our record first, committed: an *inactive* User (username = the email lowercased) and its Customer with
   `customer_id` empty. This is the record of the attempt; the unique username stops a second concurrent signup
   for the same email before it reaches the provider.
2. The provider's signup.
3. Success: `customer_id` stored and the user activated, in one short transaction.
   A definite refusal (invalid details, duplicate email, key refused, rate limited, never sent): the record made
   in step 1 is deleted, so nothing is left half-created.
   Unknown outcome (the request went out and the answer was lost): the record is KEPT, inactive, with
   `customer_id` empty. Staff see it in the admin ("needs reconciliation") and a log line names it.

A retry after an unknown outcome never blindly creates a second provider customer: it finds the kept record,
and only when the same password is given (so nobody else can take over the pending account) does it send the
signup again, with exactly the email string of the first attempt. The provider refuses a duplicate email, so
the re-send either creates the one customer (the first attempt never landed: the account is completed and the
customer signed in) or is refused as a duplicate (the first attempt did land, but we never learnt its
`customer_id`): then the customer is told we could not confirm the account and staff reconcile it.
"""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.db import DatabaseError, IntegrityError, transaction

from accounts.models import Customer
from storefront.gateway import CustomerExists, GatewayError, OutcomeUnknown, gateway

logger = logging.getLogger(__name__)
User = get_user_model()


class SignupError(Exception):
    message = ""

    def __init__(self, message: str = "") -> None:
        self.message = message or self.message
        super().__init__(self.message)


class EmailTaken(SignupError):
    """The email already has an account, with us or (`at_provider`) with the provider."""

    message = "An account with this email already exists. Please sign in instead."

    def __init__(self, message: str = "", *, at_provider: bool = False) -> None:
        super().__init__(message)
        self.at_provider = at_provider


class SignupUnconfirmed(SignupError):
    """The provider may or may not have created the customer; the local record waits for staff."""

    message = (
        "We could not confirm your account with the domain registry. Please do not sign up again: our staff "
        "have been notified and will confirm it, or contact support."
    )


def customer_signup(
    *,
    name: str,
    company: str = "",
    address: str,
    city: str,
    state: str,
    country: str,
    zipcode: str,
    country_code: str,
    phone: str,
    email: str,
    password: str,
) -> Customer:
    """Create the provider customer and our User + Customer; returns the Customer, its user active.

    Raises EmailTaken, SignupUnconfirmed, or the gateway's error (its `.message` is for the customer) after
    removing anything this call created.
    """
    details = {
        "name": name,
        "company": company,
        "address": address,
        "city": city,
        "state": state,
        "country": country,
        "zipcode": zipcode,
        "country_code": country_code,
        "phone": phone,
    }
    customer, created_now = _record_attempt(email=email, password=password, details=details)
    try:
        created = gateway().customer_signup(**details, email=customer.user.email, password=password)
    except CustomerExists as err:
        if created_now:
            _forget_attempt(customer)
            raise EmailTaken(at_provider=True) from err
        # A re-send refused as a duplicate: the earlier, unconfirmed attempt did create the provider customer.
        _notify_staff(customer, "the provider already has this email after an unknown outcome")
        raise SignupUnconfirmed() from err
    except OutcomeUnknown as err:
        _notify_staff(customer, "the provider's answer to signup was lost")
        raise SignupUnconfirmed() from err
    except GatewayError:
        if created_now:
            _forget_attempt(customer)
        raise
    return _complete(customer, customer_id=created.customer_id)


def _record_attempt(*, email: str, password: str, details: dict[str, str]) -> tuple[Customer, bool]:
    """Our pending record for this signup: a new one, or the one an earlier unknown outcome left behind."""
    username = email.strip().lower()
    existing = User.objects.filter(username=username).first()
    if existing is not None:
        customer = Customer.objects.filter(user=existing).first()
        pending = customer is not None and customer.customer_id is None and not existing.is_active
        if not pending:
            raise EmailTaken()
        if not existing.check_password(password):
            # Someone who cannot prove it is the same person: the pending account is not theirs to complete.
            raise SignupUnconfirmed()
        Customer.objects.filter(pk=customer.pk).update(**details)
        customer.refresh_from_db()
        return customer, False
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email.strip(), password=password)
            user.is_active = False
            user.save(update_fields=["is_active"])
            customer = Customer.objects.create(user=user, customer_id=None, **details)
    except IntegrityError as err:
        raise EmailTaken() from err  # a concurrent signup for the same email won the race
    return customer, True


def _forget_attempt(customer: Customer) -> None:
    try:
        customer.user.delete()  # cascades to the Customer
    except DatabaseError:
        # Left inactive with customer_id empty: a retry re-sends safely and staff see it in the admin.
        logger.exception("Could not remove the local record of refused signup (customer pk %s)", customer.pk)


def _complete(customer: Customer, *, customer_id: int) -> Customer:
    try:
        with transaction.atomic():
            customer.customer_id = customer_id
            customer.save(update_fields=["customer_id"])
            customer.user.is_active = True
            customer.user.save(update_fields=["is_active"])
    except DatabaseError as err:
        # The provider has the customer; we could not store its id. The id is in this log line for staff.
        logger.exception(
            "Provider customer %s created but not stored on local customer pk %s: reconcile", customer_id, customer.pk
        )
        raise SignupUnconfirmed() from err
    return customer


def _notify_staff(customer: Customer, why: str) -> None:
    logger.error("Signup of local customer pk %s needs reconciliation: %s", customer.pk, why)
