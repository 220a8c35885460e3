"""The circuit breaker each outside service has: the provider's services (storefront/gateway) and the payment service
(billing/payments/stripe_client.py), one each, so a fault in one never refuses calls to another."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from storefront.observability.metrics import breaker_observed

logger = logging.getLogger("storefront.resilience.breaker")


class CircuitBreaker:
    """Fails fast for a while after repeated failures, so pages answer at once instead of waiting on timeouts.

    Only failures of the service itself count (unreachable, timeouts, 5xx, unreadable bodies); a refusal such
    as a 422 proves the service is up. After `cooldown` seconds one trial call goes through; its success
    closes the breaker again, its failure opens it for another cooldown, and a trial that was never sent
    (`abandoned`) lets the next call try. Per process: each web and worker process learns on its own.
    """

    def __init__(
        self, *, threshold: int, cooldown: float, name: str = "provider", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = name
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False
        breaker_observed(service=name, is_open=False)

    def allows_call(self) -> bool:
        """Whether a call may be sent now (False: fail fast, send nothing)."""
        with self._lock:
            if self._opened_at is None:
                return True
            if self._clock() - self._opened_at < self.cooldown or self._trial_running:
                return False
            self._trial_running = True  # half-open: let this one call find out
            return True

    @property
    def is_open(self) -> bool:
        with self._lock:
            return self._opened_at is not None

    def succeeded(self) -> None:
        with self._lock:
            if self._opened_at is not None:
                logger.warning("%s circuit closed: it answers again", self.name)
                breaker_observed(service=self.name, is_open=False)
            self._failures = 0
            self._opened_at = None
            self._trial_running = False

    def failed(self) -> None:
        with self._lock:
            self._failures += 1
            self._trial_running = False
            if self._failures >= self.threshold:
                if self._opened_at is None:
                    logger.warning("%s circuit opened after %d failures", self.name, self._failures)
                    breaker_observed(service=self.name, is_open=True)
                self._opened_at = self._clock()

    def abandoned(self) -> None:
        """The call let through was never sent (no call slot, rate limited): it proved nothing either way."""
        with self._lock:
            self._trial_running = False
