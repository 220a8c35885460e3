"""Register, list, renew, and the transfer code: the orders of a partner's customers."""

from __future__ import annotations

import secrets
import string
from decimal import Decimal

from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, as_int, endpoint, error, json_body, success
from sandbox.catalogue import LABEL, Catalogue, add_years, short_date
from sandbox.models import Customer, DomainOrder, Partner

PAGE_SIZE = 10
INVALID_CUSTOMER = "Invalid customer ID"
INVALID_ORDER = "Invalid order ID"
UNABLE = "Unable to register domain"
# The provider documents one register refusal text for a taken name and a failed settlement alike.
INSUFFICIENT = UNABLE
RENEW_FAILED = "Failed to renew the domain order"


class Refused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Restricted(Refused):
    """The TLD's registry requirements were not given (the provider: "a register call that misses one is refused
    with a 422 naming the missing fields"). Named in Laravel's validation shape, under the provider's usual body."""

    def __init__(self, tld: str, restrictions: object) -> None:
        if isinstance(restrictions, dict):
            self.fields = [str(name) for name in restrictions]
        elif isinstance(restrictions, list):
            self.fields = [str(name) for name in restrictions]
        else:
            self.fields = [str(restrictions)]
        self.tld = tld
        super().__init__(f"The registration requirements of .{tld} are not met: missing {', '.join(self.fields)}")

    def answer(self) -> JsonResponse:
        errors = {
            name: [f"The {name.replace('_', ' ')} field is required for .{self.tld} domains."] for name in self.fields
        }
        return JsonResponse({"status": "ERROR", "message": self.message, "errors": errors}, status=422)


def transfer_code() -> str:
    """An EPP-style authorisation code: 12 characters with every character class."""
    classes = [string.ascii_uppercase, string.ascii_lowercase, string.digits, "#!@$%*+"]
    chars = [secrets.choice(group) for group in classes]
    chars += [secrets.choice("".join(classes)) for _ in range(8)]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def settle(partner: Partner, environment: str, amount: Decimal) -> None:
    """Take `amount` from the partner's balance of this environment, or refuse.

    One conditional UPDATE, so two concurrent settlements can never both spend the same money.
    """
    field = partner.balance_field(environment)
    charged = Partner.objects.filter(pk=partner.pk, **{f"{field}__gte": amount}).update(**{field: F(field) - amount})
    if not charged:
        raise Refused(INSUFFICIENT)


def owned_customer(ctx: Context, value: object) -> Customer | None:
    customer_id = as_int(value)
    if customer_id is None:
        return None
    return Customer.objects.filter(partner=ctx.partner, environment=ctx.environment, customer_id=customer_id).first()


def owned_order(ctx: Context, value: object) -> DomainOrder | None:
    order_id = as_int(value)
    if order_id is None:
        return None
    return DomainOrder.objects.filter(
        partner=ctx.partner, environment=ctx.environment, order_id=order_id, status__in=DomainOrder.LISTED
    ).first()


def _record_failure(ctx: Context, customer: Customer, domain_name: str, duration: int, reason: str) -> None:
    # Failed orders are kept (staff can see them in the admin) but never listed.
    DomainOrder.objects.create(
        partner=ctx.partner,
        environment=ctx.environment,
        customer=customer,
        domain_name=domain_name[:255],
        duration=max(0, min(duration, 10)),
        status=DomainOrder.FAILED,
        failure_reason=reason,
    )


@endpoint(methods=("POST",), groups=("register", "domains"))
def register(request: HttpRequest, ctx: Context) -> JsonResponse:
    data = json_body(request)
    customer = owned_customer(ctx, data.get("customer_id"))
    if customer is None:
        return error(INVALID_CUSTOMER)
    raw_name = data.get("domain_name")
    domain_name = raw_name.strip().lower().rstrip(".") if isinstance(raw_name, str) else ""
    duration = as_int(data.get("duration"))
    try:
        order = _register(ctx, customer, domain_name, duration)
    except Restricted as refusal:
        _record_failure(ctx, customer, domain_name, duration or 0, refusal.message)
        return refusal.answer()
    except Refused as refusal:
        _record_failure(ctx, customer, domain_name, duration or 0, refusal.message)
        return error(refusal.message)
    except IntegrityError:
        # Someone registered the same name a moment earlier: the unique constraint let only one through.
        _record_failure(ctx, customer, domain_name, duration or 0, "registered concurrently")
        return error(UNABLE)
    return success("Domain registered successfully", order_id=order.order_id)


