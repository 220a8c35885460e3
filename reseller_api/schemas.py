"""What the API answers with: pydantic schemas, from which django-ninja writes the OpenAPI description too.

Each schema is built by a typed function from a model row (`*_out`), not by reading attributes by name, so mypy
checks every field. What is left out on purpose (docs/api.md): passwords and two-factor data, transfer codes (never
stored), card data and Stripe's customer, session and payment-method ids. Staff get the one Stripe id they match
against Stripe's dashboard and payouts: the payment intent of a payment, the source of a ledger entry.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any

from ninja import Schema
from pydantic import Field, PlainSerializer, WithJsonSchema

from accounts.models import Activity, Customer
from accounts.staff.activity import activity_text
from billing.models import LedgerEntry, Payment, PaymentLine, SaleCause
from domains.models import Order

# Money as a decimal string ("14.49"): exact, as the books keep it; a JSON number would be read as a float.
Amount = Annotated[
    Decimal,
    PlainSerializer(lambda value: format(value, "f"), return_type=str),
    WithJsonSchema({"type": "string", "format": "decimal", "examples": ["14.49"]}),
]


class ErrorOut(Schema):
    detail: str = Field(description="What went wrong, in English.")


class PageOut(Schema):
    next_cursor: str = Field(description="Pass as `cursor` for the rows after these (kept: later rows come after it).")
    has_more: bool = Field(description="Whether a full page was returned: there may be more rows right now.")


class CustomerOut(Schema):
    id: int
    provider_customer_id: int | None = Field(description="The provider's customer id (empty while unconfirmed).")
    email: str
    name: str
    company: str
    address: str
    city: str
    state: str
    country: str = Field(description="ISO 3166 alpha-2.")
    zipcode: str
    phone: str = Field(description="+country code and number.")
    language: str
    currency: str = Field(description="The customer's chosen currency (empty: the store's).")
    is_business: bool
    tax_number: str
    created_at: dt.datetime


class CustomerPage(PageOut):
    items: list[CustomerOut]


def customer_out(customer: Customer) -> CustomerOut:
    return CustomerOut(
        id=customer.pk,
        provider_customer_id=customer.customer_id,
        email=customer.user.email,
        name=customer.name,
        company=customer.company,
        address=customer.address,
        city=customer.city,
        state=customer.state,
        country=customer.country,
        zipcode=customer.zipcode,
        phone=f"+{customer.country_code}.{customer.phone}",
        language=customer.language,
        currency=customer.currency,
        is_business=customer.is_business,
        tax_number=customer.tax_number,
        created_at=customer.created_at,
    )


class DomainOut(Schema):
    order_id: int = Field(description="The provider's order id: the domain's id here too.")
    domain_name: str = Field(description="As the registry holds it (an internationalised name in its xn-- form).")
    customer_id: int
    status: Order.Status = Field(description="The provider's status, as its last answer left it.")
    expires_at: dt.datetime | None
    auto_renew: bool
    auto_renew_failed_at: dt.datetime | None
    auto_renew_failure: str
    refunded: bool = Field(description="Its payment was refunded (or lost to a dispute): it is not renewed here.")
    refunded_at: dt.datetime | None
    disputed: bool = Field(description="A dispute of its payment is open.")
    disputed_at: dt.datetime | None
    privacy_enabled: bool
    dns_active: bool
    created_at: dt.datetime


class DomainPage(PageOut):
    items: list[DomainOut]


class AutoRenewIn(Schema):
    # Strict: `0` or `"no"` is a 400, not a guess.
    auto_renew: bool = Field(strict=True, description="true: on (needs the customer's saved card); false: off.")


def domain_out(order: Order) -> DomainOut:
    return DomainOut(
        order_id=order.order_id,
        domain_name=order.domain_name,
        customer_id=order.customer_id,
        status=Order.Status(order.status),
        expires_at=order.expires_at,
        auto_renew=order.auto_renew,
        auto_renew_failed_at=order.auto_renew_failed_at,
        auto_renew_failure=order.auto_renew_failure,
        refunded=order.refunded_at is not None,
        refunded_at=order.refunded_at,
        disputed=order.disputed_at is not None,
        disputed_at=order.disputed_at,
        privacy_enabled=order.privacy_enabled,
        dns_active=order.dns_active,
        created_at=order.created_at,
    )


class PaymentLineOut(Schema):
    reference: str = Field(description="What was sold: the domain name for a domain line.")
    description: str
    cause: SaleCause
    tld: str
    amount: Amount = Field(description="Before tax.")
    tax_amount: Amount
    status: PaymentLine.Status
    refunded_at: dt.datetime | None


class PaymentOut(Schema):
    id: int
    customer_id: int
    status: Payment.Status
    currency: str
    amount: Amount = Field(description="What the customer is charged: the lines and their tax.")
    amount_captured: Amount
    amount_refunded: Amount
    tax_country: str
    tax_inclusive: bool
    stripe_payment_intent: str = Field(description="The payment intent that took the money (Stripe's dashboard).")
    created_at: dt.datetime
    settled_at: dt.datetime | None
    lines: list[PaymentLineOut]


class PaymentPage(PageOut):
    items: list[PaymentOut]


def payment_out(payment: Payment) -> PaymentOut:
    return PaymentOut(
        id=payment.pk,
        customer_id=payment.customer_id,
        status=Payment.Status(payment.status),
        currency=payment.currency,
        amount=payment.amount,
        amount_captured=payment.amount_captured,
        amount_refunded=payment.amount_refunded,
        tax_country=payment.tax_country,
        tax_inclusive=payment.tax_inclusive,
        stripe_payment_intent=payment.charged_intent_id,
        created_at=payment.created_at,
        settled_at=payment.settled_at,
        lines=[
            PaymentLineOut(
                reference=line.reference,
                description=line.description,
                cause=SaleCause(line.cause),
                tld=line.tld,
                amount=line.amount,
                tax_amount=line.tax_amount,
                status=PaymentLine.Status(line.status),
                refunded_at=line.refunded_at,
            )
            for line in payment.lines.all()
        ],
    )


class LedgerEntryOut(Schema):
    id: int
    occurred_at: dt.datetime = Field(description="When the payment service moved the money (the month it counts in).")
    kind: LedgerEntry.Kind
    cause: SaleCause
    amount: Amount = Field(description="Signed: received positive, given back negative; tax included.")
    currency: str
    tax: Amount
    fee: Amount
    cost: Amount | None = Field(description="What the line cost us, booked with its capture; empty when unknown.")
    written_off: Amount
    tld: str
    payment_id: int
    customer_id: int
    domain_name: str = Field(description="The paid line's reference.")
    source_id: str = Field(description="Stripe's charge, refund or dispute id (ours for a write-off).")
    note: str


class LedgerPage(PageOut):
    items: list[LedgerEntryOut]


def ledger_entry_out(entry: LedgerEntry) -> LedgerEntryOut:
    return LedgerEntryOut(
        id=entry.pk,
        occurred_at=entry.occurred_at,
        kind=LedgerEntry.Kind(entry.kind),
        cause=SaleCause(entry.cause),
        amount=entry.amount,
        currency=entry.currency,
        tax=entry.tax,
        fee=entry.fee,
        cost=entry.cost,
        written_off=entry.written_off,
        tld=entry.tld,
        payment_id=entry.payment_id,
        customer_id=entry.payment.customer_id,
        domain_name=entry.line.reference,
        source_id=entry.source_id,
        note=entry.note,
    )


class ActivityOut(Schema):
    id: int
    at: dt.datetime
    actor: Activity.Actor
    actor_name: str = Field(description="The login (or API key) that acted, as it read then.")
    customer_id: int | None
    action: str
    text: str = Field(description="The row in words, as staff read it in the admin.")
    domain_name: str
    order_id: int | None
    payment_id: int | None
    detail: dict[str, Any]


class ActivityPage(PageOut):
    items: list[ActivityOut]


def activity_out(entry: Activity) -> ActivityOut:
    return ActivityOut(
        id=entry.pk,
        at=entry.at,
        actor=Activity.Actor(entry.actor),
        actor_name=entry.actor_name,
        customer_id=entry.customer_id,
        action=entry.action,
        text=activity_text(entry),
        domain_name=entry.domain_name,
        order_id=entry.order_id,
        payment_id=entry.payment_id,
        detail=dict(entry.detail),
    )
