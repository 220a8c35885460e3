"""Admin for renewals: who renewed what, when, for how much, from which expiry to which, and how it went."""

from decimal import Decimal

from django.contrib import admin

from domains.models import Renewal
from storefront.admin_read_only import ReadOnlyAdmin


@admin.register(Renewal)
class RenewalAdmin(ReadOnlyAdmin):
    """A record of what happened at the provider: staff read it; changing it would make it lie."""

    list_display = [
        "domain_name",
        "customer_email",
        "status",
        "duration",
        "price",
        "cost_price",
        "margin",
        "currency",
        "old_expires_at",
        "new_expires_at",
        "failure_kind",
        "created_at",
    ]
    list_filter = ["status", "failure_kind", "created_at"]
    search_fields = ["domain_name", "customer__user__email", "=provider_order_id", "=token"]
    list_select_related = ["customer__user"]
    date_hierarchy = "created_at"

    @admin.display(description="margin")
    def margin(self, renewal: Renewal) -> Decimal | None:
        return renewal.margin

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_email(self, renewal: Renewal) -> str:
        return renewal.customer.email
