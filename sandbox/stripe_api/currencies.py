"""The currencies the payment sandbox takes and Stripe's rules for their amounts in minor units.

From Stripe's "Supported currencies" page (docs.stripe.com/currencies): its presentment currencies for card
payments, the zero-decimal ones (the amount is in whole units), the special cases (ISK and UGX moved to zero
decimals but are still sent with two, the last two always 00; HUF and TWD are charged with two decimals, their
divisible-by-100 rule being for payouts only), and the three-decimal ones (BHD, JOD, KWD, OMR, TND: three-decimal
minor units whose last digit must be 0).
"""

from __future__ import annotations

from decimal import Decimal

# Stripe's presentment currencies for card payments (a US account), plus the three-decimal ones it supports for
# accounts that present them.
SUPPORTED = frozenset(
    """usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd bwp byn bzd cad cdf
    chf clp cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd gnf gtq gyd hkd hnl htg huf idr
    ils inr isk jmd jod jpy kes kgs khr kmf krw kwd kyd kzt lak lbp lkr lrd lsl mad mdl mga mkd mmk mnt mop mur mvr
    mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd
    shp sle sos srd std szl thb tjs tnd top try ttd twd tzs uah ugx uyu uzs vnd vuv wst xaf xcd xof xpf yer zar
    zmw""".split()
)
ZERO_DECIMAL = frozenset("bif clp djf gnf jpy kmf krw mga pyg rwf vnd vuv xaf xof xpf".split())
# Zero-decimal in fact, sent with two decimals that must be 00 (Stripe's special cases).
WHOLE_UNITS_IN_TWO_DECIMALS = frozenset({"isk", "ugx"})
THREE_DECIMAL = frozenset({"bhd", "jod", "kwd", "omr", "tnd"})


def exponent(currency: str) -> int:
    """How many decimals the API's minor units carry."""
    if currency in ZERO_DECIMAL:
        return 0
    return 3 if currency in THREE_DECIMAL else 2


def step(currency: str) -> int:
    """The smallest amount, in minor units, that Stripe accepts a multiple of."""
    if currency in WHOLE_UNITS_IN_TWO_DECIMALS:
        return 100
    return 10 if currency in THREE_DECIMAL else 1


def shown_decimals(currency: str) -> int:
    """How many decimals a person sees (ISK and UGX have none, whatever the API's minor units)."""
    return 0 if currency in WHOLE_UNITS_IN_TWO_DECIMALS else exponent(currency)


def amount_problem(amount: int, currency: str) -> str | None:
    """Why Stripe refuses this amount in this currency, or None."""
    if currency in WHOLE_UNITS_IN_TWO_DECIMALS and amount % 100:
        return (
            f"Invalid amount {amount} for {currency}: {currency.upper()} amounts are sent with two decimals that "
            f"must be 00 (whole units only, e.g. 500 for 5 {currency.upper()})."
        )
    if currency in THREE_DECIMAL and amount % 10:
        return (
            f"Invalid amount {amount} for {currency}: amounts in three-decimal currencies must end in 0 (round to "
            f"the nearest ten, e.g. 5120 or 5130 for 5.124 {currency.upper()})."
        )
    return None


# Stripe's minimum charge per currency (docs.stripe.com/currencies, "Minimum and maximum charge amounts"), in
# minor units. Other currencies have the equivalent of 0.50 USD at the day's rate, which the sandbox does not know.
MINIMUM_CHARGE = {
    "usd": 50,
    "aed": 200,
    "aud": 50,
    "bgn": 100,
    "brl": 50,
    "cad": 50,
    "chf": 50,
    "czk": 1500,
    "dkk": 250,
    "eur": 50,
    "gbp": 30,
    "hkd": 400,
    "huf": 17500,
    "inr": 50,
    "jpy": 50,
    "mxn": 1000,
    "myr": 200,
    "nok": 300,
    "nzd": 50,
    "pln": 200,
    "ron": 200,
    "sek": 300,
    "sgd": 50,
    "thb": 1000,
}


def below_minimum(amount: int, currency: str) -> str | None:
    """The minimum charge as a person reads it (`0.50 USD`) when `amount` is below it, else None."""
    minimum = MINIMUM_CHARGE.get(currency)
    if minimum is None or amount >= minimum:
        return None
    return shown(minimum, currency)


def unsupported_message(currency: str) -> str:
    return f"Invalid currency: {currency}. Stripe currently supports these currencies: {', '.join(sorted(SUPPORTED))}"


def to_major(amount: int, currency: str) -> Decimal:
    return Decimal(amount).scaleb(-exponent(currency))


def shown(amount: int, currency: str) -> str:
    """An amount as the hosted page shows it: `37.99 USD`, `1500 JPY`, `5 ISK`, `5.120 KWD`."""
    places = shown_decimals(currency)
    value = to_major(amount, currency).quantize(Decimal(1).scaleb(-places))
    return f"{value} {currency.upper()}"


def major_in_minor(major: Decimal, currency: str) -> int:
    """A fixed amount given in whole units (a fee) in this currency's minor units, on its step."""
    minor = int((major * Decimal(10) ** exponent(currency)).to_integral_value())
    unit = step(currency)
    return minor - minor % unit
