"""DNS work that calls the provider and keeps our copy of the order in step. Views stay small."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.cache import cache
from django.utils.translation import gettext

from accounts.staff.activity import activity_record
from domains.models import Order
from domains.orders.payment_marks import order_unlocked_check
from storefront.gateway import (
    DnsNotActive,
    DnsRecord,
    DuplicateRecord,
    GatewayError,
    OutcomeUnknown,
    RateLimited,
    RecordType,
    ValidationRejected,
    gateway,
)
from storefront.resilience.cache_versions import cache_version, cache_version_bump

__all__ = ["DnsNotActive"]  # re-exported: views catch it from here

ZONE_CACHE_SECONDS = 30
# The longest a zone read waits for the provider's rate limit to pass before the page says it is busy.
ZONE_RATE_WAIT_SECONDS = 2.5


@dataclass(frozen=True)
class RecordData:
    type: RecordType
    host: str
    value: str
    ttl: int | None = None
    priority: int | None = None

    @property
    def logged(self) -> str:
        """The record as the activity log keeps it (the same in every language): `MX @ → mx1.example.net (10)`."""
        priority = f" ({self.priority})" if self.priority is not None else ""
        return f"{self.type} {self.host or '@'} → {self.value}{priority}"

    def describe(self) -> str:
        """How the record is named to the customer: `MX record @ → mx1.example.net (priority 10)`."""
        params = {"type": self.type, "host": self.host or "@", "value": self.value, "priority": self.priority}
        if self.type == "MX" and self.priority is not None:
            return gettext("%(type)s record %(host)s → %(value)s (priority %(priority)s)") % params
        return gettext("%(type)s record %(host)s → %(value)s") % params

    def already_exists(self) -> str:
        """The sentence for the provider's bare "Duplicate record found": which record is already there."""
        # "An A", "An MX", "A CNAME": the article follows how the type's first letter is spoken.
        host = gettext("the domain itself (@)") if self.host in ("", "@") else self.host
        params = {"type": self.type, "host": host, "value": self.value}
        if self.type[:1] in "AEFHILMNORSX":
            return gettext("An %(type)s record for %(host)s pointing to %(value)s already exists.") % params
        return gettext("A %(type)s record for %(host)s pointing to %(value)s already exists.") % params


@dataclass(frozen=True)
class Outcome:
    record: RecordData
    ok: bool
    message: str
    action: str = "add"  # add, change or remove: what was asked of the provider


def _call(order: Order, call, *, changes: bool = False):
    """Run one provider call for the order, unless DNS is not active for it (nothing can succeed then).

    The provider documents no "not active" text, so our own record of the activation decides. A call that
    `changes` the zone forgets its kept reads, whatever the answer (a lost one may have changed it).
    """
    if changes:
        order_unlocked_check(order=order)  # a refunded domain's zone is not the customer's to change any more
    if not order.dns_active:
        raise DnsNotActive()
    try:
        return call()
    finally:
        if changes:
            zone_cache_forget(order=order)


def _active_at_provider(order: Order) -> bool:
    """Whether the provider reads the order's records: how a refused activation is told from "already active"."""
    try:
        gateway().dns_records(order_id=order.order_id, record_type="NS")
    except GatewayError:
        return False
    return True


def dns_activate(*, order: Order) -> bool:
    """Activate DNS for the order, at most once. True if this call activated it, False if it already was.

    The flag is claimed with a conditional update before the provider is called, so a double submit or two
    tabs make one provider call; no database lock is held while the provider answers.
    """
    order_unlocked_check(order=order)
    claimed = Order.objects.filter(pk=order.pk, dns_active=False).update(dns_active=True)
    if not claimed:
        order.dns_active = True
        return False
    try:
        gateway().dns_activate(order_id=order.order_id)
    except GatewayError as err:
        zone_cache_forget(order=order)
        if isinstance(err, ValidationRejected) and _active_at_provider(order):
            return False  # refused because it already was active (the flag stays claimed)
        # Released even when the outcome is unknown: activating again is harmless (the provider then
        # refuses and the records read above tells us it is active), while a stuck flag would hide the button.
        Order.objects.filter(pk=order.pk).update(dns_active=False)
        order.dns_active = False
        raise
    zone_cache_forget(order=order)  # its nameservers and SOA are there now
    # A records read that raced the activation may have cleared the flag meanwhile.
    Order.objects.filter(pk=order.pk).update(dns_active=True)
    order.dns_active = True
    activity_record(action="dns_activated", order=order)
    return True


