"""The provider call log (storefront.ProviderCall): each call the gateway makes, with our request id and the
provider's, kept PROVIDER_CALL_LOG_DAYS days and searchable in the admin by either (docs/operations.md)."""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from storefront.models import ProviderCall, TaskRequest
from storefront.requests import request_ids

logger = logging.getLogger("storefront.gateway")


def provider_call_record(
    *,
    request_id: str,
    provider_request_id: str | None,
    service: str,
    method: str,
    path: str,
    status: int | None,
    seconds: float,
) -> None:
    """Keep one call. Never fails the call it records: a database away (or a test without one) costs the row only.

    In a savepoint of its own, so a failed insert inside a caller's transaction leaves that transaction usable."""
    try:
        with transaction.atomic():
            ProviderCall.objects.create(
                request_id=request_id[:128],
                provider_request_id=(provider_request_id or "")[:128],
                service=service[:32],
                method=method[:8],
                path=path[:255],
                status=status,
                duration_ms=max(0, round(seconds * 1000)),
                user_id=request_ids.current_user_id(),
            )
    except Exception as err:  # noqa: BLE001 - the record is secondary to the call it describes
        logger.warning("provider call %s %s not recorded (%s)", method, path, type(err).__name__)


def provider_calls_prune(*, now: dt.datetime | None = None) -> int:
    """Remove provider calls (and tasks' request ids) older than PROVIDER_CALL_LOG_DAYS. Rows removed."""
    cutoff = (now or timezone.now()) - dt.timedelta(days=settings.PROVIDER_CALL_LOG_DAYS)
    calls, _ = ProviderCall.objects.filter(created_at__lt=cutoff).delete()
    tasks, _ = TaskRequest.objects.filter(created_at__lt=cutoff).delete()
    return calls + tasks
