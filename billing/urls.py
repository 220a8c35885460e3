"""The payments URLs: Stripe's webhook, receipts and credit notes (pages, PDFs and e-invoices), the Billing page,
the saved card (add, remove)."""

from django.urls import path

from billing import views
from billing.models import Document

app_name = "billing"

urlpatterns = [
    path("payments/stripe/webhook/", views.stripe_webhook, name="stripe_webhook"),
    path("payments/receipts/<int:number>/", views.receipt, name="receipt"),
    path("payments/credit-notes/<int:number>/", views.credit_note, name="credit_note"),
    path(
        "payments/receipts/<int:number>/pdf/",
        views.document_pdf_download,
        {"kind": Document.Kind.RECEIPT},
        name="receipt_pdf",
    ),
    path(
        "payments/credit-notes/<int:number>/pdf/",
        views.document_pdf_download,
        {"kind": Document.Kind.CREDIT_NOTE},
        name="credit_note_pdf",
    ),
    *[
        path(
            f"payments/{segment}/<int:number>/{form_segment}/",
            views.document_einvoice_download,
            {"kind": kind, "form": form},
            name=f"{name}_{form}",
        )
        for segment, kind, name in (
            ("receipts", Document.Kind.RECEIPT, "receipt"),
            ("credit-notes", Document.Kind.CREDIT_NOTE, "credit_note"),
        )
        for form_segment, form in (("factur-x", "facturx"), ("xrechnung", "xrechnung"))
    ],
    path("account/billing/", views.billing, name="billing"),
    path("payments/card/remove/", views.card_remove, name="card_remove"),
    path("payments/card/add/", views.card_add, name="card_add"),
    path("payments/card/added/", views.card_added, name="card_added"),
    path("payments/pay/<uuid:checkout_id>/", views.pay_due, name="pay_due"),
]
