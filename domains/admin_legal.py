"""Admin for checkout acceptances of the terms and the registration agreement: read-only evidence."""

from django.contrib import admin

from domains.models import LegalAcceptance
from storefront.admin_read_only import ReadOnlyAdmin


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
