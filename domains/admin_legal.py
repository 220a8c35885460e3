"""Admin for checkout acceptances of the terms and the registration agreement: read-only evidence."""

from django.contrib import admin
from django.http import HttpRequest

from domains.models import LegalAcceptance


@admin.register(LegalAcceptance)
class LegalAcceptanceAdmin(admin.ModelAdmin):
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

    # What the customer accepted, as recorded: changing it would make it lie.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
