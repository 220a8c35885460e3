"""An email the worker writes prices in the customer's currency, as their pages do."""

from __future__ import annotations

from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.test import override_settings

from domains.orders.tasks import send_renewal_reminders
from pricing.currencies import currency_table_forget
from pricing.models import Currency
from tests.worker.test_renewal_reminders import NOW, order_expiring

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(SITE_URL="https://shop.example")
def test_the_renewal_reminder_is_priced_in_the_customers_currency(customer):
    currency_table_forget()
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    customer.currency = "EUR"
    customer.save(update_fields=["currency"])
    order_expiring(customer, days=30)

    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()

    [message] = mail.outbox
    # 16.49 USD (the .com renewal at our retail price) at 0.92 is 15.17 EUR, up to the euro's ending
    assert "Renewal: €15.99 per year." in message.body
    currency_table_forget()
