"""Staff view of payments: status, amounts, lines, Stripe ids, receipt; "needs attention"; refunding lines."""

from __future__ import annotations

from collections import Counter

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from billing.alerts import authorisations_expiring
from billing.errors import PaymentError
from billing.models import Document, LedgerEntry, Payment, PaymentLine, SavedCard, WebhookEvent
from billing.refunds import refund_line
from billing.services import payments_needing_attention


class NeedsAttentionFilter(admin.SimpleListFilter):
    title = "needs attention"
    parameter_name = "attention"

    def lookups(self, request, model_admin):
        return [
            ("yes", "Needs attention"),
            ("expiring", "Authorisation expires soon (not captured)"),
        ]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=payments_needing_attention().values("pk"))
        if self.value() == "expiring":
            return queryset.filter(pk__in=authorisations_expiring().values("pk"))
        return queryset


class PaymentLineInline(admin.TabularInline):
    model = PaymentLine
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "description",
        "cause",
        "amount",
        "cost",
        "status",
        "registration_ref",
        "stripe_refund_id",
        "refunded_at",
    )

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class LedgerEntryInline(admin.TabularInline):
    model = LedgerEntry
    extra = 0
    can_delete = False
    fields = readonly_fields = ("occurred_at", "kind", "line", "amount", "written_off", "cost", "source_id", "note")

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
        "line_summary",
        "stripe_payment_intent_id",
        "receipt_number",
        "needs_attention",
        "created_at",
    ]
    list_filter = [NeedsAttentionFilter, "status", "created_at"]
    search_fields = ["=checkout_id", "stripe_session_id", "stripe_payment_intent_id", "customer__user__email"]
    list_select_related = ["customer__user"]
    inlines = [PaymentLineInline, LedgerEntryInline]
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
        "failure_code",
        "capture_started_at",
        "receipt_number",
        "credit_notes",
        "created_at",
        "settled_at",
        "expiry_alerted_at",
    ]
    fields = [*readonly_fields, "needs_attention", "attention_reason"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Payment]:
        return super().get_queryset(request).prefetch_related("lines", "documents")

    @admin.display(description="lines")
    def line_summary(self, payment: Payment) -> str:
        counts = Counter(line.get_status_display().split(" (")[0].lower() for line in payment.lines.all())
        return ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "—"

    @admin.display(description="receipt")
    def receipt_number(self, payment: Payment) -> str:
        receipt = next((d for d in payment.documents.all() if d.kind == Document.Kind.RECEIPT), None)
        if receipt is None:
            return "—"
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:billing_document_change", args=[receipt.pk]), receipt.number
        )

    @admin.display(description="credit notes")
    def credit_notes(self, payment: Payment) -> str:
        notes = payment.documents.filter(kind=Document.Kind.CREDIT_NOTE).order_by("number")
        return (
            format_html_join(
                ", ",
                '<a href="{}">{}</a> ({} {})',
                (
                    (reverse("admin:billing_document_change", args=[n.pk]), n.number, n.amount, n.currency)
                    for n in notes
                ),
            )
            or "—"
        )

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
        summary = f"Refunded {refunded} line(s), each with a credit note emailed to the customer"
        self.message_user(request, f"{summary}; {failed} could not be refunded.", messages.INFO)


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
    list_display = ["event_id", "type", "deliveries", "received_at", "processed_at", "error"]
    list_filter = ["type"]
    search_fields = ["=event_id"]
    readonly_fields = ["event_id", "type", "payload", "deliveries", "received_at", "processed_at", "error"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    """Receipts and credit notes, issued with captures and refunds, never by hand: each kind's numbers follow each
    other without gaps, so none is added or deleted here."""

    list_display = ["kind", "number", "store", "payment", "receipt", "amount", "currency", "issued_at"]
    list_filter = ["kind", "store"]
    readonly_fields = [
        "kind",
        "store",
        "number",
        "payment",
        "receipt",
        "amount",
        "currency",
        "refund_id",
        "issued_at",
    ]
    search_fields = ["=number", "=receipt__number", "refund_id", "payment__customer__user__email"]
    list_select_related = ["payment", "receipt"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SavedCard)
class SavedCardAdmin(admin.ModelAdmin):
    """Read-only: a card is saved by a Checkout payment and removed by its customer (detached at Stripe)."""

    list_display = ["customer", "stripe_customer_id", "brand", "last4", "exp_month", "exp_year", "saved_at"]
    search_fields = ["customer__user__email", "=stripe_customer_id"]
    readonly_fields = [
        "customer",
        "stripe_customer_id",
        "payment_method_id",
        "brand",
        "last4",
        "exp_month",
        "exp_year",
        "saved_at",
        "created_at",
    ]

    def has_add_permission(self, request) -> bool:
        return False
