"""Staff switch the payment sandbox's faults and webhook endpoint here, look at what it holds, and do what Stripe's
Dashboard and time would: refund or dispute a captured payment, move a dispute on, settle a refund, move the clock.
(The same actions for tests: sandbox/stripe_api/control.py.)"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from sandbox.stripe_api import clock, deadlines, disputes, objects, refunds, webhooks
from sandbox.stripe_api.control import charge_of
from sandbox.stripe_api.models import (
    ApiCall,
    Charge,
    Dispute,
    Event,
    PaymentIntent,
    Refund,
    Setup,
    StripeObject,
    WebhookEndpoint,
)
from sandbox.stripe_api.outcomes import Unexpected


def _each(admin_view: admin.ModelAdmin, request: HttpRequest, rows: QuerySet, act: Callable[[StripeObject], str]):
    """Do `act` on each selected object, as from the Dashboard, and say what came of it."""
    for row in rows:
        try:
            with transaction.atomic(), webhooks.caused_by(objects.new_id("req")):
                done = act(StripeObject.objects.select_for_update().get(pk=row.pk))
        except Unexpected as err:
            admin_view.message_user(request, f"{row.pk}: {err.message}", messages.ERROR)
        else:
            admin_view.message_user(request, f"{row.pk}: {done}", messages.SUCCESS)


def _asked(admin_view: admin.ModelAdmin, request: HttpRequest, rows: QuerySet, form: forms.Form, title: str):
    """The intermediate page of an action that needs input (posts back to the same action with `apply`)."""
    return TemplateResponse(
        request,
        "admin/stripe_api/action_form.html",
        {
            **admin_view.admin_site.each_context(request),
            "title": title,
            "form": form,
            "rows": rows,
            "action": request.POST.get("action"),
            "opts": admin_view.model._meta,
        },
    )


class PartialRefundForm(forms.Form):
    amount = forms.IntegerField(min_value=1, help_text="In the currency's minor units (cents), as the API takes it.")
    reason = forms.ChoiceField(
        choices=[("", "none"), *[(reason, reason) for reason in refunds.REASONS]], required=False
    )


class ClockForm(forms.Form):
    days = forms.IntegerField(min_value=0, initial=0)
    hours = forms.IntegerField(min_value=0, initial=0)
    minutes = forms.IntegerField(min_value=0, initial=0)


class _ObjectList(admin.ModelAdmin):
    """One kind of Stripe object, read-only (it changes through the API and the actions), with its main fields."""

    readonly_fields = ("id", "object", "data", "api_key", "payment_intent", "due_at", "created_at")
    search_fields = ("id", "payment_intent")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="status")
    def status(self, row: StripeObject) -> str:
        return row.data.get("status", "")

    @admin.display(description="amount")
    def amount(self, row: StripeObject) -> str:
        return f"{row.data.get('amount')} {row.data.get('currency', '')}"

    @admin.display(description="charge")
    def charge(self, row: StripeObject) -> str:
        return row.data.get("charge") or ""


class _MoneyActions(_ObjectList):
    """Dashboard actions on a captured payment (a charge, or a payment intent through its charge)."""

    actions = ("open_chargeback", "open_inquiry", "refund_in_full", "refund_part")

    def _dispute(self, request: HttpRequest, rows: QuerySet, *, inquiry: bool) -> None:
        def act(row: StripeObject) -> str:
            made = disputes.open_dispute(charge=charge_of(row.pk), inquiry=inquiry)
            return f"dispute {made.pk} opened ({made.data['status']})"

        _each(self, request, rows, act)

    @admin.action(description="Open a dispute (chargeback)")
    def open_chargeback(self, request: HttpRequest, rows: QuerySet) -> None:
        self._dispute(request, rows, inquiry=False)

    @admin.action(description="Open an inquiry (a dispute that moves no money yet)")
    def open_inquiry(self, request: HttpRequest, rows: QuerySet) -> None:
        self._dispute(request, rows, inquiry=True)

    @admin.action(description="Refund in full (as from the Dashboard)")
    def refund_in_full(self, request: HttpRequest, rows: QuerySet) -> None:
        def act(row: StripeObject) -> str:
            made = refunds.create(charge=charge_of(row.pk), amount=None, metadata={}, reason=None)
            return f"refund {made.pk} of {made.data['amount']} ({made.data['status']})"

        _each(self, request, rows, act)

    @admin.action(description="Refund part… (as from the Dashboard)")
    def refund_part(self, request: HttpRequest, rows: QuerySet):
        form = PartialRefundForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return _asked(self, request, rows, form, "Refund part of the selected payments")

        def act(row: StripeObject) -> str:
            made = refunds.create(
                charge=charge_of(row.pk),
                amount=form.cleaned_data["amount"],
                metadata={},
                reason=form.cleaned_data["reason"] or None,
            )
            return f"refund {made.pk} of {made.data['amount']} ({made.data['status']})"

        _each(self, request, rows, act)
        return None


@admin.register(PaymentIntent)
class PaymentIntentAdmin(_MoneyActions):
    list_display = ("id", "status", "amount", "latest_charge", "created_at")

    @admin.display(description="charge")
    def latest_charge(self, row: StripeObject) -> str:
        return row.data.get("latest_charge") or ""


@admin.register(Charge)
class ChargeAdmin(_MoneyActions):
    list_display = ("id", "status", "amount", "captured", "refunded", "disputed", "created_at")

    @admin.display(boolean=True)
    def captured(self, row: StripeObject) -> bool:
        return row.data["captured"]

    @admin.display(boolean=True)
    def refunded(self, row: StripeObject) -> bool:
        return row.data["refunded"]

    @admin.display(boolean=True)
    def disputed(self, row: StripeObject) -> bool:
        return row.data["disputed"]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(_ObjectList):
    """Deleting one here is what removing it in Stripe's Dashboard does (a store's golive_check then fails)."""

    list_display = ("id", "url", "enabled_events", "created_at")
    search_fields = ("id",)

    @admin.display(description="url")
    def url(self, row: StripeObject) -> str:
        return row.data.get("url", "")

    @admin.display(description="event types")
    def enabled_events(self, row: StripeObject) -> str:
        return ", ".join(row.data.get("enabled_events", []))


@admin.register(Dispute)
class DisputeAdmin(_ObjectList):
    list_display = ("id", "status", "amount", "reason", "charge", "created_at")
    actions = ("move_to_review", "close_won", "close_lost")

    @admin.display(description="reason")
    def reason(self, row: StripeObject) -> str:
        return row.data["reason"]

    @admin.action(description="Move to under review (evidence sent)")
    def move_to_review(self, request: HttpRequest, rows: QuerySet) -> None:
        _each(self, request, rows, lambda row: f"now {disputes.review(dispute=row).data['status']}")

    @admin.action(description="Close: won (the merchant keeps the money)")
    def close_won(self, request: HttpRequest, rows: QuerySet) -> None:
        _each(self, request, rows, lambda row: f"now {disputes.close(dispute=row, won=True).data['status']}")

    @admin.action(description="Close: lost (the money goes back to the cardholder)")
    def close_lost(self, request: HttpRequest, rows: QuerySet) -> None:
        _each(self, request, rows, lambda row: f"now {disputes.close(dispute=row, won=False).data['status']}")


@admin.register(Refund)
class RefundAdmin(_ObjectList):
    list_display = ("id", "status", "amount", "charge", "due_at", "created_at")
    actions = ("settle_now",)

    @admin.action(description="Settle pending refunds now (as the setup's refund flow decided)")
    def settle_now(self, request: HttpRequest, rows: QuerySet) -> None:
        def act(row: StripeObject) -> str:
            refunds.settle(refund=row)
            return f"now {row.data['status']}"

        _each(self, request, rows, act)


@admin.register(Setup)
class SetupAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "sandbox_time",
        "webhook_url",
        "webhook_delivery",
        "decline_all_cards",
        "api_error",
        "timeout_after_capture",
        "require_idempotency_keys",
        "refund_flow",
    )
    readonly_fields = ("clock_offset_seconds",)
    actions = ("advance_clock",)
    # A webhook URL typed without a scheme is a local receiver (bin/run's storefront), which speaks plain HTTP.
    formfield_overrides = {models.URLField: {"assume_scheme": "http"}}

    @admin.display(description="sandbox clock")
    def sandbox_time(self, row: Setup) -> str:
        return dt.datetime.fromtimestamp(clock.now(), tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    @admin.action(description="Advance the clock… (holds lapse, sessions expire, refunds settle)")
    def advance_clock(self, request: HttpRequest, rows: QuerySet):
        form = ClockForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return _asked(self, request, rows, form, "Advance the payment sandbox's clock")
        data = form.cleaned_data
        clock.advance(data["days"] * 86400 + data["hours"] * 3600 + data["minutes"] * 60)
        due = deadlines.catch_up()
        now = self.sandbox_time(Setup.current())
        self.message_user(request, f"The clock now reads {now}; {due} object(s) fell due.")
        return None


@admin.register(StripeObject)
class StripeObjectAdmin(admin.ModelAdmin):
    list_display = ("id", "object", "payment_intent", "due_at", "created_at")
    list_filter = ("object",)
    search_fields = ("id", "payment_intent")
    readonly_fields = ("id", "object", "data", "api_key", "payment_intent", "due_at", "created_at")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("id", "type", "created", "deliveries", "last_delivery_status", "created_at")
    list_filter = ("type",)


@admin.register(ApiCall)
class ApiCallAdmin(admin.ModelAdmin):
    list_display = ("at", "method", "path", "status", "idempotency_key", "replayed")
