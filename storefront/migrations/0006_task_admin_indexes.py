"""Indexes for the task results admin (django-tasks-db's table) at 100,000 rows: newest first, and by status."""

from django.db import migrations

from storefront.migration_indexes import plain_index


class Migration(migrations.Migration):
    dependencies = [
        ("storefront", "0005_legal_pages"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [
        plain_index(table="django_tasks_database_dbtaskresult", columns='"enqueued_at"', name="task_enqueued_idx"),
        plain_index(
            table="django_tasks_database_dbtaskresult",
            columns='"status", "enqueued_at"',
            name="task_status_enqueued_idx",
        ),
    ]
