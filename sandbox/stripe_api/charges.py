"""Charges: made when a payment intent is authorised, captured, released, and the capture deadline of a hold.

The deadline follows Stripe's "Place a hold on a payment method": an online card authorisation the customer made
(on the payment page) may be captured for 7 days; one the merchant made without the customer (off-session) for 7
days too, except on Visa: 5 days, exactly 4 days and 18 hours "to allow time for clearing processes". An extended
authorisation (requested, and granted only when the setup says the account may have it) lasts 30 days.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from sandbox.stripe_api import balance, clock, currencies, money_objects
from sandbox.stripe_api.models import Setup, StripeObject

HOUR = 3600
DAY = 24 * HOUR
CUSTOMER_INITIATED_WINDOW = 7 * DAY
MERCHANT_INITIATED_WINDOWS = {"visa": 4 * DAY + 18 * HOUR}  # every other brand: 7 days
EXTENDED_WINDOW = 30 * DAY
# A Link payment's card is not shown: without the brand, an off-session hold gets the shortest window (Visa's).
UNKNOWN_BRAND_MERCHANT_WINDOW = MERCHANT_INITIATED_WINDOWS["visa"]

# Stripe's standard US card pricing, applied in the charge's own currency (the sandbox converts nothing).
CARD_FEE_PERCENT = Decimal("2.9")
CARD_FEE_FIXED = Decimal("0.30")


def capture_window(*, brand: str | None, off_session: bool, extended: bool) -> int:
    if extended:
        return EXTENDED_WINDOW
    if not off_session:
        return CUSTOMER_INITIATED_WINDOW
    if brand is None:
        return UNKNOWN_BRAND_MERCHANT_WINDOW
    return MERCHANT_INITIATED_WINDOWS.get(brand, CUSTOMER_INITIATED_WINDOW)


def _extended(intent: dict, method: dict) -> bool:
    asked = (intent.get("payment_method_options") or {}).get("card", {}).get("request_extended_authorization")
    return method["type"] == "card" and asked == "if_available" and Setup.current().extended_authorization


def create(*, intent: StripeObject, method: StripeObject, off_session: bool) -> tuple[StripeObject, int | None]:
    """The charge of a payment intent authorised just now, and (with manual capture) the deadline to capture it."""
    manual = intent.data["capture_method"] == "manual"
    card = method.data.get("card")
    extended = manual and _extended(intent.data, method.data)
    deadline = None
    created = clock.now()  # read once: the deadline is exactly its window after the charge's creation
    if manual:
        window = capture_window(brand=card["brand"] if card else None, off_session=off_session, extended=extended)
        deadline = created + window
    data = money_objects.charge(
        intent=intent.data,
        method=method.data,
        capture_before=deadline if card else None,
        extended=extended,
        created=created,
    )
    charge = StripeObject.make(data, api_key=intent.api_key, payment_intent=intent.id)
    if not manual:
        capture(charge=charge, amount=data["amount"])
    return charge, deadline


def fee(amount: int, currency: str) -> int:
    percent = (Decimal(amount) * CARD_FEE_PERCENT / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(percent) + currencies.major_in_minor(CARD_FEE_FIXED, currency)


def capture(*, charge: StripeObject, amount: int) -> None:
    """Capture `amount` of the charge; what is left of the authorisation is released (Stripe shows it refunded)."""
    data = charge.data
    txn = balance.book(
        source=charge,
        amount=amount,
        type="charge",
        description=data["description"] or "Payment",
        reporting_category="charge",
        fee=fee(amount, data["currency"]),
        fee_description="Stripe processing fees",
    )
    data.update(captured=True, amount_captured=amount, balance_transaction=txn["id"])
    data["amount_refunded"] = data["amount"] - amount
    charge.save_data()


def release(*, charge: StripeObject) -> None:
    """An uncaptured authorisation let go (cancelled or lapsed): Stripe marks such a charge refunded in full."""
    charge.data.update(amount_refunded=charge.data["amount"], refunded=True)
    charge.save_data()


def of(intent: StripeObject) -> StripeObject | None:
    charge_id = intent.data.get("latest_charge")
    if not charge_id:
        return None
    return StripeObject.objects.select_for_update().get(pk=charge_id)
