"""Admin for registrations (issue 6): what was bought, each line's outcome, and re-checking lost answers."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from domains import services
from domains.models import Registration


class FailureKindFilter(admin.SimpleListFilter):
    title = "failure kind"
    parameter_name = "failure_kind"

    def lookups(self, request, model_admin):
        return services.FAILURE_KINDS

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(failure_kind=self.value())
        return queryset


@admin.register(Registration)
class RegistrationAdmin(admin.ModelAdmin):
    list_display = [
        "domain_name",
        "customer_email",
        "status",
        "failure_kind",
        "duration",
        "total_price",
        "currency",
        "provider_order_id",
        "short_message",
        "created_at",
    ]
    list_filter = ["status", FailureKindFilter, "created_at"]
    search_fields = ["domain_name", "customer__user__email", "=checkout_id", "=provider_order_id"]
    list_select_related = ["customer__user"]
    date_hierarchy = "created_at"
    actions = ["recheck_unconfirmed"]
    # A registration is a record of what happened with the provider: staff read it, they do not edit it.
    readonly_fields = [
        "customer",
        "domain_name",
        "duration",
        "currency",
        "register_price",
        "renew_price",
        "total_price",
        "status",
        "failure_kind",
        "provider_message",
        "order",
        "provider_order_id",
        "checkout_id",
        "emailed_at",
        "created_at",
        "updated_at",
    ]

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_email(self, obj: Registration) -> str:
        return obj.customer.user.email

    @admin.display(description="provider message")
    def short_message(self, obj: Registration) -> str:
        return obj.provider_message if len(obj.provider_message) <= 80 else obj.provider_message[:79] + "…"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Registration | None = None) -> bool:
        return False

    @admin.action(description="Re-check unconfirmed against the order listing")
    def recheck_unconfirmed(self, request: HttpRequest, queryset: QuerySet[Registration]) -> None:
        candidates = [r for r in queryset.select_related("customer") if r.status in Registration.LIVE_STATUSES]
        settled = {Registration.REGISTERED: 0, Registration.FAILED: 0}
        still = 0
        for registration in candidates:
            if registration.status == Registration.REGISTERED:
                continue
            result = services.registration_reconcile(registration=registration)
            if result.status in settled:
                settled[result.status] += 1
            else:
                still += 1
        self.message_user(
            request,
            f"Re-checked: {settled[Registration.REGISTERED]} registered, {settled[Registration.FAILED]} not "
            f"registered, {still} still unconfirmed (the listing failed, the line is too recent, or it is "
            "still being placed).",
            messages.SUCCESS if not still else messages.WARNING,
        )
