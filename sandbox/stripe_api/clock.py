"""The payment sandbox's clock: real time plus an offset that tests and staff move forward (never back).

Every `created`, deadline and event time the sandbox shows comes from here, so moving the clock a week ahead makes
a week pass for its objects (an uncaptured hold lapses, a session expires) as Stripe's test clocks do for theirs.
Webhook signatures keep real time: the receiver compares them with its own clock.
"""

from __future__ import annotations

import time

from django.db.models import F

from sandbox.stripe_api.models import Setup


class ClockRefused(ValueError):
    """The clock only moves forward."""


def now() -> int:
    return int(time.time()) + Setup.current().clock_offset_seconds


def advance(seconds: int) -> int:
    """Move the clock `seconds` ahead; the new time."""
    if seconds < 0:
        raise ClockRefused("The payment sandbox's clock only moves forward.")
    Setup.current()
    Setup.objects.filter(pk=1).update(clock_offset_seconds=F("clock_offset_seconds") + seconds)
    return now()


def move_to(timestamp: int) -> int:
    """Move the clock to `timestamp` (Unix seconds), which must not be in its past."""
    return advance(timestamp - now())
