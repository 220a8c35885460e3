"""Staff views of the customers' domains: our copies of their orders (also shown inside each customer's page)
and their renewals.

Order rows are refreshed from the provider's order listing; staff read them here (the provider stays the source
of truth), so nothing is added or edited by hand. Renewals are a record of what happened at the provider.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.safestring import SafeString

from accounts.admin import activity_table, customer_inline_add
from accounts.models import Activity, Customer
from domains.models import Order, PrivacyPurchase, Renewal
from domains.orders.auto_renew import auto_renew_failures_handle, auto_renew_failures_open
from domains.orders.services import EXPIRING_SOON_DAYS
from storefront.admin_lists import LargeListAdmin
from storefront.admin_read_only import ReadOnlyAdmin


class ExpiringSoonFilter(admin.SimpleListFilter):
    title = "expiry"
    parameter_name = "expiry"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [
            ("soon", f"Expiring within {EXPIRING_SOON_DAYS} days"),
            ("expired", "Expired"),
            ("attention", "Expiring soon or expired"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Order]) -> QuerySet[Order]:
        now = timezone.now()
        soon = now + dt.timedelta(days=EXPIRING_SOON_DAYS)
        if self.value() == "soon":
            return queryset.filter(expires_at__gte=now, expires_at__lt=soon)
        if self.value() == "expired":
            return queryset.filter(expires_at__lt=now)
        if self.value() == "attention":
            return queryset.filter(expires_at__lt=soon)
        return queryset


class AutoRenewFailureFilter(admin.SimpleListFilter):
    title = "failed auto-renewal"
    parameter_name = "auto_renew_failure"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("open", "Not handled yet"), ("any", "Any, handled or not")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Order]) -> QuerySet[Order]:
        if self.value() == "open":
            return queryset.filter(pk__in=auto_renew_failures_open().values("pk"))
        if self.value() == "any":
            return queryset.filter(auto_renew_failed_at__isnull=False)
        return queryset


@admin.register(Order)
class OrderAdmin(LargeListAdmin, ReadOnlyAdmin):
    """Viewable, not editable: a change here would be overwritten by the next listing refresh, and deleting our
    copy cancels nothing at the provider (the next refresh would bring it back). Refunded domains (their payment
    refunded or lost to a dispute) are listed by the "refunded at" filter."""

    list_display = (
        "domain_name",
        "customer_email",
        "status",
        "expires_at",
        "auto_renew",
        "refunded_at",
        "last_synced_at",
    )
    list_filter = (
        "status",
        ExpiringSoonFilter,
        "auto_renew",
        AutoRenewFailureFilter,
        # Refunded domains stay registered at the provider (it has no delete call yet): staff see them here.
        ("refunded_at", admin.EmptyFieldListFilter),
        ("disputed_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("^domain_name",)
    search_by_email = ("^customer__user__email",)
    search_by_number = ("order_id",)
    list_select_related = ("customer__user",)
    ordering = ("expires_at", "domain_name")
    readonly_fields = (
        "order_id",
        "customer",
        "domain_name",
        "status",
        "expiry_timestamp",
        "expires_at",
        "dns_active",
        "last_synced_at",
        "created_at",
        "auto_renew",
        "auto_renew_failed_at",
        "auto_renew_failure",
        "refunded_at",
        "disputed_at",
        "activity",
    )
    change_form_template = "admin/domains/order/change_form.html"
    actions = ["handle_auto_renew_failures"]

    def has_change_permission(self, request: HttpRequest, obj: Order | None = None) -> bool:
        # The list's action needs it; each order's page stays read-only (every field is).
        return obj is None and request.user.has_perm("domains.change_order")

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_email(self, order: Order) -> str:
        return order.customer.user.email

    @admin.action(description="Mark the selected failed auto-renewals handled (the customer was contacted)")
    def handle_auto_renew_failures(self, request: HttpRequest, queryset: QuerySet[Order]) -> None:
        handled = auto_renew_failures_handle(orders=queryset)
        self.message_user(
            request,
            f"{handled} failed auto-renewal(s) marked handled (logged); the others selected had none open.",
            messages.SUCCESS if handled else messages.WARNING,
        )

    @admin.display(description="activity")
    def activity(self, order: Order) -> SafeString:
        # By name and owner: money rows name the domain without its order id, and a name may change hands.
        rows = Activity.objects.filter(domain_name=order.domain_name, customer=order.customer_id)
        return activity_table(
            rows, more=f"?{urlencode({'domain_name': order.domain_name, 'customer__id__exact': order.customer_id})}"
        )


@admin.register(Renewal)
class RenewalAdmin(LargeListAdmin, ReadOnlyAdmin):
    """A record of what happened at the provider: staff read it; changing it would make it lie."""

    list_display = [
        "domain_name",
        "customer_email",
        "status",
        "duration",
        "price",
        "margin",
        "new_expires_at",
        "created_at",
    ]
    list_filter = ["status", "failure_kind", "created_at"]
    search_fields = ["^domain_name"]
    search_by_email = ("^customer__user__email",)
    search_by_number = ("provider_order_id",)
    search_by_uuid = ("token",)
    list_select_related = ["customer__user"]

    @admin.display(description="margin")
    def margin(self, renewal: Renewal) -> str:
        return f"{renewal.margin} {renewal.currency}" if renewal.margin is not None else "—"

    @admin.display(description="price", ordering="price")
    def price(self, renewal: Renewal) -> str:
        return f"{renewal.price} {renewal.currency}" if renewal.price is not None else "—"

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_email(self, renewal: Renewal) -> str:
        return renewal.customer.email


@admin.register(PrivacyPurchase)
class PrivacyPurchaseAdmin(LargeListAdmin, ReadOnlyAdmin):
    """WHOIS privacy bought for a domain (domains/orders/privacy.py): "could not confirm" ones are settled by the
    reconciler from the domain's details, or by staff at the provider."""

    list_display = ["domain_name", "status", "years", "price", "cost_price", "currency", "expires_after", "created_at"]
    list_filter = ["status", "created_at"]
    search_fields = ["^domain_name"]
    search_by_email = ("^customer__user__email",)
    search_by_number = ("provider_order_id",)
    search_by_uuid = ("checkout_id",)
    list_select_related = ["customer__user"]


class OrderInline(admin.TabularInline):
    model = Order
    fk_name = "customer"
    fields = ("order_id", "domain_name", "status", "expires_at", "dns_active", "last_synced_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("expires_at", "domain_name")

    def has_add_permission(self, request: HttpRequest, obj: Customer | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Customer | None = None) -> bool:
        return False


# The customer's page (accounts' admin) shows their domains too; accounts, the lower layer, never imports us.
customer_inline_add(OrderInline)
