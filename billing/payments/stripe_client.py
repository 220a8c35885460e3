"""The only code that talks to Stripe: one SDK client per configuration, errors translated once, minor units.

The SDK's own retries are off: every state-changing call carries an idempotency key of ours, and a lost answer is
resolved by reading the object back (`PaymentOutcomeUnknown`), never by a blind retry. The payment service has a
circuit breaker of its own (storefront.resilience.breaker): while Stripe keeps failing, calls fail fast as
PaymentUnavailable and send nothing, and no provider call is refused because of it.

Minor units follow Stripe's own currency rules (docs.stripe.com/currencies), not ISO 4217's or Babel's, which
differ where it matters: Stripe keeps ISK (and HUF, TWD) at two decimals in its API, where ISO and Babel give
ISK none, so a store selling in ISK would otherwise charge a hundredth of its price.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any, TypeVar

import stripe
from django.conf import settings

from billing.errors import PaymentOutcomeUnknown, PaymentRefused, PaymentUnavailable
from storefront.resilience.breaker import CircuitBreaker

logger = logging.getLogger(__name__)
T = TypeVar("T")


@cache
def _client(key: str, api_base: str, connect_timeout: float, read_timeout: float) -> stripe.StripeClient:
    return stripe.StripeClient(
        key,
        base_addresses={"api": api_base},
        max_network_retries=0,
        http_client=stripe.RequestsClient(timeout=(connect_timeout, read_timeout)),
    )


def stripe_client() -> stripe.StripeClient:
    return _client(
        settings.STRIPE_SECRET_KEY,
        settings.STRIPE_API_BASE.rstrip("/"),
        settings.STRIPE_CONNECT_TIMEOUT,
        settings.STRIPE_READ_TIMEOUT,
    )


@cache
def _breaker(api_base: str, threshold: int, cooldown: float) -> CircuitBreaker:
    return CircuitBreaker(threshold=threshold, cooldown=cooldown, name="payment service")


def breaker() -> CircuitBreaker:
    """This process's breaker of the payment service (one per configuration, like the client)."""
    return _breaker(
        settings.STRIPE_API_BASE.rstrip("/"), settings.STRIPE_BREAKER_FAILURES, settings.STRIPE_BREAKER_SECONDS
    )


def forget_breaker() -> None:
    """A fresh breaker from here on (tests: one test's failures never open the next one's circuit)."""
    _breaker.cache_clear()


def call(what: str, operation: Callable[[stripe.StripeClient], T], *, changes_state: bool = False) -> T:
    """Run one SDK call; Stripe's errors become ours (the key never appears in a log line)."""
    circuit = breaker()
    if not circuit.allows_call():
        logger.warning("stripe %s skipped: the payment service's circuit is open", what)
        raise PaymentUnavailable(f"{what}: circuit open")
    try:
        answer = operation(stripe_client())
    except (stripe.APIConnectionError, stripe.APIError) as err:
        # APIConnectionError covers timeouts: for a state-changing call the request may have been done.
        circuit.failed()
        request_id = getattr(err, "request_id", None)
        logger.warning("stripe %s failed: %s (request %s)", what, type(err).__name__, request_id)
        if changes_state:
            raise PaymentOutcomeUnknown(f"{what}: {type(err).__name__}") from err
        raise PaymentUnavailable(f"{what}: {type(err).__name__}") from err
    except stripe.RateLimitError as err:
        circuit.succeeded()  # it answered: up, only busy
        logger.warning("stripe %s rate limited (request %s)", what, getattr(err, "request_id", None))
        raise PaymentUnavailable(f"{what}: {type(err).__name__}") from err
    except (stripe.AuthenticationError, stripe.PermissionError) as err:
        circuit.succeeded()
        logger.error("stripe %s: the secret key was refused (%s)", what, type(err).__name__)
        raise PaymentUnavailable(f"{what}: key refused") from err
    except stripe.IdempotencyError as err:
        circuit.succeeded()
        logger.warning("stripe %s: idempotency key refused (request %s)", what, getattr(err, "request_id", None))
        if changes_state:
            # Most often another request with the same key is still in flight (a double click): its outcome is not
            # known yet, so the caller reads it back or asks again with the same key, never treats it as refused.
            raise PaymentOutcomeUnknown(f"{what}: {type(err).__name__}") from err
        raise PaymentRefused(f"{what}: {type(err).__name__}", code="idempotency_error") from err
    except stripe.StripeError as err:
        circuit.succeeded()  # a refusal proves the service is up
        code = getattr(err, "code", "") or ""
        logger.info("stripe %s refused: %s %s", what, code, getattr(err, "user_message", "") or "")
        raise PaymentRefused(f"{what}: {code or type(err).__name__}", code=code) from err
    circuit.succeeded()
    return answer


# Amounts are whole units in the API ("¥500" is 500).
ZERO_DECIMAL = frozenset("BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF".split())
# Thousandths in the API, and Stripe's card partners want the last digit 0 (5.124 KWD cannot be charged).
THREE_DECIMAL = frozenset("BHD JOD KWD OMR TND".split())
# Two decimals in the API for backwards compatibility, but only whole units may be charged: 5 ISK is 500.
WHOLE_UNITS_AT_TWO_DECIMALS = frozenset({"ISK"})


