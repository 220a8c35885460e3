"""The payments URLs: Stripe's webhook, receipts and credit notes, the Billing page, the saved card (add, remove)."""

from django.urls import path

from billing import views

app_name = "billing"

urlpatterns = [
    path("payments/stripe/webhook/", views.stripe_webhook, name="stripe_webhook"),
    path("payments/receipts/<int:number>/", views.receipt, name="receipt"),
    path("payments/credit-notes/<int:number>/", views.credit_note, name="credit_note"),
    path("account/billing/", views.billing, name="billing"),
    path("payments/card/remove/", views.card_remove, name="card_remove"),
    path("payments/card/add/", views.card_add, name="card_add"),
    path("payments/card/added/", views.card_added, name="card_added"),
    path("payments/pay/<uuid:checkout_id>/", views.pay_due, name="pay_due"),
]