def records_list(*, order: Order, record_type: RecordType) -> list[DnsRecord]:
    """The order's records of one type. Raises DnsNotActive (and clears our flag) when the provider turns the
    read away with anything but its one documented refusal (`Invalid order ID`, NotFound): by the contract a
    read fails only for a foreign order or before activation, so activation is what is missing."""
    try:
        records = _call(order, lambda: gateway().dns_records(order_id=order.order_id, record_type=record_type))
    except ValidationRejected as err:
        if type(err) is not ValidationRejected:
            raise
        Order.objects.filter(pk=order.pk).update(dns_active=False)
        order.dns_active = False
        zone_cache_forget(order=order)
        raise DnsNotActive(err.provider_message, status=err.status) from err
    return sorted(records, key=lambda r: (r.host not in ("@", ""), r.host, r.priority or 0, r.value))


def _records_waiting(order: Order, record_type: RecordType) -> list[DnsRecord]:
    """One type's records; past the provider's rate limit (the whole zone is eight reads, and the limit is shared
    with every customer), a read waits for it once, if that is short, rather than failing the page."""
    try:
        return records_list(order=order, record_type=record_type)
    except RateLimited as err:
        wait = err.retry_after if err.retry_after is not None else 1.0
        if wait > ZONE_RATE_WAIT_SECONDS:
            raise
        time.sleep(wait)
        return records_list(order=order, record_type=record_type)


def _zone_version_key(order: Order) -> str:
    return f"dns:zone-version:{order.order_id}"


def zone_cache_forget(*, order: Order) -> None:
    """Forget the order's kept zone reads: after any change made here (even one whose answer was lost)."""
    cache_version_bump(_zone_version_key(order))


def zone_records(*, order: Order, record_types: Sequence[RecordType]) -> list[DnsRecord]:
    """The order's records of these types as one list: the apex first, then by host, type (in the order given),
    priority and value.

    The provider lists one type per call, so the whole zone is eight calls, against a rate limit every customer
    shares (10 requests a second per key, provider notes): a read is kept for ZONE_CACHE_SECONDS, and each change
    made through the store forgets it at once. Changes made elsewhere (the provider's panel) show within that time.
    """
    key = f"dns:zone:{order.order_id}:{cache_version(_zone_version_key(order))}:{','.join(record_types)}"
    kept: list[DnsRecord] | None = cache.get(key)
    if kept is not None:
        return kept
    position: dict[str, int] = {record_type: index for index, record_type in enumerate(record_types)}
    records = [record for record_type in record_types for record in _records_waiting(order, record_type)]
    records.sort(key=lambda r: (r.host not in ("@", ""), r.host, position.get(r.type, 99), r.priority or 0, r.value))
    cache.set(key, records, ZONE_CACHE_SECONDS)
    return records


def nameservers(records: Sequence[DnsRecord]) -> list[str]:
    """The zone's own nameservers (its NS records at the apex), as the provider lists them."""
    return sorted({r.value.rstrip(".") for r in records if r.type == "NS" and r.host in ("@", "")})


def record_add(*, order: Order, record: RecordData) -> None:
    _call(
        order,
        changes=True,
        call=lambda: gateway().dns_record_add(
            order_id=order.order_id,
            record_type=record.type,
            value=record.value,
            host=record.host,
            ttl=record.ttl,
            priority=record.priority,
        ),
    )
    activity_record(action="dns_record_added", order=order, detail={"record": record.logged})


