"""Staff switch the payment sandbox's faults and webhook endpoint here, and look at what it holds."""

from django.contrib import admin

from sandbox.stripe_api.models import ApiCall, Event, Setup, StripeObject


@admin.register(Setup)
class SetupAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "webhook_url",
        "webhook_delivery",
        "decline_all_cards",
        "api_error",
        "timeout_after_capture",
    )


@admin.register(StripeObject)
class StripeObjectAdmin(admin.ModelAdmin):
    list_display = ("id", "object", "payment_intent", "created_at")
    list_filter = ("object",)
    search_fields = ("id", "payment_intent")
    readonly_fields = ("id", "object", "data", "api_key", "payment_intent", "created_at")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("id", "type", "deliveries", "last_delivery_status", "created_at")
    list_filter = ("type",)


@admin.register(ApiCall)
class ApiCallAdmin(admin.ModelAdmin):
    list_display = ("at", "method", "path", "status", "idempotency_key", "replayed")
