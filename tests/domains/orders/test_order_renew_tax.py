"""A renewal's confirmation says what will be charged, tax included, and charges exactly that on the saved card."""

from __future__ import annotations

from decimal import Decimal

import pytest

from billing.models import Payment
from pricing.models import TaxRate, TaxRegistration
from tests.domains.orders.test_order_renew_saved_card import charge_saved, confirm_fields, confirm_page, save_card

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def test_the_renewal_confirmation_says_and_charges_the_price_with_its_tax(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")
    customer.country = "FR"
    customer.save()
    save_card(signed_in, stripe_sandbox)
    order = provider_orders.register(customer, "renewtax.com")

    html = confirm_page(signed_in, order, 2)
    assert "+ VAT 20%: $6.60" in html  # 32.98 x 20% = 6.596
    assert "Charge $39.58 to Visa •••• 4242 and renew" in html

    charge_saved(signed_in, order, confirm_fields(html))
    payment = Payment.objects.get()
    assert (payment.amount_captured, payment.tax_total.amount) == (Decimal("39.58"), Decimal("6.60"))
