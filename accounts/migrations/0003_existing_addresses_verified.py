"""Customers who signed up before address confirmation existed keep buying: their provider customer exists,
so their address is recorded as confirmed (allauth's EmailAddress)."""

from django.db import migrations


def forwards(apps, schema_editor):
    Customer = apps.get_model("accounts", "Customer")
    EmailAddress = apps.get_model("account", "EmailAddress")
    for customer in Customer.objects.filter(customer_id__isnull=False).select_related("user"):
        user = customer.user
        if user.email and not EmailAddress.objects.filter(user=user).exists():
            EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_customer_signup_sent_at"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
