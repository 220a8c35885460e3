"""Customers' name, company, address and city in two forms (as written, and in ASCII as sent to the provider), and
the contact changes waiting for staff. Every customer so far was refused anything but ASCII at signup, so their ASCII
forms are what they wrote."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F


def copy_ascii_forms(apps, schema_editor):
    Customer = apps.get_model("accounts", "Customer")
    Customer.objects.update(
        name_ascii=F("name"), company_ascii=F("company"), address_ascii=F("address"), city_ascii=F("city")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_activity_log_and_acting"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="customer",
            name="name_ascii",
            field=models.CharField(default="", max_length=255),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="customer",
            name="company_ascii",
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.AddField(
            model_name="customer",
            name="address_ascii",
            field=models.CharField(default="", max_length=255),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="customer",
            name="city_ascii",
            field=models.CharField(default="", max_length=255),
            preserve_default=False,
        ),
        migrations.RunPython(copy_ascii_forms, migrations.RunPython.noop, elidable=True),
        migrations.CreateModel(
            name="ContactChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting for staff to send it to the provider"),
                            ("done", "Sent to the provider by staff"),
                            ("sent", "Sent to the provider through its interface"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("details", models.JSONField()),
                ("requested_at", models.DateTimeField()),
                ("done_at", models.DateTimeField(blank=True, null=True)),
                (
                    "customer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="contact_changes",
                        to="accounts.customer",
                    ),
                ),
                (
                    "done_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-requested_at", "-pk"],
                "indexes": [models.Index(fields=["status", "requested_at"], name="contact_change_status_at")],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("status", "pending")),
                        fields=("customer",),
                        name="contact_change_one_pending",
                    )
                ],
            },
        ),
    ]
