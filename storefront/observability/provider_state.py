"""The provider's state as this process last saw it, per service: from its last real call (the gateway records
each one) or readiness's own probe. Per process, like the breakers: nothing shared, nothing stored."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Observed:
    outcome: str  # "ok", "refused" (it answered: up), "rate_limited", "unavailable", "unreachable"
    at: float  # time.monotonic()

    @property
    def up(self) -> bool:
        return self.outcome in ("ok", "refused", "rate_limited")


_lock = threading.Lock()
_last: dict[str, Observed] = {}


def provider_observed(*, service: str, outcome: str) -> None:
    with _lock:
        _last[service] = Observed(outcome, time.monotonic())


def provider_last_seen() -> dict[str, Observed]:
    with _lock:
        return dict(_last)


def provider_forget() -> None:
    """Tests: as a new process."""
    with _lock:
        _last.clear()
