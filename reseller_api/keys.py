"""Making and checking API keys.

A key is 32 random bytes (secrets.token_urlsafe), so a fast hash is enough to store it: nobody can guess through
2^256 candidates, which is what a slow password hash guards against. The digest is compared in constant time.
The prefix (random too) finds the row without scanning; it is not secret on its own.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.utils import timezone
from django.utils.crypto import constant_time_compare

from reseller_api.models import ApiKey

KEY_START = "rsk_"


@dataclass(frozen=True)
class IssuedKey:
    key: ApiKey
    secret: str  # the whole key, shown once to the staff member who made it, never stored


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def api_key_secret_new() -> tuple[str, str, str]:
    """A new key: (prefix, the whole key, its digest)."""
    prefix = secrets.token_hex(6)
    secret = f"{KEY_START}{prefix}_{secrets.token_urlsafe(32)}"
    return prefix, secret, _digest(secret)


def api_key_issue(*, key: ApiKey) -> IssuedKey:
    """Give an unsaved key its secret and save it; the secret is returned, only its digest kept."""
    prefix, secret, digest = api_key_secret_new()
    key.prefix, key.secret_hash = prefix, digest
    key.save()
    return IssuedKey(key=key, secret=secret)


def api_key_find(secret: str) -> ApiKey | None:
    """The key `secret` is, if it is one and not revoked."""
    if not secret.startswith(KEY_START):
        return None
    prefix, _, rest = secret[len(KEY_START) :].partition("_")
    if not prefix or not rest:
        return None
    key = ApiKey.objects.filter(prefix=prefix, revoked_at=None).first()
    if key is None or not constant_time_compare(key.secret_hash, _digest(secret)):
        return None
    return key


def api_keys_revoke(*, keys: list[ApiKey]) -> int:
    """Revoke keys at once (the next request with one is a 401); a key revoked before keeps its date."""
    return ApiKey.objects.filter(pk__in=[key.pk for key in keys], revoked_at=None).update(revoked_at=timezone.now())