def _register(ctx: Context, customer: Customer, domain_name: str, duration: int | None) -> DomainOrder:
    if duration is None or not 1 <= duration <= 10:
        raise Refused(UNABLE)
    sld, _, tld_name = domain_name.partition(".")
    if not domain_name or len(domain_name) > 80 or not LABEL.match(sld):
        raise Refused(UNABLE)
    catalogue = Catalogue(ctx.partner, ctx.environment)
    entry = catalogue.tld(tld_name) if tld_name else None
    if entry is None:
        raise Refused(UNABLE)
    if duration < entry.min_term:
        raise Refused(UNABLE)
    if entry.restrictions:
        raise Restricted(entry.tld, entry.restrictions)
    if not catalogue.check_one(sld, entry).available:
        raise Refused(UNABLE)
    amount = entry.register_cost(duration)
    now = timezone.now().replace(microsecond=0)
    with transaction.atomic():
        # Settlement comes first: if it fails nothing is registered.
        settle(ctx.partner, ctx.environment, amount)
        for _ in range(5):
            order = DomainOrder(
                partner=ctx.partner,
                environment=ctx.environment,
                customer=customer,
                domain_name=domain_name,
                duration=duration,
                amount=amount,
                status=DomainOrder.ACTIVE,
                created_at=now,
                expires_at=add_years(now, duration),
                transfer_code=transfer_code(),
            )
            if not DomainOrder.objects.filter(order_id=order.order_id).exists():
                break
        order.save()
    return order


@endpoint(methods=("GET",), groups=("orders", "domains"))
def orders(request: HttpRequest, ctx: Context) -> JsonResponse:
    customer = owned_customer(ctx, request.GET.get("customer_id"))
    if customer is None:
        return error(INVALID_CUSTOMER)
    page_number = max(1, as_int(request.GET.get("page")) or 1)
    listed = DomainOrder.objects.filter(customer=customer, status__in=DomainOrder.LISTED)
    search = request.GET.get("search", "").strip().lower()
    if search:
        listed = listed.filter(domain_name__icontains=search)
    paginator = Paginator(listed.order_by("-created_at", "-id"), PAGE_SIZE)
    rows = paginator.page(page_number).object_list if page_number <= paginator.num_pages else []
    now = timezone.now()
    return JsonResponse(
        {
            "total_orders": paginator.count,
            "orders_on_page": len(rows),
            "orders": [
                {
                    "order_id": order.order_id,
                    "domain_name": order.domain_name,
                    "status": order.listed_status(now),
                    "expiry": short_date(order.expires_at) if order.expires_at else "",
                    "expiry_timestamp": order.expiry_timestamp,
                }
                for order in rows
            ],
        }
    )


@endpoint(methods=("POST",), groups=("renew", "domains"))
def renew(request: HttpRequest, ctx: Context) -> JsonResponse:
    data = json_body(request)
    order = owned_order(ctx, data.get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    duration = as_int(data.get("duration"))
    if duration is None or not 1 <= duration <= 9:
        return error(RENEW_FAILED)
    if as_int(data.get("expiry_timestamp")) != order.expiry_timestamp:
        return error("Invalid current expiry timestamp")
    if order.status == DomainOrder.PENDING_DELETE:
        return error(RENEW_FAILED)
    entry = Catalogue(ctx.partner, ctx.environment).tld(order.domain_name.partition(".")[2])
    if entry is None:
        return error(RENEW_FAILED)
    if duration < entry.min_term:
        return error(RENEW_FAILED)
    try:
        with transaction.atomic():
            settle(ctx.partner, ctx.environment, entry.renew_cost(duration))
            locked = DomainOrder.objects.select_for_update().get(pk=order.pk)
            if locked.expiry_timestamp != order.expiry_timestamp:
                raise Refused("Invalid current expiry timestamp")  # renewed by a concurrent request
            locked.expires_at = add_years(locked.expires_at, duration)
            if locked.status == DomainOrder.EXPIRED:
                locked.status = DomainOrder.ACTIVE
            locked.save(update_fields=["expires_at", "status"])
    except Refused as refusal:
        # A failed settlement is the register text elsewhere; a renewal says its own documented text.
        return error(RENEW_FAILED if refusal.message == INSUFFICIENT else refusal.message)
    return success("Domain order renewed")


@endpoint(methods=("GET",), groups=("transfers",))
def auth_code(request: HttpRequest, ctx: Context) -> JsonResponse:
    order = owned_order(ctx, request.GET.get("order_id"))
    if order is None:
        return error(INVALID_ORDER)
    if not order.transfer_code:
        order.transfer_code = transfer_code()
        order.save(update_fields=["transfer_code"])
    return JsonResponse({"order_id": order.order_id, "transfer_code": order.transfer_code})
