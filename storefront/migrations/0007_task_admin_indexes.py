"""Indexes for the task results admin (django-tasks-db's table) at 100,000 rows: newest first, by status, and its
searches by the task's name or path."""

from django.db import migrations

from storefront.migration_indexes import plain_index, prefix_search_index


class Migration(migrations.Migration):
    dependencies = [
        ("storefront", "0006_outgoing_email"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [
        # Searches: the start of the dotted path, and its end (the task's name) through the reversed path.
        prefix_search_index(
            table="django_tasks_database_dbtaskresult", column="task_path", name="task_path_prefix_idx"
        ),
        plain_index(
            table="django_tasks_database_dbtaskresult",
            columns='REVERSE("task_path") text_pattern_ops',
            name="task_name_idx",
            postgresql_only=True,
        ),
        plain_index(table="django_tasks_database_dbtaskresult", columns='"enqueued_at"', name="task_enqueued_idx"),
        plain_index(
            table="django_tasks_database_dbtaskresult",
            columns='"status", "enqueued_at"',
            name="task_status_enqueued_idx",
        ),
    ]
