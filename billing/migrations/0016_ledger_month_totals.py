"""The ledger's kept totals per month (billing.models.LedgerMonthTotal), written from the entries already booked."""

import zoneinfo
from decimal import Decimal

from django.conf import settings
from django.db import migrations, models

ZERO = Decimal("0.00")
NAMES = (
    "captured",
    "refunded",
    "disputed",
    "written_off",
    "cost",
    "tax_captured",
    "tax_refunded",
    "tax_disputed",
    "fees",
)


def totals_from_entries(apps, schema_editor):
    # Its own copy of billing.ledger.books's sums (a migration runs on the models as they were).
    LedgerEntry = apps.get_model("billing", "LedgerEntry")
    LedgerMonthTotal = apps.get_model("billing", "LedgerMonthTotal")
    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    sums: dict[tuple, dict] = {}
    for entry in LedgerEntry.objects.select_related("payment").order_by("pk").iterator(chunk_size=2000):
        month = entry.occurred_at.astimezone(zone).date().replace(day=1)
        key = (month, entry.currency, entry.payment.rate or ZERO, entry.tld, entry.cause)
        total = sums.setdefault(key, dict.fromkeys(NAMES, ZERO) | {"unknown_cost": 0, "entries": 0})
        column = {"capture": "captured", "refund": "refunded"}.get(entry.kind, "disputed")
        if entry.kind == "fee":
            total["fees"] += entry.fee
        elif entry.kind != "write_off":
            total[column] += entry.amount
            total[f"tax_{column}"] += entry.tax
        total["written_off"] += entry.written_off
        total["cost"] += entry.cost or ZERO
        total["unknown_cost"] += int(entry.kind in ("capture", "write_off") and entry.cost is None)
        total["entries"] += 1
    LedgerMonthTotal.objects.bulk_create(
        [
            LedgerMonthTotal(month=month, currency=currency, rate=rate, tld=tld, cause=cause, **values)
            for (month, currency, rate, tld, cause), values in sums.items()
        ],
        batch_size=1000,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0015_ledger_search_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="LedgerMonthTotal",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("month", models.DateField()),
                ("currency", models.CharField(max_length=3)),
                ("rate", models.DecimalField(decimal_places=6, default=Decimal("0"), max_digits=18)),
                ("tld", models.CharField(blank=True, max_length=63)),
                (
                    "cause",
                    models.CharField(
                        choices=[
                            ("registration", "Registration"),
                            ("renewal", "Renewal"),
                            ("auto_renewal", "Auto-renewal"),
                            ("privacy", "WHOIS privacy"),
                        ],
                        max_length=16,
                    ),
                ),
                ("captured", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("refunded", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("disputed", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("written_off", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("cost", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("unknown_cost", models.PositiveIntegerField(default=0)),
                ("entries", models.PositiveIntegerField(default=0)),
                ("tax_captured", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("tax_refunded", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("tax_disputed", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("fees", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("month", "currency", "rate", "tld", "cause"),
                        name="one_ledger_total_per_month_and_group",
                    )
                ],
            },
        ),
        migrations.RunPython(totals_from_entries, migrations.RunPython.noop),
    ]
