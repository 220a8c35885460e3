"""The payment sandbox's URLs, mounted under /stripe/: Stripe's API under v1/, the hosted page under pay/."""

from django.urls import path, re_path

from sandbox.stripe_api import pages, views

app_name = "stripe_api"

urlpatterns = [
    path("v1/checkout/sessions", views.sessions),
    path("v1/checkout/sessions/<str:session_id>", views.session),
    path("v1/checkout/sessions/<str:session_id>/expire", views.session_expire),
    path("v1/payment_intents", views.intents),
    path("v1/payment_intents/<str:intent_id>", views.intent),
    path("v1/payment_intents/<str:intent_id>/capture", views.intent_capture),
    path("v1/payment_intents/<str:intent_id>/cancel", views.intent_cancel),
    path("v1/refunds", views.refunds),
    path("v1/refunds/<str:refund_id>", views.refund),
    path("v1/customers", views.customers),
    path("v1/customers/<str:customer_id>", views.customer),
    path("v1/payment_methods/<str:method_id>", views.payment_method),
    path("v1/payment_methods/<str:method_id>/detach", views.payment_method_detach),
    re_path(r"^v1/(?P<rest>.*)$", views.not_found),
    path("pay/<str:session_id>", pages.pay, name="pay"),
    path("pay/<str:session_id>/authenticate", pages.authenticate, name="authenticate"),
]
