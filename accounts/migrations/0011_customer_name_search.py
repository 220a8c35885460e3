from django.db import migrations, models

from accounts.signup.spelling import name_search_form


def fill_name_search(apps, schema_editor):
    """Existing customers' search form of their name, as Customer.save() keeps it from now on."""
    Customer = apps.get_model("accounts", "Customer")
    changed = []
    for customer in Customer.objects.only("pk", "name", "name_ascii").iterator(chunk_size=2000):
        customer.name_search = name_search_form(customer.name, customer.name_ascii)
        changed.append(customer)
        if len(changed) == 2000:
            Customer.objects.bulk_update(changed, ["name_search"])
            changed = []
    Customer.objects.bulk_update(changed, ["name_search"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0010_customer_tax_number"),
    ]

    operations = [
        migrations.AddField(
            model_name="customer",
            name="name_search",
            field=models.CharField(blank=True, default="", editable=False, max_length=512),
        ),
        migrations.RunPython(fill_name_search, migrations.RunPython.noop, elidable=True),
    ]
