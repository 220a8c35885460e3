"""The one place tax is computed: what a line is charged in tax, and why (the rate, its label, reverse charge and the
wording the receipt must carry).

`line_tax` is a pure function of the store's registration, the customer's place, whether the customer is a business
with a valid VAT number, and the line's amount; `tax_rules` reads the store's registration and rates from the
database once per checkout. Rules:

- no registration: no tax;
- EU seller, business customer in another member state with a valid VAT number: reverse charge, 0% with the
  Article 196 wording (the customer accounts for the VAT);
- otherwise the customer's region's rate, else their country's (the EU's OSS rule for consumers: the customer's
  country rate; a business in the seller's own country is charged normally);
- a country with no rate configured: no tax; a store registered for the EU's One-Stop Shop has every member state's
  published standard rate (pricing/eu_rates.py) unless staff set their own, and a member state left without one is
  a start-up error (pricing/checks.py), never 0 % silently.

Tax is rounded per line, half up to the currency's minor unit. With prices shown tax-inclusive the line's price
already holds its tax: the tax is taken out of it (net + tax = the price); else it is added on top.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from pricing.eu_rates import eu_standard_rates
from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money

# The EU's member states (ISO 3166 codes), for the reverse-charge rule.
EU_COUNTRIES = frozenset("AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK".split())
REVERSE_CHARGE_WORDING = _(
    "Reverse charge: VAT to be accounted for by the recipient, Article 196 of Council Directive 2006/112/EC."
)
HUNDRED = Decimal(100)
# The tax names the store writes itself (the EU rates' and a reverse-charged line's "VAT", the label's suggestions in
# the admin) are said in the customer's language: a French invoice reads "TVA", a Spanish one "IVA". The stored
# label stays English (the tax report and Stripe's rates read it); a name staff typed otherwise is shown as typed.
TAX_NAMES = {
    "VAT": pgettext_lazy("tax name", "VAT"),
    "GST": pgettext_lazy("tax name", "GST"),
    "Sales tax": pgettext_lazy("tax name", "Sales tax"),
}


@dataclass(frozen=True)
class Registration:
    """The store's own tax registration, as printed on its documents."""

    country: str
    tax_id: str
    name: str


@dataclass(frozen=True)
class Rate:
    rate: Decimal  # percent
    label: str


@dataclass(frozen=True)
class Place:
    """Where the customer is, and whether they buy as a business with a VAT number that passed its checks."""

    country: str
    region: str = ""
    business_number: str = ""  # empty unless the customer is a business whose number is valid


@dataclass(frozen=True)
class TaxRules:
    registration: Registration | None
    rates: Mapping[tuple[str, str], Rate]  # (country, region or "") → rate
    inclusive: bool = False


@dataclass(frozen=True)
class LineTax:
    """A line's tax: `net` is what the line is charged before tax, `tax` its tax, `gross` what the customer pays."""

    net: Money
    tax: Money
    rate: Decimal
    label: str
    reverse_charge: bool = False

    @property
    def gross(self) -> Money:
        return self.net + self.tax

    @property
    def wording(self) -> str:
        return str(REVERSE_CHARGE_WORDING) if self.reverse_charge else ""


def tax_name(label: str) -> str:
    """A line's tax label as the customer reads it, in the active language."""
    name = TAX_NAMES.get(label)
    return str(name) if name is not None else label


def percent(rate: Decimal) -> Decimal:
    """A rate as people write it: 20 (not 20.000 or 2E+1), 8.875."""
    return Decimal(format(rate.normalize(), "f"))


def taxes_by_rate(taxes: Iterable[tuple[str, Decimal, Money]]) -> list[tuple[str, Decimal, Money]]:
    """(label, rate, amount) per rate and currency, summed, as documents and pages list them; zero taxes left out."""
    found: dict[tuple[str, Decimal, str], Money] = {}
    for label, rate, amount in taxes:
        if not amount.is_zero:
            key = (label, rate, amount.currency)
            found[key] = found.get(key, Money.zero(amount.currency)) + amount
    return [(label, rate, amount) for (label, rate, _), amount in found.items()]


