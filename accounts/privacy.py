"""The customer's own data: everything we hold about them as JSON, and deleting the account.

Both walk the Customer's relations generically (orders, registrations, and whatever later apps link to a
customer, receipts and renewals among them): `accounts` may not import the apps above it, and an export that
forgot a new table would silently hide data from its owner.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.db import models, transaction
from django.db.models import ProtectedError
from django.utils import timezone

from accounts.models import ContactChange, Customer
from accounts.staff.activity import activity_record
from storefront.background.outbox import email_queue_admins

ANONYMOUS = "Deleted customer"


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    return value


def _row(obj: models.Model) -> dict[str, Any]:
    row = {}
    hidden = getattr(obj, "EXPORT_HIDDEN", ())
    for field in obj._meta.concrete_fields:
        if field.name in ("customer", "user") or field.name in hidden:
            continue
        row[field.name] = _plain(getattr(obj, field.attname))
    return row


def customer_export(*, customer: Customer) -> dict[str, Any]:
    """Everything the storefront holds about this customer, as JSON-ready data."""
    data: dict[str, Any] = {
        "exported_at": timezone.now().isoformat(),
        "contact": {"email": customer.user.email, **customer.contact()},
        "provider_customer_id": customer.customer_id,
        "signed_up_at": customer.created_at.isoformat(),
        "email_addresses": [
            {"email": a.email, "verified": a.verified, "primary": a.primary}
            for a in EmailAddress.objects.filter(user=customer.user)
        ],
        "two_factor": sorted({a.type for a in Authenticator.objects.filter(user=customer.user)}),
    }
    for relation in Customer._meta.related_objects:
        if relation.one_to_many or relation.one_to_one:
            accessor = relation.get_accessor_name()
            if accessor is None:  # a relation declared without a reverse accessor (related_name="+")
                continue
            if relation.one_to_one:
                related = getattr(customer, accessor, None) if hasattr(customer, accessor) else None
                data[accessor] = _row(related) if related is not None else None
            else:
                data[accessor] = [_row(obj) for obj in getattr(customer, accessor).all()]
    return data


def customer_delete(*, customer: Customer) -> bool:
    """Delete the account: the user and its contact go; what must be kept (orders, registrations, receipts:
    the provider holds these domains and the accounts need them) stays, with the contact anonymised.
    Staff are told (ADMINS), so they can ask the provider to delete its customer. True if wholly deleted."""
    user = customer.user
    provider_id, email = customer.customer_id, user.email
    kept = False
    with transaction.atomic():
        activity_record(action="account_deleted", customer=customer)
        EmailAddress.objects.filter(user=user).delete()
        Authenticator.objects.filter(user=user).delete()
        # They hold the contact too (asked for, or sent): kept records are anonymised, so these go.
        ContactChange.objects.filter(customer=customer).delete()
        try:
            with transaction.atomic():
                user.delete()  # cascades to the Customer when nothing protects it
        except ProtectedError:
            kept = True
            Customer.objects.filter(pk=customer.pk).update(
                name=ANONYMOUS,
                company="",
                address="",
                city="",
                state="",
                zipcode="",
                phone="",
                country_code="",
                name_ascii=ANONYMOUS,
                company_ascii="",
                address_ascii="",
                city_ascii="",
            )
            user.username = f"deleted-{user.pk}"
            user.email = ""
            user.first_name = user.last_name = ""
            user.is_active = False
            user.set_unusable_password()
            user.save()
    email_queue_admins(
        "A customer deleted their account",
        (
            f"Provider customer id: {provider_id or 'none (never created at the provider)'}\n"
            f"Email: {email}\n"
            f"Local records {'kept with the contact anonymised' if kept else 'deleted'}.\n"
            "Please ask the provider to delete its customer: its API offers no deletion yet."
        ),
        key=f"account-deleted:{customer.pk}",
    )
    return not kept
