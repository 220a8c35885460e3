"""Staff view of payments: status, amounts, lines, Stripe ids, receipt; "needs attention"; refunding lines."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from billing.errors import PaymentError
from billing.models import Payment, PaymentLine, Receipt, WebhookEvent
from billing.services import payments_needing_attention, refund_line


class NeedsAttentionFilter(admin.SimpleListFilter):
    title = "needs attention"
    parameter_name = "attention"

    def lookups(self, request, model_admin):
        return [("yes", "Needs attention")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=payments_needing_attention().values("pk"))
        return queryset


class PaymentLineInline(admin.TabularInline):
    model = PaymentLine
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "description",
        "amount",
        "status",
        "registration_ref",
        "stripe_refund_id",
        "refunded_at",
    )

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Payment)
class PaymentAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "customer",
        "status",
        "currency",
        "amount",
        "amount_authorised",
        "amount_captured",
        "amount_refunded",
        "receipt_number",
        "needs_attention",
        "created_at",
    ]
    list_filter = [NeedsAttentionFilter, "status", "created_at"]
    search_fields = ["=checkout_id", "stripe_session_id", "stripe_payment_intent_id", "customer__user__email"]
    list_select_related = ["customer__user", "receipt"]
    inlines = [PaymentLineInline]
    actions = ["refund_registered_lines"]
    readonly_fields = [
        "customer",
        "checkout_id",
        "status",
        "currency",
        "amount",
        "amount_authorised",
        "amount_captured",
        "amount_refunded",
        "stripe_session_id",
        "stripe_payment_intent_id",
        "capture_started_at",
        "receipt_number",
        "created_at",
        "settled_at",
    ]
    fields = [*readonly_fields, "needs_attention", "attention_reason"]

    @admin.display(description="receipt")
    def receipt_number(self, payment: Payment) -> str:
        receipt = getattr(payment, "receipt", None)
        return str(receipt.number) if receipt else "—"

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Refund the charged lines of the selected payments")
    def refund_registered_lines(self, request: HttpRequest, queryset: QuerySet[Payment]) -> None:
        refunded = failed = 0
        for payment in queryset:
            for line in payment.lines.filter(status=PaymentLine.Status.REGISTERED):
                try:
                    refund_line(line=line)
                    refunded += 1
                except PaymentError as err:
                    failed += 1
                    self.message_user(request, f"{line}: {err.message}", messages.ERROR)
        self.message_user(request, f"Refunded {refunded} line(s); {failed} could not be refunded.", messages.INFO)


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
    list_display = ["event_id", "type", "deliveries", "received_at", "processed_at", "error"]
    list_filter = ["type"]
    search_fields = ["=event_id"]
    readonly_fields = ["event_id", "type", "payload", "deliveries", "received_at", "processed_at", "error"]


@admin.register(Receipt)
class ReceiptAdmin(admin.ModelAdmin):
    list_display = ["store", "number", "payment", "amount", "currency", "issued_at"]
    readonly_fields = ["store", "number", "payment", "amount", "currency", "issued_at"]
