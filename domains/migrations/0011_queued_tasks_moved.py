"""Tasks queued before the domains app was grouped by feature name their task by its old module path; the worker
would fail to import them. Rewrite the paths of the tasks still waiting (finished ones keep their history)."""

from django.db import migrations

MOVED = {
    "domains.tasks.send_checkout_email": "domains.checkout.tasks.send_checkout_email",
    "domains.tasks.place_checkout": "domains.checkout.tasks.place_checkout",
    "domains.tasks.reconcile_checkout": "domains.checkout.tasks.reconcile_checkout",
    "domains.tasks.send_pending_checkout_emails": "domains.checkout.tasks.send_pending_checkout_emails",
    "domains.tasks.reconcile_registrations": "domains.checkout.tasks.reconcile_registrations",
    "domains.tasks.send_renewal_email": "domains.orders.tasks.send_renewal_email",
    "domains.tasks.sync_orders": "domains.orders.tasks.sync_orders",
    "domains.tasks.auto_renew_domains": "domains.orders.tasks.auto_renew_domains",
    "domains.tasks.send_auto_renew_failure": "domains.orders.tasks.send_auto_renew_failure",
    "domains.tasks.send_renewal_reminders": "domains.orders.tasks.send_renewal_reminders",
}


def forwards(apps, schema_editor):
    results = apps.get_model("django_tasks_database", "DBTaskResult")
    for old, new in MOVED.items():
        results.objects.filter(task_path=old, status__in=["READY", "RUNNING"]).update(task_path=new)


def backwards(apps, schema_editor):
    results = apps.get_model("django_tasks_database", "DBTaskResult")
    for old, new in MOVED.items():
        results.objects.filter(task_path=new, status__in=["READY", "RUNNING"]).update(task_path=old)


class Migration(migrations.Migration):
    dependencies = [
        ("domains", "0010_registration_failure_kind_choices"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
