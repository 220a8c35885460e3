"""Per-key rate limits as the provider documents them (rate-limits.mdx).

A key may send `limit` requests per second for a class of endpoints (50 for search, 10 for everything else), and
burst up to twice that for 5 seconds. Two rules express exactly that:

- a token bucket refilled at `limit` per second and holding `BURST_SECONDS * limit` tokens: sending at twice the
  rate drains it by `limit` per second, so a full bucket lasts 5 seconds of bursting; sustained, only `limit`
  per second get through;
- no Unix second serves more than `BURST_FACTOR * limit` requests, so a full bucket is not spent at once.

Both are checked and spent by one conditional UPDATE of the key's row: the database decides, so concurrent
requests from any thread or process can never overspend the budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.db.models import Case, F, FloatField, Q, Value, When
from django.db.models.functions import Least
from django.db.models.lookups import GreaterThanOrEqual

from sandbox.models import ApiKey, RateBucket

SEARCH = "search"
OTHER = "other"
BURST_FACTOR = 2
BURST_SECONDS = 5


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset: int  # Unix time when the current one-second window ends
    retry_after: int  # seconds; meaningful when refused


def limit_for(*, key: ApiKey, group: str) -> int:
    partner = key.partner
    return partner.search_rate_limit if group == SEARCH else partner.rate_limit


def consume(*, key: ApiKey, group: str, now: float | None = None) -> Verdict:
    """Spend one request of the key's budget for `group`, or refuse it; either way say what is left."""
    now = time.time() if now is None else now
    limit = limit_for(key=key, group=group)
    capacity = float(limit * BURST_SECONDS)
    ceiling = limit * BURST_FACTOR
    second = int(now)
    bucket, _ = RateBucket.objects.get_or_create(
        key=key, group=group, defaults={"tokens": capacity, "refilled_at": now, "second": second, "used": 0}
    )
    refilled = Least(
        Value(capacity),
        F("tokens") + (Value(now) - F("refilled_at")) * Value(float(limit)),
        output_field=FloatField(),
    )
    spent = (
        RateBucket.objects.filter(pk=bucket.pk)
        .filter(~Q(second=second) | Q(used__lt=ceiling))
        .filter(GreaterThanOrEqual(refilled, 1.0))
        .update(
            tokens=refilled - Value(1.0),
            refilled_at=Value(now),
            used=Case(When(second=second, then=F("used") + 1), default=Value(1)),
            second=Value(second),
        )
    )
    bucket.refresh_from_db()
    tokens = min(capacity, bucket.tokens + max(0.0, now - bucket.refilled_at) * limit)
    used = bucket.used if bucket.second == second else 0
    remaining = max(0, min(math.floor(tokens), ceiling - used))
    wait = 0.0
    if used >= ceiling:
        wait = max(wait, second + 1 - now)
    if tokens < 1:
        wait = max(wait, (1 - tokens) / limit)
    return Verdict(
        allowed=spent == 1,
        limit=limit,
        remaining=remaining,
        reset=second + 1,
        retry_after=max(1, math.ceil(wait)),
    )
