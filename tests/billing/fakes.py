"""A stand-in for the registering side: records each call and answers the outcome a test chose per line."""

from __future__ import annotations

import threading
from collections import Counter
from decimal import Decimal

from billing.ledger.lines import LineOutcome, LineResult
from billing.models import PaymentLine


class FakeRegistrar:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.outcomes: dict[str, LineOutcome] = {}
        # What delivering a line cost (the registering side records it); none: the quote's cost stays.
        self.costs: dict[str, Decimal] = {}

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.outcomes.clear()
            self.costs.clear()

    def __call__(self, line: PaymentLine) -> LineResult:
        with self.lock:
            self.calls[line.reference] += 1
        outcome = self.outcomes.get(line.reference, LineOutcome.REGISTERED)
        return LineResult(outcome, reference=f"reg-{line.reference}", cost=self.costs.get(line.reference))

    def resolve(self, line: PaymentLine) -> bool | None:
        """A line left unknown stays unknown until the test settles it itself (payment_line_resolve)."""
        return None


REGISTRAR = FakeRegistrar()
