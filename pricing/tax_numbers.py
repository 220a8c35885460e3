"""VAT/GST numbers: format and check digits by python-stdnum, and the EU's online check (VIES) where the store
enables it (settings.TAX_VIES_CHECK).

VIES being away never blocks a sale: its answer is "valid", "invalid" or "not checked", and only "invalid" refuses
a number. The call goes through `requests` with a short timeout, to settings.TAX_VIES_URL (the REST API's
`check-vat-number`).
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass

import requests
from django.conf import settings
from stdnum import exceptions as stdnum_errors
from stdnum.au import abn
from stdnum.ca import bn
from stdnum.ch import vat as ch_vat
from stdnum.eu import vat as eu_vat
from stdnum.gb import vat as gb_vat
from stdnum.no import mva

from pricing.tax import EU_COUNTRIES

logger = logging.getLogger(__name__)
VIES_TIMEOUT = 5  # seconds: the form waits at most this long, then records "not checked"

# Checkers for the countries outside the EU that a reseller commonly registers in; others are kept as typed.
_OTHERS = {"GB": gb_vat, "AU": abn, "CA": bn, "CH": ch_vat, "NO": mva}


class InvalidTaxNumber(ValueError):
    pass


@dataclass(frozen=True)
class TaxNumber:
    country: str
    number: str  # compact, with its country prefix for EU numbers (DE136695976)


def tax_number_parse(country: str, typed: str) -> TaxNumber:
    """The number in its compact form, checked for format and check digits. Raises InvalidTaxNumber."""
    country = country.upper()
    try:
        if country in EU_COUNTRIES:
            prefix = "EL" if country == "GR" else country
            compact = eu_vat.compact(typed)
            if not compact[:2].isalpha():
                compact = prefix + compact
            if compact[:2] != prefix:
                raise InvalidTaxNumber(f"not a {country} number")
            return TaxNumber(country, eu_vat.validate(compact))
        checker = _OTHERS.get(country)
        if checker is None:
            compact = "".join(typed.split()).upper()
            if not compact.isalnum() or not 4 <= len(compact) <= 20:
                raise InvalidTaxNumber("unreadable")
            return TaxNumber(country, compact)
        return TaxNumber(country, checker.validate(typed))
    except stdnum_errors.ValidationError as err:
        raise InvalidTaxNumber(str(err)) from err


class ViesAnswer(enum.Enum):
    VALID = "valid"
    INVALID = "invalid"
    NOT_CHECKED = "not_checked"


def vies_check(number: TaxNumber) -> ViesAnswer:
    """Ask VIES whether an EU number is registered; any failure of the service is NOT_CHECKED, never a refusal."""
    try:
        response = requests.post(
            f"{settings.TAX_VIES_URL}/check-vat-number",
            json={"countryCode": number.number[:2], "vatNumber": number.number[2:]},
            timeout=VIES_TIMEOUT,
        )
        response.raise_for_status()
        answer = response.json()
    except (requests.RequestException, ValueError) as err:
        logger.warning("VIES check of %s not made: %s", number.number, err)
        return ViesAnswer.NOT_CHECKED
    if not isinstance(answer, dict) or not isinstance(answer.get("valid"), bool):
        return ViesAnswer.NOT_CHECKED
    if answer.get("userError") not in (None, "VALID", "INVALID"):
        # MS_UNAVAILABLE, TIMEOUT, ...: the member state's register did not answer.
        return ViesAnswer.NOT_CHECKED
    return ViesAnswer.VALID if answer["valid"] else ViesAnswer.INVALID
