"""Changing a customer's contact details: sent to the provider when it can take them, else queued for staff.

The provider holds the contact as every domain's registrant, admin, tech and billing contact. Its
`PUT /api/v1/customers/details` is "coming soon" (capability `customer_details`, storefront/site/capabilities.py):
- on: `contact_change_request` sends the whole contact (ASCII forms) through the gateway, then, only once the
  provider has it, stores it on the Customer, in one transaction with its record and log row. A refusal or an
  outage raises the gateway's error and changes nothing here (the form keeps what was typed); a lost answer too:
  the PUT replaces every field, so sending it again is safe.
- off: the change is recorded (`ContactChange`, pending: at most one a customer, a new one replaces it), staff are
  emailed, and they send it to the provider by hand and mark it done in the admin (`contact_change_mark_done`), which
  is when our copy changes: checkout never shows a contact the registry does not hold.
A customer not yet at the provider (email unconfirmed) changes our copy at once: their signup sends it.

Every change is logged with its actor (accounts/staff/activity.py): staff acting as the customer may change it, and the
log says it was them.
"""

from __future__ import annotations

import enum
import json
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import PROVIDER_CONTACT_FIELDS, ContactChange, Customer
from accounts.staff.activity import activity_record
from storefront.background.outbox import email_queue_admins
from storefront.gateway import CapabilityOff, Contact, gateway
from storefront.site.capabilities import CUSTOMER_DETAILS, capability_enabled

PROVIDER_ENDPOINT = "PUT /api/v1/customers/details"


class Outcome(enum.Enum):
    SENT = "sent"  # the provider has it, and so has our copy
    PENDING = "pending"  # waiting for staff to send it
    SAVED = "saved"  # our copy changed; the provider has no customer yet (its signup will carry it)
    UNCHANGED = "unchanged"  # the same details as now: nothing done
    WITHDRAWN = "withdrawn"  # the details now, asked while a change was pending: the pending change is dropped


def contact_change_pending(*, customer: Customer) -> ContactChange | None:
    return ContactChange.objects.filter(customer=customer, status=ContactChange.Status.PENDING).first()


def contact_change_request(*, customer: Customer, details: dict[str, str], requested_by: Any) -> Outcome:
    """Change the customer's contact to `details` (every key of Customer.contact()). Raises the gateway's error
    (its `.message` is the customer's sentence) when the provider refuses or cannot be reached; nothing is saved then.
    """
    details = {field: details[field] for field in customer.contact()}
    changed = sorted(field for field, value in details.items() if getattr(customer, field) != value)
    pending = contact_change_pending(customer=customer)
    if not changed:
        if pending is None:
            return Outcome.UNCHANGED
        with transaction.atomic():
            ContactChange.objects.filter(pk=pending.pk, status=ContactChange.Status.PENDING).delete()
            activity_record(action="contact_change_withdrawn", customer=customer)
        return Outcome.WITHDRAWN
    if customer.customer_id is None and customer.signup_sent_at is None:
        with transaction.atomic():
            _apply(customer, details)
            activity_record(action="contact_changed", customer=customer, detail={"fields": ", ".join(changed)})
        return Outcome.SAVED
    if customer.customer_id is not None and capability_enabled(CUSTOMER_DETAILS):
        try:
            return _send(customer=customer, details=details, changed=changed, requested_by=requested_by)
        except CapabilityOff:
            pass  # switched off since the check: queued for staff like any other
    return _queue(customer=customer, details=details, changed=changed, requested_by=requested_by)


def _send(*, customer: Customer, details: dict[str, str], changed: list[str], requested_by: Any) -> Outcome:
    assert customer.customer_id is not None
    gateway().customer_details_update(customer_id=customer.customer_id, details=provider_contact(customer, details))
    now = timezone.now()
    with transaction.atomic():
        # Sent whole, so it also settles whatever was pending from before the provider could take changes.
        ContactChange.objects.filter(customer=customer, status=ContactChange.Status.PENDING).delete()
        ContactChange.objects.create(
            customer=customer,
            status=ContactChange.Status.SENT,
            details=details,
            requested_at=now,
            requested_by=_user(requested_by),
            done_at=now,
        )
        _apply(customer, details)
        activity_record(action="contact_changed", customer=customer, detail={"fields": ", ".join(changed)})
    return Outcome.SENT


def _queue(*, customer: Customer, details: dict[str, str], changed: list[str], requested_by: Any) -> Outcome:
    with transaction.atomic():
        Customer.objects.select_for_update().filter(pk=customer.pk).first()  # one pending change, however many ask
        change, _created = ContactChange.objects.update_or_create(
            customer=customer,
            status=ContactChange.Status.PENDING,
            defaults={"details": details, "requested_at": timezone.now(), "requested_by": _user(requested_by)},
        )
        activity_record(action="contact_change_requested", customer=customer, detail={"fields": ", ".join(changed)})
    email_queue_admins(
        "A customer's contact change waits to be sent to the provider",
        f"Customer {customer.pk} ({customer.email}, provider id {customer.customer_id or 'none yet'}) changed their "
        f"contact details ({', '.join(changed)}). The provider cannot take changes through its interface yet: send "
        "them as the admin's Contact changes page shows, then mark the change done there.",
        key=f"contact-change:{change.pk}:{change.requested_at.isoformat()}",
    )
    return Outcome.PENDING


def contact_change_mark_done(*, change: ContactChange, staff: Any) -> bool:
    """Staff sent a pending change to the provider by hand: our copy takes it now. False if it was not pending."""
    with transaction.atomic():
        locked = ContactChange.objects.select_for_update().select_related("customer").filter(pk=change.pk).first()
        if locked is None or locked.status != ContactChange.Status.PENDING:
            return False
        customer = locked.customer
        changed = sorted(field for field, value in locked.details.items() if getattr(customer, field) != value)
        _apply(customer, locked.details)
        locked.status = ContactChange.Status.DONE
        locked.done_at = timezone.now()
        locked.done_by = _user(staff)
        locked.save(update_fields=["status", "done_at", "done_by"])
        activity_record(action="contact_change_done", customer=customer, detail={"fields": ", ".join(changed)})
    return True


def provider_contact(customer: Customer, details: dict[str, str]) -> Contact:
    """The contact the provider is sent: the ASCII forms in place of the written ones, and the sign-in email."""
    spelled = {field: details.get(f"{field}_ascii") or details[field] for field in PROVIDER_CONTACT_FIELDS}
    return Contact(**spelled, email=customer.email)


def provider_request(change: ContactChange) -> str:
    """What staff send the provider for a change, as its interface will take it (pretty JSON)."""
    body = {"customer_id": change.customer.customer_id, **provider_contact(change.customer, change.details).as_fields()}
    return json.dumps(body, indent=2, ensure_ascii=False)


def _apply(customer: Customer, details: dict[str, Any]) -> None:
    for field, value in details.items():
        setattr(customer, field, value)
    customer.save(update_fields=list(details))


def _user(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None
