"""The EU member states' standard VAT rates, as a store registered for the One-Stop Shop charges consumers in each:
from the eu-vat-rates-data package (the European Commission's TEDB, released as rates change: keep it upgraded, as
requirements.txt pins it). Staff's own tax rates win over these (pricing/tax.py)."""

from __future__ import annotations

from decimal import Decimal

import eu_vat_rates_data

# The date the package's EU rates were taken from the Commission's database, shown to staff beside them.
EU_RATES_VERSION: str = eu_vat_rates_data.data_version


def eu_standard_rates() -> dict[str, Decimal]:
    """Each EU member state's standard rate in percent, by ISO code (Greece as GR)."""
    return {
        country: Decimal(str(rate["standard"]))
        for country, rate in eu_vat_rates_data.get_all_rates().items()
        if rate["eu_member"] and rate["standard"] is not None
    }
