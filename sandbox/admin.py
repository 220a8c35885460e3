"""Staff tools for the built-in sandbox: partners and their keys, catalogue, balances, faults, customers, orders, DNS,
contacts, and each order's transfer lock and WHOIS privacy.

A key's plaintext exists only once, in the message shown right after it is created; the database keeps its
SHA-256 and a short prefix.
"""

from __future__ import annotations

import secrets

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from sandbox.models import (
    DETAIL_FIELDS,
    ApiKey,
    CatalogueTld,
    Contact,
    Customer,
    DnsRecord,
    DomainOrder,
    Fault,
    Partner,
    ReservedName,
)


class CatalogueTldInline(admin.TabularInline):
    model = CatalogueTld
    extra = 0
    fields = [
        "position",
        "tld",
        "register_price",
        "renew_price",
        "privacy_price",
        "slashed_price",
        "free_first_year",
        "min_term",
        "privacy_available",
        "restrictions",
    ]


class ReservedNameInline(admin.TabularInline):
    model = ReservedName
    extra = 0


class FaultInline(admin.StackedInline):
    model = Fault
    extra = 0
    max_num = 1


class ApiKeyInline(admin.TabularInline):
    """Keys are listed here; they are created from the API keys page, where the plaintext is shown once."""

    model = ApiKey
    extra = 0
    can_delete = False
    fields = ["prefix", "environment", "label", "created_at", "expires_at", "revoked_at"]
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return False


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "is_active",
        "test_balance",
        "live_balance",
        "search_rate_limit",
        "rate_limit",
        "price_list_shape",
        "created_at",
    ]
    search_fields = ["name"]
    inlines = [ApiKeyInline, CatalogueTldInline, ReservedNameInline, FaultInline]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["prefix", "partner", "environment", "label", "created_at", "expires_at", "revoked_at", "active"]
    list_filter = ["environment", "partner"]
    search_fields = ["prefix", "label", "partner__name"]
    actions = ["revoke_keys"]

    @admin.display(boolean=True)
    def active(self, obj: ApiKey) -> bool:
        return obj.is_active

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[str]:
        if obj is None:
            return ["partner", "environment", "label", "expires_at"]
        return ["partner", "environment", "prefix", "label", "created_at", "expires_at", "revoked_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[str]:
        return ["partner", "environment", "prefix", "created_at"] if obj is not None else []

    def save_model(self, request: HttpRequest, obj: ApiKey, form, change: bool) -> None:
        if not change:
            plaintext = f"{obj.environment}_{secrets.token_urlsafe(24)}"
            obj.set_plaintext(plaintext)
            super().save_model(request, obj, form, change)
            messages.warning(
                request,
                f"New {obj.environment} key for {obj.partner}: {plaintext} — copy it now, it is not shown again.",
            )
            return
        super().save_model(request, obj, form, change)

    @admin.action(description="Revoke the selected keys")
    def revoke_keys(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        messages.success(request, f"Revoked {count} key(s).")


@admin.register(CatalogueTld)
class CatalogueTldAdmin(admin.ModelAdmin):
    list_display = ["tld", "partner", "position", "register_price", "renew_price", "free_first_year", "min_term"]
    list_filter = ["partner", "free_first_year"]
    list_editable = ["position", "register_price", "renew_price", "free_first_year", "min_term"]


@admin.register(ReservedName)
class ReservedNameAdmin(admin.ModelAdmin):
    list_display = ["domain_name", "kind", "premium_price", "partner"]
    list_filter = ["kind", "partner"]
    search_fields = ["domain_name"]


@admin.register(Fault)
class FaultAdmin(admin.ModelAdmin):
    list_display = [
        "partner",
        "scope",
        "latency_ms",
        "error_rate",
        "hang_seconds",
        "hang_after_commit",
        "malformed",
        "availability_down",
        "rate_limited",
        "error_200_message",
        "ai_latency_ms",
    ]


class ContactInline(admin.TabularInline):
    """The contacts set through `POST /api/v1/contacts`; a role without one is the customer's own details."""

    model = Contact
    extra = 0
    can_delete = False
    fields = ["role", "order", *DETAIL_FIELDS, "updated_at"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False  # contacts come from the API


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = ["customer_id", "email", "name", "partner", "environment", "country", "created_at"]
    list_filter = ["environment", "partner", "country"]
    search_fields = ["email", "name", "customer_id"]
    readonly_fields = ["customer_id", "partner", "environment", "created_at"]
    inlines = [ContactInline]


class DnsRecordInline(admin.TabularInline):
    model = DnsRecord
    extra = 0
    fields = ["type", "host", "value", "time_to_live", "priority", "status"]


@admin.register(DomainOrder)
class DomainOrderAdmin(admin.ModelAdmin):
    """Status and expiry are editable, to demo Suspended, Pending Delete Restorable and Expired orders; so are the
    transfer lock and privacy (its paid-until date and its switch), to demo each state."""

    list_display = [
        "order_id",
        "domain_name",
        "status",
        "expires_at",
        "customer",
        "partner",
        "environment",
        "dns_active",
        "transfer_lock",
        "privacy_enabled",
        "privacy_expires_at",
        "created_at",
    ]
    list_filter = ["status", "environment", "partner", "dns_active", "transfer_lock", "privacy_enabled"]
    search_fields = ["domain_name", "order_id", "customer__email"]
    fields = [
        "order_id",
        "domain_name",
        "customer",
        "partner",
        "environment",
        "status",
        "failure_reason",
        "expires_at",
        "duration",
        "amount",
        "dns_active",
        "transfer_lock",
        "privacy_enabled",
        "privacy_expires_at",
        "created_at",
    ]
    readonly_fields = [
        "order_id",
        "domain_name",
        "customer",
        "partner",
        "environment",
        "failure_reason",
        "duration",
        "amount",
        "created_at",
    ]
    inlines = [ContactInline, DnsRecordInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # orders come from registrations


@admin.register(DnsRecord)
class DnsRecordAdmin(admin.ModelAdmin):
    list_display = ["order", "type", "host", "value", "time_to_live", "priority", "status"]
    list_filter = ["type"]
    search_fields = ["order__domain_name", "host", "value"]


@admin.register(Contact)
class ContactAdmin(admin.ModelAdmin):
    list_display = ["customer", "order", "role", "name", "email", "country", "updated_at"]
    list_filter = ["role"]
    search_fields = ["name", "email", "customer__email", "order__domain_name"]
