"""Indexes for the ledger admin's searches at 100,000 rows (billing/admin.py, LedgerEntryAdmin): a payment service's
id equals the entry's source id; a domain name matches the start of its line's reference. Created with SQL of their
own (storefront/migration_indexes.py), so that billing's models are left as they are."""

from django.db import migrations

from storefront.migration_indexes import plain_index, prefix_search_index


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0014_ledger_fee"),
    ]

    operations = [
        plain_index(table="billing_ledgerentry", columns='"source_id"', name="ledger_source_idx"),
        prefix_search_index(table="billing_paymentline", column="reference", name="paymentline_reference_prefix_idx"),
    ]
