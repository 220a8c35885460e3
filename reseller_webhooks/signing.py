"""The `Storefront-Signature` header, made as Stripe makes its own: `t=<unix time>,v1=<hex HMAC-SHA256>`, the HMAC
keyed with the endpoint's secret over `"<t>.<body>"`. The time inside what is signed lets a receiver refuse a
replayed delivery; `v1` names the scheme so another can be added beside it one day.

`signature_verify` is what a receiver runs (docs/webhooks.md has the same check in a dozen lines of standard
Python, for a receiver that does not have this package).
"""

from __future__ import annotations

import hashlib
import hmac
import time

HEADER = "Storefront-Signature"
# How old a signature a receiver accepts by default: a retried delivery is signed again at each attempt.
TOLERANCE_SECONDS = 300


def signature_of(*, secret: str, timestamp: int, body: bytes) -> str:
    signed = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(*, secret: str, body: bytes, timestamp: int | None = None) -> str:
    timestamp = int(time.time()) if timestamp is None else timestamp
    return f"t={timestamp},v1={signature_of(secret=secret, timestamp=timestamp, body=body)}"


def signature_verify(
    *, secret: str, body: bytes, header: str, tolerance: int = TOLERANCE_SECONDS, now: float | None = None
) -> bool:
    """Whether `header` signs `body` with `secret`, made less than `tolerance` seconds ago."""
    parts = [part.split("=", 1) for part in header.split(",") if "=" in part]
    timestamps = [value for name, value in parts if name.strip() == "t"]
    signatures = [value for name, value in parts if name.strip() == "v1"]
    if len(timestamps) != 1 or not timestamps[0].isdigit() or not signatures:
        return False
    timestamp = int(timestamps[0])
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = signature_of(secret=secret, timestamp=timestamp, body=body)
    return any(hmac.compare_digest(expected, signature) for signature in signatures)
