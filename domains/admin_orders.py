"""Admin for local order copies (issue 7).

The rows are refreshed from the provider's order listing; staff read them here (the provider stays the source of
truth), so nothing is added or edited by hand.
"""

import datetime as dt

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from domains.models import Order
from domains.orders import EXPIRING_SOON_DAYS
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


@admin.register(Order)
class OrderAdmin(ReadOnlyAdmin):
    """Viewable, not editable: a change here would be overwritten by the next listing refresh, and deleting our
    copy cancels nothing at the provider (the next refresh would bring it back)."""

    list_display = ("domain_name", "customer", "status", "expires_at", "auto_renew", "last_synced_at")
    list_filter = ("status", ExpiringSoonFilter, "auto_renew", ("auto_renew_failed_at", admin.EmptyFieldListFilter))
    search_fields = ("domain_name", "customer__user__email")
    list_select_related = ("customer__user",)
    date_hierarchy = "expires_at"
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
        "auto_renew_notified_at",
    )