class NotChargeable(ValueError):
    """An amount Stripe cannot take in this currency (more decimals than it allows, a fraction of a króna)."""


def decimals(currency: str) -> int:
    """How many decimals Stripe's API amounts carry in this currency."""
    code = currency.upper()
    if code in ZERO_DECIMAL:
        return 0
    return 3 if code in THREE_DECIMAL else 2


def to_minor(amount: Decimal, currency: str) -> int:
    """`amount` in Stripe's minor units of `currency`. Raises NotChargeable for an amount Stripe would refuse."""
    code = currency.upper()
    minor = amount.scaleb(decimals(code))
    if minor != minor.to_integral_value():
        raise NotChargeable(f"{amount} {code} has more decimals than Stripe takes in {code}")
    value = int(minor)
    if code in THREE_DECIMAL and value % 10:
        raise NotChargeable(f"{amount} {code}: Stripe takes {code} amounts in steps of 0.010")
    if code in WHOLE_UNITS_AT_TWO_DECIMALS and value % 100:
        raise NotChargeable(f"{amount} {code}: Stripe takes whole units of {code} only")
    return value


def from_minor(minor: int, currency: str) -> Decimal:
    """Stripe's minor units as a Decimal amount, kept at the two decimals our amounts have (every amount Stripe
    may answer with fits: three-decimal currencies end in 0)."""
    amount = Decimal(minor).scaleb(-decimals(currency))
    kept = amount.quantize(Decimal("0.01"))
    if kept != amount:
        raise NotChargeable(f"{minor} minor units of {currency.upper()} do not fit two decimals")
    return kept


def when(timestamp: int | None) -> dt.datetime:
    """A Stripe timestamp (seconds since the epoch, UTC) as an aware datetime; now when Stripe gave none."""
    if not timestamp:
        return dt.datetime.now(tz=dt.UTC)
    return dt.datetime.fromtimestamp(int(timestamp), tz=dt.UTC)


def charge_id(intent: Any) -> str:
    """The id of a payment intent's charge (expanded or not); the intent's own id when it has none yet."""
    charge = getattr(intent, "latest_charge", None)
    if isinstance(charge, str) and charge:
        return charge
    return str(getattr(charge, "id", "") or intent.id)


def capture_before(intent: Any) -> dt.datetime | None:
    """The deadline to capture an authorisation, from its charge (`payment_method_details.card.capture_before`,
    when the charge is expanded); None when Stripe did not say."""
    charge = getattr(intent, "latest_charge", None)
    if charge is None or isinstance(charge, str):
        return None
    details = getattr(charge, "payment_method_details", None)
    card = getattr(details, "card", None) if details is not None else None
    timestamp = getattr(card, "capture_before", None) if card is not None else None
    return when(timestamp) if timestamp else None


def metadata_value(obj: Any, key: str) -> str:
    """One value of a Stripe object's metadata (a dict when it came from an event's JSON), or ""."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else getattr(obj, "metadata", None)
    if not metadata or key not in metadata:
        return ""
    return str(metadata[key])


@dataclass(frozen=True)
class Claim:
    """Our hold on one state change (a row's conditional update, a claim row): taken before the call, given back
    when nothing is known to have happened at Stripe, so that the next door tries again with the same key."""

    take: Callable[[], bool]
    give_back: Callable[[], None]


def change_state(
    what: str,
    *,
    claim: Claim,
    idempotency_key: str,
    change: Callable[[stripe.StripeClient, stripe.RequestOptions], T],
    read_back: Callable[[stripe.StripeClient], T | None],
    unknown: Callable[[], None],
) -> T | None:
    """Change one thing at Stripe once, however many doors ask: claim → the call with our idempotency key → on a
    lost answer or a refusal, read the object back (it may have happened, or have been done by another door) →
    Stripe unavailable, give the claim back. Saleor's payment operations are the model.

    The object as Stripe now has it, or None: another door holds the claim, or the outcome is unknown and could not
    be read back (the claim given back, `unknown()` told: staff, and the next door retries with the same key).
    Raises PaymentUnavailable (nothing happened: the claim is given back) and PaymentRefused (refused, and the read
    back found nothing done)."""
    if not claim.take():
        return None
    options: stripe.RequestOptions = {"idempotency_key": idempotency_key}
    try:
        return call(what, lambda client: change(client, options), changes_state=True)
    except (PaymentOutcomeUnknown, PaymentRefused) as err:
        logger.warning("stripe %s: %s; reading it back", what, err.detail)
        try:
            found = call(f"{what} read back", read_back)
        except PaymentUnavailable:
            claim.give_back()
            unknown()
            return None
        if found is None:  # nothing there: not done
            claim.give_back()
            if isinstance(err, PaymentRefused):
                raise
            unknown()
        return found
    except PaymentUnavailable:
        claim.give_back()
        raise
