"""Reverse charge rests only on a VAT number the EU's VIES confirmed (checked online by default in production): a
checksum-valid number can be anyone's, and the VAT not collected on it is owed by the store. While VIES has not
confirmed it (it did not answer), the sale is charged VAT with a note that it is refunded once the number is
confirmed, and staff find such payments under "VAT to refund"."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.billing.test_tax_charged import WORDING, _as, _page, german_store, pay  # noqa: F401 (fixtures)
from tests.settings_env import settings_with

pytestmark = pytest.mark.django_db

NOTE = "Your VAT number could not be confirmed with the EU&#x27;s VAT register (VIES) yet, so VAT is charged."


def _checked(customer, check: str) -> None:
    customer.tax_number_check = check
    customer.save(update_fields=["tax_number_check"])


PRODUCTION = {"DJANGO_SECRET_KEY": "x" * 50, "RESELLER_SANDBOX": "true", "SITE_URL": "https://shop.example.com"}


def test_the_online_check_is_on_by_default_in_production_only():
    assert settings_with(**PRODUCTION)["TAX_VIES_CHECK"] is True
    assert settings_with(**PRODUCTION, TAX_VIES_CHECK="false")["TAX_VIES_CHECK"] is False
    assert settings_with(DJANGO_DEBUG="true")["TAX_VIES_CHECK"] is False


def test_a_number_vies_confirmed_is_reverse_charged(german_store, pay, customer, settings):  # noqa: F811
    settings.TAX_VIES_CHECK = True
    _as(customer, "FR", "FR40303265045")
    _checked(customer, "valid")
    payment, _ = pay()
    assert payment.amount == Decimal("37.99") and payment.reverse_charge
    assert not payment.vat_refund_due


@pytest.mark.parametrize("check", ["not_checked", ""])
def test_a_number_vies_did_not_confirm_is_charged_vat_to_refund_later(
    german_store,  # noqa: F811
    pay,  # noqa: F811
    customer,
    settings,
    check,
):
    settings.TAX_VIES_CHECK = True
    _as(customer, "FR", "FR40303265045")  # checksum-valid, but not confirmed: anyone's number
    _checked(customer, check)
    payment, _ = pay()
    assert payment.amount == Decimal("45.59")  # 20 % French VAT charged
    assert not payment.reverse_charge and payment.vat_refund_due
    receipt = _page(customer, f"/payments/receipts/{payment.receipt.number}/")
    assert NOTE in receipt and WORDING not in receipt

    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("s@example.org", "s@example.org", "Staff#Pass9"))
    listed = staff.get("/admin/billing/payment/?vat_refund_due__exact=1")
    assert [p.pk for p in listed.context["cl"].result_list] == [payment.pk]
    assert "VAT to refund" in listed.content.decode()


def test_a_consumer_is_never_marked_vat_to_refund(german_store, pay, customer, settings):  # noqa: F811
    settings.TAX_VIES_CHECK = True
    _as(customer, "FR")
    payment, _ = pay()
    assert payment.amount == Decimal("45.59") and not payment.vat_refund_due
