"""The only code that talks to Stripe: one SDK client per configuration, errors translated once, minor units.

The SDK's own retries are off: every state-changing call carries an idempotency key of ours, and a lost answer is
resolved by reading the object back (`PaymentOutcomeUnknown`), never by a blind retry.
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


def call(what: str, operation: Callable[[stripe.StripeClient], T], *, changes_state: bool = False) -> T:
    """Run one SDK call; Stripe's errors become ours (the key never appears in a log line)."""
    try:
        return operation(stripe_client())
    except (stripe.APIConnectionError, stripe.RateLimitError, stripe.APIError) as err:
        # APIConnectionError covers timeouts: for a state-changing call the request may have been done.
        request_id = getattr(err, "request_id", None)
        logger.warning("stripe %s failed: %s (request %s)", what, type(err).__name__, request_id)
        if changes_state and isinstance(err, stripe.APIConnectionError | stripe.APIError):
            raise PaymentOutcomeUnknown(f"{what}: {type(err).__name__}") from err
        raise PaymentUnavailable(f"{what}: {type(err).__name__}") from err
    except (stripe.AuthenticationError, stripe.PermissionError) as err:
        logger.error("stripe %s: the secret key was refused (%s)", what, type(err).__name__)
        raise PaymentUnavailable(f"{what}: key refused") from err
    except stripe.StripeError as err:
        code = getattr(err, "code", "") or ""
        logger.info("stripe %s refused: %s %s", what, code, getattr(err, "user_message", "") or "")
        raise PaymentRefused(f"{what}: {code or type(err).__name__}", code=code) from err


def _scale(currency: str) -> Decimal:
    return Decimal(10) ** get_currency_precision(currency.upper())


def to_minor(amount: Decimal, currency: str) -> int:
    minor = amount * _scale(currency)
    if minor != minor.to_integral_value():
        raise ValueError(f"{amount} {currency} has more decimals than the currency")
    return int(minor)


def from_minor(minor: int, currency: str) -> Decimal:
    return (Decimal(minor) / _scale(currency)).quantize(Decimal("0.01"))
