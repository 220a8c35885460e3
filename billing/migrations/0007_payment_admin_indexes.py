"""Indexes for the payments admin at 100,000 rows: newest first, by status, by customer (the customer's own list).
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
    ]
