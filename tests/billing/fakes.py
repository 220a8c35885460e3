"""A stand-in for the registering side: records each call and answers the outcome a test chose per line."""

from __future__ import annotations

import threading
from collections import Counter

from billing.models import PaymentLine
from billing.services import LineOutcome, LineResult


class FakeRegistrar:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.outcomes: dict[str, LineOutcome] = {}

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.outcomes.clear()

    def __call__(self, line: PaymentLine) -> LineResult:
        with self.lock:
            self.calls[line.reference] += 1
        outcome = self.outcomes.get(line.reference, LineOutcome.REGISTERED)
        return LineResult(outcome, reference=f"reg-{line.reference}")


REGISTRAR = FakeRegistrar()


def register(line: PaymentLine) -> LineResult:
    """The dotted path tests give settings.BILLING_LINE_REGISTRAR (the webhook door takes the configured one)."""
    return REGISTRAR(line)
