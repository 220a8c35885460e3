"""Staff's webhooks: endpoints (URL, events, a secret shown once), the events sent and the delivery log with
"Send again"."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from reseller_webhooks.addresses import AddressRefused, url_check
from reseller_webhooks.events import EVENT_TYPES
from reseller_webhooks.models import Delivery, Endpoint, Event, secret_make
from reseller_webhooks.sending import deliveries_send_again
from reseller_webhooks.tasks import send_delivery


class EndpointForm(forms.ModelForm):
    url = forms.URLField(label="URL", max_length=500, assume_scheme="https")
    events = forms.MultipleChoiceField(
        choices=[(name, f"{name}: {when}") for name, when in EVENT_TYPES.items()],
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one event to send."},
    )

    class Meta:
        model = Endpoint
        fields = ["url", "description", "events", "active"]

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        try:
            url_check(url)
        except AddressRefused as err:
            raise forms.ValidationError(f"Not an address the store sends to: {err}.", code="address") from err
        return url


def _secret_page(request: HttpRequest, model_admin: admin.ModelAdmin, endpoint: Endpoint, *, new: bool) -> HttpResponse:
    """The only page that shows the secret in full (the response to the form or action that made it); it is not
    put in a message, which would keep it in the session or a cookie."""
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "The endpoint's signing secret",
        "opts": Endpoint._meta,
        "endpoint": endpoint,
        "new": new,
    }
    # Never kept by a browser or a proxy: the admin's views answer with `no-store` (Django's never_cache).
    return TemplateResponse(request, "admin/reseller_webhooks/endpoint_secret.html", context)


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = ["url", "description", "event_list", "active", "failing_since", "disabled_at", "secret_hint"]
    list_filter = ["active"]
    readonly_fields = ["secret_hint", "created_at", "failing_since", "disabled_at"]
    actions = ["renew_secret"]

    @admin.display(description="events")
    def event_list(self, endpoint: Endpoint) -> str:
        return ", ".join(endpoint.events)

    @admin.display(description="secret")
    def secret_hint(self, endpoint: Endpoint) -> str:
        # The add form's blank endpoint holds a secret of its own (the field's default) that is never saved: its
        # last characters would not match the secret the saved endpoint gets and shows once.
        if endpoint.pk is None:
            return "Made when you save, and shown once then"
        return endpoint.secret_hint

    def save_model(self, request: HttpRequest, obj: Endpoint, form: forms.ModelForm, change: bool) -> None:
        if change and "active" in form.changed_data and obj.active:
            obj.failing_since = obj.disabled_at = None  # switched on again: a new day of failures before it goes off
        super().save_model(request, obj, form, change)

    def response_add(self, request: HttpRequest, obj: Endpoint, post_url_continue: str | None = None) -> HttpResponse:
        return _secret_page(request, self, obj, new=True)

    @admin.action(
        description="Renew the signing secret (shown once; the old one stops working)", permissions=["change"]
    )
    def renew_secret(self, request: HttpRequest, queryset: QuerySet[Endpoint]) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, "Renew one endpoint's secret at a time.", messages.WARNING)
            return None
        endpoint = queryset.get()
        endpoint.secret = secret_make()
        endpoint.save(update_fields=["secret"])
        return _secret_page(request, self, endpoint, new=False)


class DeliveryInline(admin.TabularInline):
    model = Delivery
    readonly_fields = fields = (
        "endpoint",
        "status",
        "attempts",
        "response_code",
        "last_error",
        "next_attempt_at",
        "delivered_at",
    )
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["public_id", "type", "created_at"]
    list_filter = ["type"]
    search_fields = ["public_id", "key"]
    readonly_fields = ["public_id", "type", "key", "created_at", "data"]
    inlines = [DeliveryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    """The delivery log. Nothing is edited here; "Send again" is the one thing staff do."""

    list_display = [
        "event_type",
        "endpoint",
        "status",
        "attempts",
        "response_code",
        "last_error",
        "last_attempt_at",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = ["status", "endpoint", "event__type"]
    list_select_related = ["event", "endpoint"]
    search_fields = ["event__public_id"]
    readonly_fields = fields = (
        "event",
        "endpoint",
        "status",
        "attempts",
        "response_code",
        "last_error",
        "created_at",
        "last_attempt_at",
        "next_attempt_at",
        "retry_until",
        "delivered_at",
    )
    actions = ["send_again"]

    @admin.display(description="event", ordering="event__type")
    def event_type(self, delivery: Delivery) -> str:
        return delivery.event.type

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Send again (now, then retried for a day if it fails)", permissions=["change"])
    def send_again(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        chosen = list(queryset.select_related("endpoint"))
        off = [delivery for delivery in chosen if not delivery.endpoint.active]
        ready = [delivery for delivery in chosen if delivery.endpoint.active]
        count = deliveries_send_again(ready, now=timezone.now())
        for delivery in ready:
            send_delivery.enqueue(delivery_id=delivery.pk)
        self.message_user(request, f"{count} delivery(ies) sent again.", messages.SUCCESS)
        if off:
            self.message_user(
                request, f"{len(off)} left: their endpoint is off (tick Active on it first).", messages.WARNING
            )
