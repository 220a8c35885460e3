"""The activity log's search by the start of a domain name (accounts/admin.py, `^domain_name`): Django writes it
`UPPER("domain_name"::text) LIKE UPPER('q%')`, which the plain (domain_name, -at) index cannot answer."""

from django.db import migrations

from storefront.migration_indexes import prefix_search_index


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0012_customer_einvoice_details"),
    ]

    operations = [
        prefix_search_index(table="accounts_activity", column="domain_name", name="activity_domain_prefix_idx"),
    ]
