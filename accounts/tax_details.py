"""The customer's tax details: buying as a business, and its VAT/GST number (checked for format and check digits by
the form, and online by VIES where the store enables it). What reverse charge rests on (pricing/tax.py)."""

from __future__ import annotations

import enum

from django.conf import settings
from django.utils import timezone

from accounts.models import Customer
from accounts.staff.activity import activity_record
from pricing.tax import EU_COUNTRIES
from pricing.tax_numbers import TaxNumber, ViesAnswer, vies_check

# The customer's tax details, as this module saves them and as staff read them in the admin.
TAX_DETAIL_FIELDS = (
    "is_business",
    "tax_number",
    "tax_number_check",
    "tax_number_checked_at",
    "buyer_reference",
    "wants_einvoices",
)


class Saved(enum.Enum):
    SAVED = "saved"
    NOT_CHECKED = "not_checked"  # saved; VIES did not answer, so the number is recorded as not checked
    REFUSED = "refused"  # VIES says the number is not registered: nothing saved


def tax_details_save(
    *,
    customer: Customer,
    is_business: bool,
    number: TaxNumber | None,
    buyer_reference: str = "",
    wants_einvoices: bool = False,
) -> Saved:
    """Save the customer's tax details; with the online check on, an EU number is asked about first."""
    check = ""
    if is_business and number is not None and settings.TAX_VIES_CHECK and number.country in EU_COUNTRIES:
        answer = vies_check(number)
        if answer is ViesAnswer.INVALID:
            return Saved.REFUSED
        check = answer.value
    customer.is_business = is_business
    customer.tax_number = number.number if is_business and number is not None else ""
    customer.tax_number_check = check if customer.tax_number else ""
    customer.tax_number_checked_at = timezone.now() if check else None
    customer.buyer_reference = buyer_reference.strip()
    customer.wants_einvoices = wants_einvoices
    customer.save(update_fields=list(TAX_DETAIL_FIELDS))
    activity_record(
        action="tax_details_changed",
        customer=customer,
        detail={
            "business": "yes" if is_business else "no",
            "vat_id": customer.tax_number or "-",
            "check": check or "format only",
        },
    )
    return Saved.NOT_CHECKED if check == ViesAnswer.NOT_CHECKED.value else Saved.SAVED
