"""The payment sandbox's URLs, mounted under /stripe/: Stripe's API under v1/, the hosted page under pay/."""

from django.urls import path, re_path

from sandbox.stripe_api import pages
from sandbox.stripe_api.views import checkout, customers, events, intents, refunds, tax_rates, webhook_endpoints
from sandbox.stripe_api.views.base import not_found, retrieve

app_name = "stripe_api"

urlpatterns = [
    path("v1/checkout/sessions", checkout.sessions),
    path("v1/checkout/sessions/<str:object_id>", retrieve("checkout.session")),
    path("v1/checkout/sessions/<str:session_id>/line_items", checkout.session_line_items),
    path("v1/checkout/sessions/<str:session_id>/expire", checkout.session_expire),
    path("v1/payment_intents", intents.intents),
    path("v1/payment_intents/<str:object_id>", retrieve("payment_intent")),
    path("v1/payment_intents/<str:intent_id>/capture", intents.intent_capture),
    path("v1/payment_intents/<str:intent_id>/cancel", intents.intent_cancel),
    path("v1/charges/<str:object_id>", retrieve("charge")),
    path("v1/refunds", refunds.refunds),
    path("v1/refunds/<str:object_id>", retrieve("refund")),
    path("v1/disputes/<str:object_id>", retrieve("dispute")),
    path("v1/balance_transactions/<str:object_id>", retrieve("balance_transaction")),
    path("v1/events", events.events),
    path("v1/events/<str:event_id>", events.event),
    path("v1/customers", customers.customers),
    path("v1/customers/<str:object_id>", retrieve("customer")),
    path("v1/payment_methods/<str:object_id>", retrieve("payment_method")),
    path("v1/payment_methods/<str:method_id>/detach", customers.payment_method_detach),
    path("v1/setup_intents/<str:object_id>", retrieve("setup_intent")),
    path("v1/tax_rates", tax_rates.tax_rates),
    path("v1/tax_rates/<str:object_id>", retrieve("tax_rate")),
    path("v1/webhook_endpoints", webhook_endpoints.webhook_endpoints),
    path("v1/webhook_endpoints/<str:endpoint_id>", webhook_endpoints.webhook_endpoint),
    re_path(r"^v1/(?P<rest>.*)$", not_found),
    path("pay/<str:session_id>", pages.pay, name="pay"),
    path("pay/<str:session_id>/authenticate", pages.authenticate, name="authenticate"),
]
