"""`GET` and `POST /api/v1/contacts`: the registrant, admin, tech and billing contacts of a domain or a customer.

"Coming soon" at the provider, described by one sentence; the shapes are the sandbox's own (sandbox/README.md).
A domain's contact for a role is the one set for that domain, else the one set for its customer, else the
customer's own details (the contract: signup details are every contact of the customer's domains).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, endpoint, error, json_body, success
from sandbox.models import Contact, Customer, DomainOrder
from sandbox.signup import clean_details
from sandbox.views.customers import SIGNUP_FAILED
from sandbox.views.domains import INVALID_CUSTOMER, INVALID_ORDER, owned_customer, owned_order

CONTACTS_FAILED = "Failed to update the contacts"
# Laravel's `required_without` sentence, as the provider's validation answers word theirs.
MISSING_OWNER = "The order id field is required when customer id is not present."


class _Refusal(Exception):
    def __init__(self, response: JsonResponse) -> None:
        super().__init__(response.status_code)
        self.response = response


def _owner(ctx: Context, source: Any) -> tuple[Customer, DomainOrder | None]:
    """The customer, and the order when the request names one (an order id wins over a customer id)."""
    if source.get("order_id") not in (None, ""):
        order = owned_order(ctx, source.get("order_id"))
        if order is None:
            raise _Refusal(error(INVALID_ORDER))
        return order.customer, order
    if source.get("customer_id") not in (None, ""):
        customer = owned_customer(ctx, source.get("customer_id"))
        if customer is None:
            raise _Refusal(error(INVALID_CUSTOMER))
        return customer, None
    raise _Refusal(error(MISSING_OWNER))


def resolved(customer: Customer, order: DomainOrder | None) -> dict[str, dict[str, str]]:
    defaults = {contact.role: contact for contact in Contact.objects.filter(customer=customer, order=None)}
    own = {contact.role: contact for contact in order.contacts.all()} if order is not None else {}
    return {role: (own.get(role) or defaults.get(role) or customer).details() for role in Contact.ROLES}


def _body(customer: Customer, order: DomainOrder | None) -> dict[str, Any]:
    head = {"order_id": order.order_id, "domain_name": order.domain_name} if order is not None else {}
    return {**head, "customer_id": customer.customer_id, "contacts": resolved(customer, order)}


def _cleaned(given: Any) -> dict[str, dict[str, str]] | None:
    """Each role's contact cleaned by the signup's rules; None when a role is unknown or a contact breaks a rule."""
    if not isinstance(given, dict) or not given or not set(given) <= set(Contact.ROLES):
        return None
    cleaned = {}
    for role, fields in given.items():
        details = clean_details(fields) if isinstance(fields, dict) else None
        if details is None:
            return None
        cleaned[role] = details
    return cleaned


@endpoint(methods=("GET", "POST"), groups=("contacts",))
def contacts(request: HttpRequest, ctx: Context) -> JsonResponse:
    source = request.GET if request.method == "GET" else json_body(request)
    try:
        customer, order = _owner(ctx, source)
    except _Refusal as refusal:
        return refusal.response
    if request.method == "GET":
        return JsonResponse(_body(customer, order))
    if order is not None and order.listed_status(timezone.now()) != DomainOrder.ACTIVE:
        return error(CONTACTS_FAILED)
    cleaned = _cleaned(source.get("contacts"))
    if cleaned is None:
        return error(SIGNUP_FAILED)
    with transaction.atomic():
        for role, details in cleaned.items():
            Contact.objects.update_or_create(customer=customer, order=order, role=role, defaults=details)
    return success("Contacts updated", **_body(customer, order))
