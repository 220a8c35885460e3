"""Staff views of checkouts: registrations (what was bought, each line's outcome, re-checking lost answers, each
sale's retail price, cost and margin; revenue and margin are billing's report, from the ledger) and the legal
acceptances recorded at checkout (read-only evidence)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import URLPattern, path
from django.views.generic import RedirectView

from domains.checkout import registrations
from domains.models import LegalAcceptance, Registration
from pricing.money import format_money
from storefront.admin_lists import LargeListAdmin
from storefront.admin_read_only import ReadOnlyAdmin


class FailureKindFilter(admin.SimpleListFilter):
    title = "failure kind"
    parameter_name = "failure_kind"

    def lookups(self, request, model_admin):
        return Registration.FailureKind.choices

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(failure_kind=self.value())
        return queryset


@admin.register(Registration)
class RegistrationAdmin(LargeListAdmin):
    # What fits 1280 px beside the filters: the failure kind is a filter, the term and the provider's order id are on
    # the line's page.
    list_display = [
        "domain_name",
        "customer_email",
        "status",
        "retail",
        "cost",
        "margin",
        "short_message",
        "created_at",
    ]
    list_filter = ["status", FailureKindFilter, "created_at"]
    search_fields = ["^domain_name"]
    search_by_email = ("^customer__user__email",)
    search_by_number = ("provider_order_id",)
    search_by_uuid = ("checkout_id",)
    list_select_related = ["customer__user"]
    actions = ["recheck_unconfirmed"]
    change_list_template = "admin/domains/registration/change_list.html"
    # A registration is a record of what happened with the provider: staff read it, they do not edit it.
    readonly_fields = [
        "customer",
        "domain_name",
        "duration",
        "currency",
        "register_price",
        "renew_price",
        "total_price",
        "cost_price",
        "provider_cost",
        "price_rule",
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

    @admin.display(description="retail", ordering="total_price")
    def retail(self, obj: Registration) -> str:
        return format_money(obj.retail) if obj.retail else "—"

    @admin.display(description="cost", ordering="cost_price")
    def cost(self, obj: Registration) -> str:
        return format_money(obj.cost) if obj.cost else "—"

    @admin.display(description="margin")
    def margin(self, obj: Registration) -> str:
        return format_money(obj.margin) if obj.margin else "—"

    def get_urls(self) -> list[URLPattern]:
        # The revenue report moved to the ledger (billing), where every money movement is: the old address leads there.
        revenue = self.admin_site.admin_view(RedirectView.as_view(pattern_name="admin:billing_revenue_report"))
        return [path("revenue/", revenue, name="domains_registration_revenue"), *super().get_urls()]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Registration | None = None) -> bool:
        return False

    @admin.action(description="Re-check unconfirmed against the order listing")
    def recheck_unconfirmed(self, request: HttpRequest, queryset: QuerySet[Registration]) -> None:
        candidates = [r for r in queryset.select_related("customer") if r.status in Registration.LIVE_STATUSES]
        settled: dict[str, int] = {Registration.Status.REGISTERED: 0, Registration.Status.FAILED: 0}
        still = 0
        for registration in candidates:
            if registration.status == Registration.Status.REGISTERED:
                continue
            result = registrations.registration_reconcile(registration=registration)
            if result.status in settled:
                settled[result.status] += 1
            else:
                still += 1
        self.message_user(
            request,
            f"Re-checked: {settled[Registration.Status.REGISTERED]} registered, "
            f"{settled[Registration.Status.FAILED]} not registered, {still} still unconfirmed (the listing failed, "
            "the line is too recent, or it is still being placed).",
            messages.SUCCESS if not still else messages.WARNING,
        )


@admin.register(LegalAcceptance)
class LegalAcceptanceAdmin(ReadOnlyAdmin):
    """What the customer accepted, as recorded: changing it would make it lie."""

    list_display = ["checkout_id", "customer_email", "terms_version", "agreement_version", "accepted_at", "ip"]
    list_filter = ["accepted_at"]
    search_fields = ["=checkout_id", "customer__user__email", "terms__version", "agreement__version"]
    list_select_related = ["customer__user", "terms", "agreement"]
    date_hierarchy = "accepted_at"

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_email(self, acceptance: LegalAcceptance) -> str:
        return acceptance.customer.email

    @admin.display(description="terms version", ordering="terms__version")
    def terms_version(self, acceptance: LegalAcceptance) -> str:
        return acceptance.terms.version

    @admin.display(description="agreement version", ordering="agreement__version")
    def agreement_version(self, acceptance: LegalAcceptance) -> str:
        return acceptance.agreement.version
