"""A registered domain's details and what its owner changes: delete, transfer lock, WHOIS privacy.

"Coming soon" at the provider (`GET /api/v1/domains/details`, `POST /api/v1/domains/delete`,
`PUT /api/v1/transfers/lock`, `POST` and `PUT /api/v1/privacy-protection`), each described by one sentence; the
bodies, answers and refusal texts are the sandbox's own, in the provider's manner (sandbox/README.md). Every
answer to a change names the order and the state it left, so a client can tell it from a bare placeholder 200.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, as_bool, as_int, endpoint, error, json_body, success
from sandbox.catalogue import MAX_TERM, add_years, privacy_price, short_date
from sandbox.models import DomainOrder
from sandbox.views.domains import INVALID_ORDER, Refused, owned_order, settle

DELETE_FAILED = "Failed to delete the domain order"
LOCK_FAILED = "Failed to update the transfer lock"
PRIVACY_PURCHASE_FAILED = "Failed to purchase privacy protection"
PRIVACY_UPDATE_FAILED = "Failed to update privacy protection"
PRIVACY_NOT_PURCHASED = "Privacy protection has not been purchased for this domain"
# Laravel's `boolean` rule sentence, as the provider's validation answers word theirs.
NOT_A_BOOLEAN = "The {} field must be true or false."
# Only these may be deleted; a suspended order is frozen and a pending delete is already on its way.
DELETABLE = (DomainOrder.ACTIVE, DomainOrder.EXPIRED)


def _date(moment: dt.datetime | None) -> str | None:
    return short_date(moment) if moment else None


def _timestamp(moment: dt.datetime | None) -> int | None:
    return int(moment.timestamp()) if moment else None


def privacy_state(order: DomainOrder, now: dt.datetime) -> dict[str, Any]:
    purchased = order.privacy_purchased(now)
    return {
        "purchased": purchased,
        "enabled": purchased and order.privacy_enabled,
        "expiry": _date(order.privacy_expires_at),
        "expiry_timestamp": _timestamp(order.privacy_expires_at),
    }


@endpoint(methods=("GET",), groups=("orders", "domains"))
def details(request: HttpRequest, ctx: Context) -> JsonResponse:
    order = owned_order(ctx, request.GET.get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    now = timezone.now()
    return JsonResponse(
        {
            "order_id": order.order_id,
            "domain_name": order.domain_name,
            "customer_id": order.customer.customer_id,
            "status": order.listed_status(now),
            "registered": _date(order.created_at),
            "registered_timestamp": _timestamp(order.created_at),
            "expiry": _date(order.expires_at),
            "expiry_timestamp": order.expiry_timestamp,
            "transfer_lock": order.transfer_lock,
            "dns_active": order.dns_active,
            "privacy_protection": privacy_state(order, now),
        }
    )


@endpoint(methods=("POST",), groups=("domains",))
def delete(request: HttpRequest, ctx: Context) -> JsonResponse:
    """The order goes to Pending Delete Restorable, as a registry deletion does: still listed, the name still held
    (staff release it by setting Deleted in the admin). Nothing is refunded: the provider documents no refund."""
    order = owned_order(ctx, json_body(request).get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    # One conditional UPDATE: of two concurrent deletes, the second finds nothing left to delete.
    deleted = DomainOrder.objects.filter(pk=order.pk, status__in=DELETABLE).update(status=DomainOrder.PENDING_DELETE)
    if not deleted:
        return error(DELETE_FAILED)
    return success("Domain order deleted", order_id=order.order_id, order_status=DomainOrder.PENDING_DELETE)


@endpoint(methods=("PUT",), groups=("transfers",))
def transfer_lock(request: HttpRequest, ctx: Context) -> JsonResponse:
    data = json_body(request)
    order = owned_order(ctx, data.get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    locked = as_bool(data.get("locked"))
    if locked is None:
        return error(NOT_A_BOOLEAN.format("locked"))
    if order.listed_status(timezone.now()) != DomainOrder.ACTIVE:
        return error(LOCK_FAILED)
    DomainOrder.objects.filter(pk=order.pk).update(transfer_lock=locked)
    message = "Transfer lock enabled" if locked else "Transfer lock disabled"
    return success(message, order_id=order.order_id, transfer_lock=locked)


@endpoint(methods=("POST", "PUT"), groups=("privacy",))
def privacy(request: HttpRequest, ctx: Context) -> JsonResponse:
    data = json_body(request)
    order = owned_order(ctx, data.get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    if request.method == "POST":
        return _privacy_purchase(ctx, order, data)
    return _privacy_switch(order, data)


def _privacy_purchase(ctx: Context, order: DomainOrder, data: dict[str, Any]) -> JsonResponse:
    """Adds or renews privacy for `duration` years at the price list's `privacy_protection` a year, settled
    against the partner's balance first (nothing changes when that fails); a purchase switches privacy on."""
    duration = as_int(data.get("duration"))
    now = timezone.now().replace(microsecond=0)
    if duration is None or not 1 <= duration <= MAX_TERM or order.listed_status(now) != DomainOrder.ACTIVE:
        return error(PRIVACY_PURCHASE_FAILED)
    try:
        with transaction.atomic():
            settle(ctx.partner, ctx.environment, privacy_price(ctx.partner) * duration)
            locked = DomainOrder.objects.select_for_update().get(pk=order.pk)
            paid_until = locked.privacy_expires_at
            locked.privacy_expires_at = add_years(max(now, paid_until) if paid_until else now, duration)
            locked.privacy_enabled = True
            locked.save(update_fields=["privacy_expires_at", "privacy_enabled"])
    except Refused:
        return error(PRIVACY_PURCHASE_FAILED)
    return success(
        "Privacy protection purchased", order_id=order.order_id, privacy_protection=privacy_state(locked, now)
    )


def _privacy_switch(order: DomainOrder, data: dict[str, Any]) -> JsonResponse:
    enabled = as_bool(data.get("enabled"))
    if enabled is None:
        return error(NOT_A_BOOLEAN.format("enabled"))
    now = timezone.now()
    if order.listed_status(now) != DomainOrder.ACTIVE:
        return error(PRIVACY_UPDATE_FAILED)
    if not order.privacy_purchased(now):
        return error(PRIVACY_NOT_PURCHASED)
    order.privacy_enabled = enabled
    order.save(update_fields=["privacy_enabled"])
    message = "Privacy protection enabled" if enabled else "Privacy protection disabled"
    return success(message, order_id=order.order_id, privacy_protection=privacy_state(order, now))
