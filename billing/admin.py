"""Staff view of payments: status, amounts, lines, ledger entries, Stripe ids, receipt and credit notes; what needs
attention (flagged, registered-unpaid, disputed, authorisations about to lapse); refunding lines from a confirmation
page, collecting or writing off registered-unpaid payments; disputes, the ledger and the revenue report."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from billing.admin_views import refund_view, revenue_report_view, tax_report_view, write_off_view
from billing.alerts import authorisations_expiring, payment_attention_resolve
from billing.models import Dispute, Document, LedgerEntry, Payment, PaymentLine, SavedCard, WebhookEvent
from billing.payments.collection import payment_collect_again
from billing.payments.refunds import REFUNDABLE
from billing.payments.services import payments_needing_attention
from storefront.admin_lists import LargeListAdmin


class NeedsAttentionFilter(admin.SimpleListFilter):
    title = "needs attention"
    parameter_name = "attention"

    def lookups(self, request, model_admin):
        return [
            ("yes", "Needs attention"),
            ("expiring", "Authorisation expires soon (not captured)"),
            ("unpaid", "Registered, not paid (the hold lapsed)"),
            ("disputed", "Disputed (a dispute open)"),
        ]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=payments_needing_attention().values("pk"))
        if self.value() == "expiring":
            return queryset.filter(pk__in=authorisations_expiring().values("pk"))
        if self.value() == "unpaid":
            return queryset.filter(status=Payment.Status.UNPAID)
        if self.value() == "disputed":
            return queryset.filter(disputes__status__in=Dispute.OPEN_STATUSES).distinct()
        return queryset


class PaymentLineInline(admin.TabularInline):
    model = PaymentLine
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "description",
        "cause",
        "amount",
        "list_amount",
        "discount",
        "promotion",
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
class PaymentAdmin(LargeListAdmin):
    # What fits 1280 px beside the filters: the Stripe ids are searched for, and shown on the payment's page.
    list_display = [
        "id",
        "customer_email",
        "status",
        "amounts",
        "line_summary",
        "receipt_number",
        "needs_attention",
        "created_at",
    ]
    list_filter = [NeedsAttentionFilter, "status", "vat_refund_due", "created_at"]
    search_fields = ["stripe_session_id__exact", "stripe_payment_intent_id__exact"]
    search_by_email = ("^customer__user__email",)
    search_by_uuid = ("checkout_id",)
    list_select_related = ["customer__user"]
    inlines = [PaymentLineInline, LedgerEntryInline]
    actions = ["refund_registered_lines", "collect_unpaid", "write_off_unpaid", "resolve_attention"]
    readonly_fields = [
        "customer",
        "checkout_id",
        "status",
        "currency",
        "rate_used",
        "amount",
        "amount_authorised",
        "amount_captured",
        "amount_refunded",
        "stripe_session_id",
        "stripe_payment_intent_id",
        "failure_code",
        "capture_started_at",
        "capture_before",
        "receipt_number",
        "credit_notes",
        "refund_link",
        "created_at",
        "settled_at",
        "expiry_alerted_at",
        "unpaid_since",
        "collection_card_tried_at",
        "collection_failure_code",
        "collection_session_id",
        "collection_intent_id",
        "written_off_at",
        "written_off_by",
    ]
    fields = [*readonly_fields, "needs_attention", "attention_reason"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Payment]:
        return super().get_queryset(request).prefetch_related("lines", "documents")

    @admin.display(description="rate used")
    def rate_used(self, payment: Payment) -> str:
        return rate_text(payment.rate, payment.currency)

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_email(self, payment: Payment) -> str:
        return payment.customer.user.email

    @admin.display(description="quoted / captured / refunded", ordering="amount")
    def amounts(self, payment: Payment) -> str:
        return f"{payment.amount} / {payment.amount_captured} / {payment.amount_refunded} {payment.currency}"

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

    @admin.display(description="refund")
    def refund_link(self, payment: Payment) -> str:
        if payment.status not in REFUNDABLE or not payment.lines.filter(status=PaymentLine.Status.REGISTERED).exists():
            return "—"
        url = reverse("admin:billing_payment_refund") + f"?payments={payment.pk}"
        return format_html('<a class="button" href="{}">Refund…</a>', url)

    def has_add_permission(self, request) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        def view(function):
            return self.admin_site.admin_view(lambda request: function(self, request))

        return [
            path("refund/", view(refund_view), name="billing_payment_refund"),
            path("write-off/", view(write_off_view), name="billing_payment_write_off"),
            *super().get_urls(),
        ]

    @admin.action(description="Refund the charged lines of the selected payments…")
    def refund_registered_lines(self, request: HttpRequest, queryset: QuerySet[Payment]) -> HttpResponseRedirect:
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return HttpResponseRedirect(reverse("admin:billing_payment_refund") + f"?payments={ids}")

    @admin.action(description="Write off the selected registered, unpaid payments…")
    def write_off_unpaid(self, request: HttpRequest, queryset: QuerySet[Payment]) -> HttpResponseRedirect:
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return HttpResponseRedirect(reverse("admin:billing_payment_write_off") + f"?payments={ids}")

    @admin.action(description="Mark the selected flagged payments resolved (looked into and settled)")
    def resolve_attention(self, request: HttpRequest, queryset: QuerySet[Payment]) -> None:
        resolved = sum(payment_attention_resolve(payment=payment) for payment in queryset)
        self.message_user(
            request,
            f"{resolved} payment(s) no longer flagged (logged). A payment with a line still unknown or an "
            "authorisation not settled stays under 'needs attention' until that is settled.",
            messages.SUCCESS if resolved else messages.WARNING,
        )

    @admin.action(description="Collect the selected registered, unpaid payments again (saved card, then the link)")
    def collect_unpaid(self, request: HttpRequest, queryset: QuerySet[Payment]) -> None:
        unpaid = [
            payment
            for payment in queryset.filter(status=Payment.Status.UNPAID)
            if payment_collect_again(payment=payment)
        ]
        self.message_user(
            request,
            f"Collecting {len(unpaid)} payment(s): the saved card is tried once more, then the customer is emailed "
            "the payment link again.",
            messages.SUCCESS if unpaid else messages.WARNING,
        )


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
    """Stripe's events as received (or read back by the reconciler), processed by the worker; read-only."""

    list_display = ["event_id", "type", "outcome", "deliveries", "received_at", "processed_at", "short_error"]
    list_filter = ["outcome", "type"]
    search_fields = ["=event_id"]
    readonly_fields = [
        "event_id",
        "type",
        "created",
        "payload",
        "deliveries",
        "attempts",
        "received_at",
        "claimed_at",
        "processed_at",
        "outcome",
        "error",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description="error")
    def short_error(self, event: WebhookEvent) -> str:
        # The whole error (and the attempts) are on the event's page; the list keeps to 1280 px.
        return event.error if len(event.error) <= 60 else event.error[:59] + "…"


