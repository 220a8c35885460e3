"""DNS: activate once per order, list by type, and add/modify/delete A, AAAA, CNAME, MX and TXT records.

Bodies are the provider's OpenAPI ones: add {order_id, value, host, time_to_live, priority (MX)}, modify
{order_id, current_value, new_value, host, time_to_live, priority}, delete {order_id, value, host}.
Host `@` or empty is the apex, stored as `@`. Values are stored normalised (IPv6 compressed, hostnames in
lower case without the trailing dot) so that modify and delete find a record however it is spelled.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, as_int, endpoint, error, json_body, success
from sandbox.models import DnsRecord, DomainOrder
from sandbox.views.domains import INVALID_ORDER, owned_order

NAMESERVERS = ("ns1.sandbox-dns.test", "ns2.sandbox-dns.test")
ZONE_DEFAULT_TTL = 3600
MIN_TTL = 300
MAX_TTL = 2_147_483_647
MAX_TXT = 4096
NOT_ACTIVE = "DNS service is not active for this order"
DUPLICATE = "Duplicate record found"
CNAME_CONFLICT = "A CNAME record cannot coexist with other records on the same host"
_HOST_LABEL = re.compile(r"^(?:\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$")
_NAME_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?$")


class Invalid(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _dns_order(ctx: Context, value: object) -> DomainOrder:
    order = owned_order(ctx, value)
    if order is None:
        raise Invalid(INVALID_ORDER)
    if not order.dns_active:
        raise Invalid(NOT_ACTIVE)
    return order


def _host(value: Any, zone: str) -> str:
    if value is None:
        return "@"
    if not isinstance(value, str):
        raise Invalid("Invalid host")
    host = value.strip().lower().rstrip(".")
    if host in ("", "@", zone):
        return "@"
    host = host.removesuffix(f".{zone}")
    labels = host.split(".")
    if len(host) > 253 or not all(_HOST_LABEL.match(label) for label in labels) or "*" in labels[1:]:
        raise Invalid("Invalid host")
    return host


def _hostname(value: str) -> str:
    name = value.strip().lower().rstrip(".")
    labels = name.split(".")
    if len(name) > 253 or len(labels) < 2 or not all(_NAME_LABEL.match(label) for label in labels):
        raise Invalid("Invalid hostname: a fully qualified domain name is expected")
    return name


def _value(record_type: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid("The value field is required")
    if record_type == "A":
        try:
            return str(ipaddress.IPv4Address(value.strip()))
        except ValueError as err:
            raise Invalid("Invalid IPv4 address") from err
    if record_type == "AAAA":
        try:
            return ipaddress.IPv6Address(value.strip()).compressed
        except ValueError as err:
            raise Invalid("Invalid IPv6 address") from err
    if record_type in ("CNAME", "MX"):
        return _hostname(value)
    if len(value) > MAX_TXT:
        raise Invalid(f"TXT value must be at most {MAX_TXT} characters")
    return value


def _ttl(data: dict[str, Any]) -> int | None:
    raw = data.get("time_to_live")
    if raw is None or raw == "":
        return None
    ttl = as_int(raw)
    if ttl is None or ttl > MAX_TTL:
        raise Invalid("Invalid TTL")
    if ttl < MIN_TTL:
        raise Invalid(f"TTL must be at least {MIN_TTL} seconds")
    return ttl


def _priority(record_type: str, data: dict[str, Any]) -> int | None:
    raw = data.get("priority")
    if record_type != "MX" or raw is None or raw == "":
        return None
    priority = as_int(raw)
    if priority is None or not 0 <= priority <= 65535:
        raise Invalid("Invalid priority")
    return priority


@endpoint(methods=("POST",), groups=("dns",))
def activate(request: HttpRequest, ctx: Context) -> JsonResponse:
    order = owned_order(ctx, json_body(request).get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    with transaction.atomic():
        # One activation wins even when two arrive together.
        if not DomainOrder.objects.filter(pk=order.pk, dns_active=False).update(dns_active=True):
            return error("DNS service is already active")
        serial = timezone.now().strftime("%Y%m%d01")
        for nameserver in NAMESERVERS:
            DnsRecord.objects.create(order=order, type="NS", host="@", value=nameserver, time_to_live=86400)
        soa = f"{NAMESERVERS[0]}. hostmaster.{order.domain_name}. {serial} 7200 3600 1209600 {ZONE_DEFAULT_TTL}"
        DnsRecord.objects.create(order=order, type="SOA", host="@", value=soa, time_to_live=ZONE_DEFAULT_TTL)
    return success("DNS service activated successfully")


@endpoint(methods=("GET",), groups=("dns",))
def records(request: HttpRequest, ctx: Context) -> JsonResponse:
    try:
        order = _dns_order(ctx, request.GET.get("order_id"))
    except Invalid as problem:
        return error(problem.message)
    record_type = (request.GET.get("record_type") or "A").strip().upper()
    if record_type not in DnsRecord.TYPES:
        return error("Invalid record type")
    rows = []
    for record in order.dns_records.filter(type=record_type).order_by("created_at", "id"):
        row = {
            "type": record.type,
            "host": record.host,
            "value": record.value,
            "time_to_live": record.time_to_live,
            "status": record.status,
        }
        if record.type in ("MX", "SRV"):
            row["priority"] = record.priority
        rows.append(row)
    return JsonResponse({"dns_records": rows})


def record_endpoint(record_type: str):
    """`/api/v1/dns/<type>-record`: POST adds, PUT modifies, DELETE deletes."""

    @endpoint(methods=("POST", "PUT", "DELETE"), groups=("dns",))
    def record(request: HttpRequest, ctx: Context) -> JsonResponse:
        data = json_body(request)
        try:
            order = _dns_order(ctx, data.get("order_id"))
            with transaction.atomic():
                locked = DomainOrder.objects.select_for_update().get(pk=order.pk)
                if request.method == "POST":
                    return _add(locked, record_type, data)
                if request.method == "PUT":
                    return _modify(locked, record_type, data)
                return _delete(locked, record_type, data)
        except Invalid as problem:
            return error(problem.message)

    record.__name__ = f"{record_type.lower()}_record"
    return record


def _add(order: DomainOrder, record_type: str, data: dict[str, Any]) -> JsonResponse:
    value = _value(record_type, data.get("value"))
    host = _host(data.get("host"), order.domain_name)
    ttl = _ttl(data)
    priority = _priority(record_type, data)
    if record_type == "CNAME" and host == "@":
        raise Invalid("A CNAME record is not allowed at the zone apex")
    same_host = order.dns_records.filter(host=host)
    if same_host.filter(type=record_type, value=value).exists():
        raise Invalid(DUPLICATE)
    if (record_type == "CNAME" and same_host.exists()) or same_host.filter(type="CNAME").exists():
        raise Invalid(CNAME_CONFLICT)
    DnsRecord.objects.create(
        order=order,
        type=record_type,
        host=host,
        value=value,
        time_to_live=ttl or ZONE_DEFAULT_TTL,
        priority=(10 if priority is None else priority) if record_type == "MX" else None,
    )
    return success("Record added successfully")


def _find(order: DomainOrder, record_type: str, host: str, raw_value: Any) -> DnsRecord | None:
    try:
        value = _value(record_type, raw_value)
    except Invalid:
        return None
    return order.dns_records.filter(type=record_type, host=host, value=value).first()


def _modify(order: DomainOrder, record_type: str, data: dict[str, Any]) -> JsonResponse:
    host = _host(data.get("host"), order.domain_name)
    record = _find(order, record_type, host, data.get("current_value"))
    if record is None:
        raise Invalid("Failed to modify the record")
    new_value = _value(record_type, data.get("new_value"))
    ttl = _ttl(data)
    priority = _priority(record_type, data)
    if new_value != record.value and order.dns_records.filter(type=record_type, host=host, value=new_value).exists():
        raise Invalid(DUPLICATE)
    record.value = new_value
    if ttl is not None:
        record.time_to_live = ttl
    if priority is not None:
        record.priority = priority
    record.save()
    return success("Record modified successfully")


def _delete(order: DomainOrder, record_type: str, data: dict[str, Any]) -> JsonResponse:
    try:
        host = _host(data.get("host"), order.domain_name)
    except Invalid:
        host = ""
    record = _find(order, record_type, host, data.get("value"))
    if record is None:
        raise Invalid("Failed to delete the record")
    record.delete()
    return success("Record deleted successfully")
