"""One-time claims that must survive the cache: rows under a unique key, shared by every process.

`claim_once(key=…, seconds=…)` is True for the first caller until the claim expires, False for everyone else.
The cache's `add` does the same while the cache answers, but a claim there is lost with the cache (a Redis restart)
and, while Redis is away, each process would keep its own: a second Buy would place an order twice, a used two-factor
code would be accepted again by another process.
"""

from __future__ import annotations

import datetime as dt

from django.db import IntegrityError, transaction
from django.utils import timezone

from storefront.models import OneTimeClaim


def claim_once(*, key: str, seconds: float) -> bool:
    """Take `key` for `seconds`; False when someone holds it already."""
    now = timezone.now()
    key = key[:250]
    expires_at = now + dt.timedelta(seconds=seconds)
    try:
        with transaction.atomic():
            OneTimeClaim.objects.create(key=key, expires_at=expires_at)
            return True
    except IntegrityError:
        pass
    # Held, or expired: an expired claim is taken over by exactly one caller (the conditional update).
    return bool(OneTimeClaim.objects.filter(key=key, expires_at__lte=now).update(expires_at=expires_at))


def claim_give_back(*, key: str) -> None:
    """End a claim before it expires (the work it guarded did not happen): the next caller takes it at once."""
    OneTimeClaim.objects.filter(key=key[:250]).delete()


def claims_prune() -> int:
    """Remove expired claims (the scheduler's daily job). Rows removed."""
    removed, _ = OneTimeClaim.objects.filter(expires_at__lte=timezone.now()).delete()
    return removed