@admin.register(Dispute)
class DisputeAdmin(admin.ModelAdmin):
    """Disputes as Stripe last reported them (answered in Stripe's Dashboard); read-only."""

    list_display = [
        "stripe_dispute_id",
        "payment_id",
        "disputed_amount",
        "reason",
        "status",
        "evidence_due_by",
        "opened_at",
    ]
    list_filter = ["status", "reason"]
    search_fields = ["=stripe_dispute_id", "payment__customer__user__email"]
    list_select_related = ["payment"]
    readonly_fields = [f.name for f in Dispute._meta.concrete_fields]

    @admin.display(description="amount", ordering="amount")
    def disputed_amount(self, dispute: Dispute) -> str:
        return f"{dispute.amount} {dispute.currency}"

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(LedgerEntry)
class LedgerEntryAdmin(LargeListAdmin):
    """The books: every money movement, written by the payment steps themselves; read-only. The revenue report sums
    them (a link above the list).

    A large list: a search looks in one indexed place, chosen by what was typed: an email address the start of the
    customer's address, a payment service's id (`ch_…`, `re_…:reversed`, `write-off:…`; a domain name never holds
    `_` or `:`) the entry's source id, anything else the start of the line's domain name."""

    list_display = [
        "occurred_at",
        "kind",
        "cause",
        "tld",
        "signed_amount",
        "written_off",
        "cost",
        "fee",
        "payment_rate",
        "payment_link",
    ]
    list_filter = ["kind", "cause", "currency", "tld"]
    search_fields = ["^line__reference"]
    search_by_email = ("^payment__customer__user__email",)
    date_hierarchy = "occurred_at"
    list_select_related = ["payment"]
    readonly_fields = [f.name for f in LedgerEntry._meta.concrete_fields]
    change_list_template = "admin/billing/ledgerentry/change_list.html"

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> tuple[QuerySet, bool]:
        term = search_term.strip()
        if "@" not in term and ("_" in term or ":" in term):
            return queryset.filter(source_id=term), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description="amount", ordering="amount")
    def signed_amount(self, entry: LedgerEntry) -> str:
        return f"{entry.amount} {entry.currency}"

    @admin.display(description="rate", ordering="payment__rate")
    def payment_rate(self, entry: LedgerEntry) -> str:
        """The payment's rate (its currency per store unit), the report's conversion of this row."""
        return rate_text(entry.payment.rate, entry.currency)

    @admin.display(description="payment", ordering="payment")
    def payment_link(self, entry: LedgerEntry) -> str:
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:billing_payment_change", args=[entry.payment_id]), entry.payment_id
        )

    def get_urls(self) -> list[URLPattern]:
        report = self.admin_site.admin_view(lambda request: revenue_report_view(self, request))
        taxes = self.admin_site.admin_view(lambda request: tax_report_view(self, request))
        return [
            path("report/", report, name="billing_revenue_report"),
            path("tax-report/", taxes, name="billing_tax_report"),
            *super().get_urls(),
        ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Document)
class DocumentAdmin(LargeListAdmin):
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
    search_fields = ["refund_id__exact"]
    search_by_email = ("^payment__customer__user__email",)
    search_by_number = ("number", "receipt__number")
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


def rate_text(rate: Decimal | None, currency: str) -> str:
    """`1 USD = 0.920000 EUR` (the store's currency first); the store's own currency is 1."""
    if currency == settings.STORE_CURRENCY:
        return "—"
    return f"1 {settings.STORE_CURRENCY} = {rate} {currency}" if rate is not None else "no rate kept"