def record_change(*, order: Order, record: RecordData, current_value: str) -> None:
    _call(
        order,
        changes=True,
        call=lambda: gateway().dns_record_modify(
            order_id=order.order_id,
            record_type=record.type,
            current_value=current_value,
            new_value=record.value,
            host=record.host,
            ttl=record.ttl,
            priority=record.priority,
        ),
    )
    activity_record(action="dns_record_changed", order=order, detail={"record": record.logged, "old": current_value})


def record_delete(*, order: Order, record_type: RecordType, host: str, value: str) -> None:
    _call(
        order,
        changes=True,
        call=lambda: gateway().dns_record_delete(
            order_id=order.order_id, record_type=record_type, value=value, host=host
        ),
    )
    logged = RecordData(type=record_type, host=host, value=value).logged
    activity_record(action="dns_record_removed", order=order, detail={"record": logged})


def records_add_each(*, order: Order, records: list[RecordData]) -> list[Outcome]:
    """Add the records one by one and say how each went; one refusal does not stop the others.

    Stops early only when DNS turns out not to be active, since nothing else can succeed then.
    """
    outcomes: list[Outcome] = []
    for position, record in enumerate(records):
        try:
            record_add(order=order, record=record)
        except DnsNotActive as err:
            outcomes.append(Outcome(record=record, ok=False, message=str(err.message)))
            outcomes += [Outcome(record=r, ok=False, message=gettext("Not sent.")) for r in records[position + 1 :]]
            break
        except OutcomeUnknown as err:
            outcomes.append(Outcome(record=record, ok=False, message=_check_the_list(err)))
        except GatewayError as err:
            outcomes.append(Outcome(record=record, ok=False, message=_outcome_message(err, record)))
        else:
            outcomes.append(Outcome(record=record, ok=True, message=gettext("Added.")))
    return outcomes


def records_replace(
    *,
    order: Order,
    add: list[RecordData],
    change: list[tuple[RecordData, RecordData]],
    remove: list[RecordData],
) -> list[Outcome]:
    """Add, then change, then remove, and say how each went.

    Removal comes last and only when everything before it worked: if the new mail server could not be added,
    the old one stays, so the domain keeps receiving mail rather than receiving none.
    """
    outcomes = records_add_each(order=order, records=add)
    for current, new in change:
        # A "not active" answer on the way cleared the order's flag (see _call): nothing else can succeed.
        if not order.dns_active:
            outcomes.append(Outcome(record=new, ok=False, message=gettext("Not sent."), action="change"))
            continue
        try:
            record_change(order=order, record=new, current_value=current.value)
        except GatewayError as err:
            outcomes.append(Outcome(record=new, ok=False, message=_outcome_message(err, new), action="change"))
        else:
            outcomes.append(
                Outcome(
                    record=new,
                    ok=True,
                    message=gettext("Changed from %(value)s.") % {"value": current.value},
                    action="change",
                )
            )
    all_done = all(o.ok for o in outcomes)
    for record in remove:
        if not all_done or not order.dns_active:
            message = gettext("Not removed, because a change above did not go through: the old record stays in place.")
            outcomes.append(Outcome(record=record, ok=False, message=message, action="remove"))
            continue
        try:
            record_delete(order=order, record_type=record.type, host=record.host, value=record.value)
        except GatewayError as err:
            outcomes.append(Outcome(record=record, ok=False, message=_outcome_message(err), action="remove"))
        else:
            outcomes.append(Outcome(record=record, ok=True, message=gettext("Removed."), action="remove"))
    return outcomes


def refusal_message(*, err: GatewayError, record: RecordData) -> str | None:
    """Our sentence for a refusal that is about this very record, or None when the error's own message fits."""
    if isinstance(err, DuplicateRecord):
        return record.already_exists()
    return None


def _outcome_message(err: GatewayError, record: RecordData | None = None) -> str:
    exact = refusal_message(err=err, record=record) if record is not None else None
    if exact:
        return exact
    if isinstance(err, OutcomeUnknown):
        return _check_the_list(err)
    return str(err.message)


def _check_the_list(err: GatewayError) -> str:
    return gettext("%(reason)s Check the list before retrying.") % {"reason": err.message}
