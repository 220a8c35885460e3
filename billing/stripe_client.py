"""The only code that talks to Stripe: one SDK client per configuration, errors translated once, minor units.

The SDK's own retries are off: every state-changing call carries an idempotency key of ours, and a lost answer is
resolved by reading the object back (`PaymentOutcomeUnknown`), never by a blind retry. The payment service has a
circuit breaker of its own (storefront.breaker): while Stripe keeps failing, calls fail fast as PaymentUnavailable
and send nothing, and no provider call is refused because of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from decimal import Decimal
from functools import cache
from typing import TypeVar

import stripe
from babel.numbers import get_currency_precision
from django.conf import settings

from billing.errors import PaymentOutcomeUnknown, PaymentRefused, PaymentUnavailable
from storefront.breaker import CircuitBreaker

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
    except stripe.StripeError as err:
        circuit.succeeded()  # a refusal proves the service is up
        code = getattr(err, "code", "") or ""
        logger.info("stripe %s refused: %s %s", what, code, getattr(err, "user_message", "") or "")
        raise PaymentRefused(f"{what}: {code or type(err).__name__}", code=code) from err
    circuit.succeeded()
    return answer


def _scale(currency: str) -> Decimal:
    return Decimal(10) ** get_currency_precision(currency.upper())


def to_minor(amount: Decimal, currency: str) -> int:
    minor = amount * _scale(currency)
    if minor != minor.to_integral_value():
        raise ValueError(f"{amount} {currency} has more decimals than the currency")
    return int(minor)


def from_minor(minor: int, currency: str) -> Decimal:
    return (Decimal(minor) / _scale(currency)).quantize(Decimal("0.01"))