def _rate_for(rules: TaxRules, place: Place) -> Rate | None:
    country, region = place.country.upper(), place.region.strip().upper()
    return rules.rates.get((country, region)) or rules.rates.get((country, ""))


def is_reverse_charge(registration: Registration | None, place: Place) -> bool:
    if registration is None or not place.business_number:
        return False
    seller, buyer = registration.country.upper(), place.country.upper()
    return seller in EU_COUNTRIES and buyer in EU_COUNTRIES and seller != buyer


def line_tax(rules: TaxRules, place: Place, price: Money) -> LineTax:
    """The tax of one line whose quoted price is `price` (tax-inclusive or not per `rules.inclusive`)."""
    zero = Money.zero(price.currency)
    if rules.registration is None:
        return LineTax(net=price, tax=zero, rate=Decimal(0), label="")
    if is_reverse_charge(rules.registration, place):
        return LineTax(net=price, tax=zero, rate=Decimal(0), label="VAT", reverse_charge=True)
    found = _rate_for(rules, place)
    if found is None or found.rate == 0:
        return LineTax(net=price, tax=zero, rate=Decimal(0), label=found.label if found else "")
    if rules.inclusive:
        # Rounded from the exact fraction so net + tax is the price to the cent.
        tax = Money(price.amount * found.rate / (HUNDRED + found.rate), price.currency).rounded()
        return LineTax(net=price - tax, tax=tax, rate=found.rate, label=found.label)
    tax = Money(price.amount * found.rate / HUNDRED, price.currency).rounded()
    return LineTax(net=price, tax=tax, rate=found.rate, label=found.label)


def tax_rules() -> TaxRules:
    """The store's registration and rates as staff set them in the admin, and the display setting. A store registered
    for the EU's One-Stop Shop charges each member state's standard rate (pricing/eu_rates.py) where staff set none."""
    row = TaxRegistration.objects.first()
    registration = Registration(country=row.country, tax_id=row.tax_id, name=row.name) if row else None
    rates = {(r.country, r.region): Rate(rate=percent(r.rate), label=r.label) for r in TaxRate.objects.all()}
    if row is not None and row.oss:
        published = {
            (country, ""): Rate(rate=percent(rate), label="VAT") for country, rate in eu_standard_rates().items()
        }
        rates = {**published, **rates}
    return TaxRules(registration=registration, rates=rates, inclusive=settings.PRICES_INCLUDE_TAX)


def oss_rates_missing() -> list[str]:
    """The EU member states a store registered for the One-Stop Shop has no rate for (its consumers there would be
    charged no VAT): empty when it is not registered for it, or every state has one."""
    rules = tax_rules()
    row = TaxRegistration.objects.first()
    if row is None or not row.oss:
        return []
    return sorted(country for country in EU_COUNTRIES if (country, "") not in rules.rates)


TAX_RULES_KEY = "pricing:tax-rules"


def shown_tax_rules() -> TaxRules:
    """The same rules for the pages that show tax (cart, checkout, the domain page's buttons), kept in the shared
    cache: the order page must not grow by two queries for them. Staff's changes forget the kept copy at once
    (`tax_rules_forget`, from the models' save and delete signals); a payment reads `tax_rules()` itself."""
    kept = cache.get(TAX_RULES_KEY)
    if not isinstance(kept, TaxRules):
        kept = tax_rules()
        cache.set(TAX_RULES_KEY, kept, 3600)
    # The display setting is read now, never from the kept copy.
    return dataclasses.replace(kept, inclusive=settings.PRICES_INCLUDE_TAX)


def tax_rules_forget(**_: object) -> None:
    cache.delete(TAX_RULES_KEY)
