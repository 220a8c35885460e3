"""Who calls: `Authorization: Bearer <key>`, checked, rate-limited per key and written to the activity log.

Bearer keys only, never the session: a browser's cookies open nothing here, so a customer (or staff signed in to
the admin) cannot reach the API from a page, and there is no cross-site request to forge (CSRF does not apply; the
views are exempt, as django-ninja makes them). A missing, unknown or revoked key is a 401; a read key on the write
is a 403; over the per-key limit (RATE_LIMIT_API, in the shared cache like every other limit) a 429 with
Retry-After.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from ninja.errors import HttpError
from ninja.security.http import HttpBearer

from accounts.models import Activity
from accounts.staff.activity import ActingAs, acting, activity_record
from reseller_api.keys import api_key_find
from reseller_api.models import ApiKey
from storefront.resilience.ratelimit import hit


class RateLimited(Exception):
    def __init__(self, wait: int) -> None:
        super().__init__(f"rate limited for {wait}s")
        self.wait = wait


def key_actor(key: ApiKey) -> ActingAs:
    """How the activity log names what a key does: a staff system, by the key's name."""
    return ActingAs(Activity.Actor.STAFF, None, f"API key: {key.name}")


class ApiKeyBearer(HttpBearer):
    """The key of the request, for the operations that need `scope` (read or write)."""

    def __init__(self, scope: str = ApiKey.Scope.READ) -> None:
        super().__init__()
        self.scope = scope

    def __call__(self, request: HttpRequest) -> ApiKey | None:
        # HttpBearer's own would log the whole header (the key) when its scheme is not Bearer, in debug.
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return self.authenticate(request, token.strip())

    def authenticate(self, request: HttpRequest, token: str) -> ApiKey | None:
        key = api_key_find(token)
        if key is None:
            return None
        if self.scope == ApiKey.Scope.WRITE and not key.can_write:
            raise HttpError(403, "This key may only read: ask staff for a key with the write scope.")
        limit, window = settings.RATE_LIMITS["api"]
        if limit > 0:
            wait = hit("api", f"key:{key.pk}", limit=limit, window=window)
            if wait:
                raise RateLimited(wait)
        now = timezone.now()
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
        with acting(key_actor(key)):
            activity_record(
                action="api_request",
                detail={"key_name": key.name, "method": request.method, "path": request.get_full_path()},
            )
        return key
