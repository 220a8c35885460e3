"""Indexes for the payments and documents admins at 100,000 rows: payments newest first and by status; documents in
their order.
Created with SQL of their own (storefront/migration_indexes.py), so that billing's models are left as they are."""

from django.db import migrations

from storefront.migration_indexes import plain_index


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0006_money_after_the_sale"),
    ]

    operations = [
        plain_index(table="billing_payment", columns='"created_at", "id"', name="payment_created_idx"),
        plain_index(table="billing_payment", columns='"status", "created_at", "id"', name="payment_status_created_idx"),
        # The documents' list, in its order (store, kind, number); the unique constraint's index leads with the kind.
        plain_index(
            table="billing_document", columns='"store", "kind", "number"', name="document_store_kind_number_idx"
        ),
    ]
