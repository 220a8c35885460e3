"""/api/v1/: the operations, each a short typed function over a model query (docs/api.md).

Lists page by cursor (reseller_api/paging.py); a detail is 404 when there is no such row. Every operation needs a
key (reseller_api/auth.py): read for all, write for the auto-renew switch.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, NinjaAPI, Query, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.params import P, PathEx

from accounts.models import Activity, Customer
from accounts.staff.activity import acting
from billing.models import LedgerEntry, Payment
from domains.models import Order
from domains.orders.auto_renew import order_auto_renew_set
from reseller_api import paging, schemas
from reseller_api.auth import ApiKeyBearer, RateLimited, key_actor
from reseller_api.models import ApiKey
from reseller_api.paging import Page, month_bounds, page_of
from storefront.errors import StoreError

api = NinjaAPI(
    title="Domain store staff API",
    version="1",
    description="The store's data for the reseller's own systems. Keys are made by staff in the admin (docs/api.md).",
    urls_namespace="reseller_api",
    auth=ApiKeyBearer(),
    # The interactive docs page loads its script from a CDN, which the site's CSP refuses: the schema is enough.
    docs_url=None,
)

_ERRORS: dict[int, Any] = {400: schemas.ErrorOut, 401: schemas.ErrorOut, 429: schemas.ErrorOut}
_DETAIL_ERRORS: dict[int, Any] = {**_ERRORS, 404: schemas.ErrorOut}
Id = PathEx[int, P(ge=1, le=paging.ID_MAX)]


@api.exception_handler(AuthenticationError)
def _unauthorised(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = api.create_response(
        request, {"detail": "A valid API key is needed: Authorization: Bearer …"}, status=401
    )
    response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(RateLimited)
def _rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    detail = f"Too many requests with this key: try again in {exc.wait} seconds."
    response = api.create_response(request, {"detail": detail}, status=429)
    response["Retry-After"] = str(exc.wait)
    return response


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    # A 400 that names each bad field, instead of django-ninja's 422 with pydantic's own error objects.
    problems = "; ".join(f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}" for error in exc.errors)
    return api.create_response(request, {"detail": f"Invalid request: {problems}"}, status=400)


F = TypeVar("F", bound="PageIn")


def _known(request: HttpRequest, filters: F) -> F:
    """The filters, once no other query parameter was sent: a misspelt filter (`?months=`) would otherwise list
    everything, as if it were not there."""
    unknown = sorted(set(request.GET) - set(type(filters).model_fields))
    if unknown:
        raise HttpError(400, f"Unknown query parameter(s): {', '.join(unknown)}.")
    return filters


class PageIn(Schema):
    cursor: str = Field("", pattern=paging.CURSOR_PATTERN, description="The last page's next_cursor; empty to start.")
    limit: int = Field(paging.PAGE_SIZE, ge=1, le=paging.PAGE_SIZE_MAX)


class CustomerFilter(PageIn):
    customer_id: int | None = Field(None, ge=1, le=paging.ID_MAX, description="Only this customer's rows.")


class MonthFilter(CustomerFilter):
    month: str | None = Field(None, pattern=paging.MONTH_PATTERN, description="YYYY-MM, in the store's time zone.")


class ActivityFilter(CustomerFilter):
    action: str = Field(
        "", pattern=r"^[a-z0-9_]{0,40}$", description="Only this action (e.g. registered, payment_refunded)."
    )


# --- Customers ----------------------------------------------------------------------------------------------------


@api.get("/customers", response={200: schemas.CustomerPage, **_ERRORS}, url_name="customers")
def customers(request: HttpRequest, filters: Query[PageIn]) -> Page[schemas.CustomerOut]:
    filters = _known(request, filters)
    rows = Customer.objects.select_related("user")
    return page_of(rows, cursor=filters.cursor, limit=filters.limit, out=schemas.customer_out)


@api.get("/customers/{customer_id}", response={200: schemas.CustomerOut, **_DETAIL_ERRORS}, url_name="customer")
def customer(request: HttpRequest, customer_id: Id) -> schemas.CustomerOut:
    return schemas.customer_out(get_object_or_404(Customer.objects.select_related("user"), pk=customer_id))


# --- Domains ------------------------------------------------------------------------------------------------------


@api.get("/domains", response={200: schemas.DomainPage, **_ERRORS}, url_name="domains")
def domains(request: HttpRequest, filters: Query[CustomerFilter]) -> Page[schemas.DomainOut]:
    filters = _known(request, filters)
    rows = Order.objects.all()
    if filters.customer_id is not None:
        rows = rows.filter(customer_id=filters.customer_id)
    return page_of(rows, cursor=filters.cursor, limit=filters.limit, out=schemas.domain_out)


@api.get("/domains/{order_id}", response={200: schemas.DomainOut, **_DETAIL_ERRORS}, url_name="domain")
def domain(request: HttpRequest, order_id: Id) -> schemas.DomainOut:
    return schemas.domain_out(get_object_or_404(Order, order_id=order_id))


@api.post(
    "/domains/{order_id}/auto-renew",
    auth=ApiKeyBearer(scope=ApiKey.Scope.WRITE),
    response={200: schemas.DomainOut, **_DETAIL_ERRORS, 403: schemas.ErrorOut, 409: schemas.ErrorOut},
    url_name="domain_auto_renew",
)
def domain_auto_renew(
    request: HttpRequest, order_id: Id, switch: schemas.AutoRenewIn
) -> schemas.DomainOut | Status[schemas.ErrorOut]:
    """Switch auto-renew on or off through the customer's own switch's service, so its rules apply (on needs a saved
    card, never for a refunded domain); the change is logged as done by the key. A refusal is a 409 saying why."""
    order = get_object_or_404(Order.objects.select_related("customer"), order_id=order_id)
    key = request.auth  # type: ignore[attr-defined]  # set by django-ninja from ApiKeyBearer
    try:
        with acting(key_actor(key)):
            order_auto_renew_set(order=order, on=switch.auto_renew)
    except StoreError as err:
        return Status(409, schemas.ErrorOut(detail=str(err.message)))
    order.refresh_from_db()
    return schemas.domain_out(order)


# --- Money --------------------------------------------------------------------------------------------------------


@api.get("/payments", response={200: schemas.PaymentPage, **_ERRORS}, url_name="payments")
def payments(request: HttpRequest, filters: Query[MonthFilter]) -> Page[schemas.PaymentOut]:
    """Payments made in `month` (by when the customer started paying), with their lines."""
    filters = _known(request, filters)
    rows = Payment.objects.prefetch_related("lines")  # in their order (PaymentLine.Meta)
    if filters.month:
        start, end = month_bounds(filters.month)
        rows = rows.filter(created_at__gte=start, created_at__lt=end)
    if filters.customer_id is not None:
        rows = rows.filter(customer_id=filters.customer_id)
    return page_of(rows, cursor=filters.cursor, limit=filters.limit, out=schemas.payment_out)


@api.get("/ledger", response={200: schemas.LedgerPage, **_ERRORS}, url_name="ledger")
def ledger(request: HttpRequest, filters: Query[MonthFilter]) -> Page[schemas.LedgerEntryOut]:
    """The books' money movements in `month` (by when the payment service made them), in the order booked."""
    filters = _known(request, filters)
    rows = LedgerEntry.objects.select_related("payment", "line")
    if filters.month:
        start, end = month_bounds(filters.month)
        rows = rows.filter(occurred_at__gte=start, occurred_at__lt=end)
    if filters.customer_id is not None:
        rows = rows.filter(payment__customer_id=filters.customer_id)
    return page_of(rows, cursor=filters.cursor, limit=filters.limit, out=schemas.ledger_entry_out)


# --- Activity -----------------------------------------------------------------------------------------------------


@api.get("/activity", response={200: schemas.ActivityPage, **_ERRORS}, url_name="activity")
def activity(request: HttpRequest, filters: Query[ActivityFilter]) -> Page[schemas.ActivityOut]:
    """The activity log in the order written (this API's own requests included, as `api_request`)."""
    filters = _known(request, filters)
    rows = Activity.objects.all()
    if filters.customer_id is not None:
        rows = rows.filter(customer_id=filters.customer_id)
    if filters.action:
        rows = rows.filter(action=filters.action)
    return page_of(rows, cursor=filters.cursor, limit=filters.limit, out=schemas.activity_out)
