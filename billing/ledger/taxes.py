"""Tax on what a customer pays: each line's tax as pricing.tax computes it for this customer, and the Stripe Tax Rate
that carries it on the Checkout Session (so Stripe's page, its `total_details.amount_tax` and our receipt agree).

Stripe computes a line's tax from its Tax Rate the way pricing.tax does (per line, half up to the minor unit; an
inclusive rate's tax taken out of the amount), so the session's total is the payment's amount to the cent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy

from accounts.models import Customer
from billing.ledger.lines import LineToPay
from billing.models import Payment, PaymentLine
from billing.payments import stripe_client
from pricing.money import Money
from pricing.tax import LineTax, Place, TaxRules, is_reverse_charge, line_tax, percent, tax_rules

if TYPE_CHECKING:
    from stripe.params import TaxRateCreateParams, TaxRateListParams


def customer_place(customer: Customer) -> Place:
    """Where tax is due for the customer: their contact's country and state, and their business VAT number."""
    return Place(country=customer.country, region=customer.state, business_number=customer.business_tax_number)


VAT_UNCONFIRMED_NOTE = gettext_lazy(
    "Your VAT number could not be confirmed with the EU's VAT register (VIES) yet, so VAT is charged. Once it is "
    "confirmed, we refund the VAT."
)


def vat_refund_pending(customer: Customer, rules: TaxRules | None = None) -> bool:
    """Whether the customer is charged VAT only because VIES has not confirmed their number: with it confirmed the
    sale would be reverse charged. The payment is marked so, and the customer told the VAT comes back."""
    number = customer.tax_number_unconfirmed
    if not number:
        return False
    rules = rules if rules is not None else tax_rules()
    return is_reverse_charge(rules.registration, Place(country=customer.country, business_number=number))


def customer_tax_status(customer: Customer, rules: TaxRules | None = None) -> dict[str, str]:
    """What the customer's tax rests on now (their place, their confirmed number, the rate and display that apply):
    part of what a checkout's Buy must find as it was reviewed, so a change made in another tab is said, not
    charged silently."""
    rules = rules if rules is not None else tax_rules()
    place = customer_place(customer)
    probe = line_tax(rules, place, Money(Decimal(100), "EUR"))
    return {
        "country": place.country,
        "region": place.region,
        "number": place.business_number,
        "rate": str(probe.rate),
        "label": probe.label,
        "reverse_charge": str(probe.reverse_charge),
        "inclusive": str(rules.inclusive),
    }


@dataclass(frozen=True)
class TaxedLine:
    line: LineToPay
    tax: LineTax


def lines_taxed(*, customer: Customer, lines: Sequence[LineToPay], rules: TaxRules | None = None) -> list[TaxedLine]:
    rules = rules if rules is not None else tax_rules()
    place = customer_place(customer)
    return [TaxedLine(line, line_tax(rules, place, line.price)) for line in lines]


def stripe_tax_rate(payment: Payment, line: PaymentLine, made: dict[str, list[str]]) -> list[str]:
    """The Stripe Tax Rate of a taxed line, as `tax_rates`: the account's active rate with the same name,
    percentage, country and mode when there is one, else a new one; `made` keeps the ones this session already has.

    Found by its attributes first because an idempotency key lasts 24 hours at Stripe: a key alone would make a
    new Tax Rate each day a rate is used. The key still makes two checkouts creating the same rate at once get one.
    """
    if not line.tax_amount:
        return []
    inclusive = payment.tax_inclusive
    percentage = percent(line.tax_rate)
    key = f"tax-rate-{payment.tax_country}-{line.tax_label}-{percentage}-{'incl' if inclusive else 'excl'}"
    if key in made:
        return made[key]
    params: TaxRateCreateParams = {
        "display_name": line.tax_label or "Tax",
        # Stripe takes the percentage as a number with up to 4 decimals (a rate, not an amount of money).
        "percentage": float(percentage),
        "inclusive": inclusive,
    }
    if payment.tax_country:
        params["country"] = payment.tax_country
    found = _existing_rate(params)
    if found:
        made[key] = [found]
        return made[key]
    rate = stripe_client.call(
        "tax rate create",
        lambda client: client.v1.tax_rates.create(params=params, options={"idempotency_key": key}),
        changes_state=True,
    )
    made[key] = [rate.id]
    return made[key]


def _existing_rate(wanted: TaxRateCreateParams) -> str:
    """The id of the account's active Tax Rate with these attributes, or "" (a page at a time, each page through
    billing.payments.stripe_client: the SDK's auto-paging would make its calls outside it)."""
    listed: TaxRateListParams = {"active": True, "inclusive": wanted["inclusive"], "limit": 100}
    for _ in range(_RATE_PAGES):
        page = stripe_client.call("tax rate list", lambda client: client.v1.tax_rates.list(params=listed))
        for rate in page.data:
            same = (
                rate.display_name == wanted["display_name"]
                and Decimal(str(rate.percentage)) == Decimal(str(wanted["percentage"]))
                and (rate.country or "") == wanted.get("country", "")
                and not rate.state
                and not rate.jurisdiction
            )
            if same:
                return str(rate.id)
        if not page.has_more or not page.data:
            break
        listed["starting_after"] = page.data[-1].id
    return ""


# An account has a handful of Tax Rates; past this many pages a new one is made rather than read on.
_RATE_PAGES = 5
