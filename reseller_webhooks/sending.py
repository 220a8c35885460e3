"""One attempt at a delivery, and what follows it: delivered; or the next attempt after a wait that doubles from a
minute up to an hour, until a day has passed (then given up); and an endpoint that has failed every attempt for a
day is switched off, its waiting deliveries given up, and staff told (ADMINS, through the outbox).

Attempts are claimed, not locked: the worker's task and the minute's sweep may both reach a delivery, and only the
one whose conditional update moves its next attempt forward sends it; no row lock is held over the HTTP request.
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import requests
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from reseller_webhooks.addresses import AddressRefused, address_check
from reseller_webhooks.models import Delivery, Endpoint, Event
from reseller_webhooks.signing import HEADER, signature_header
from storefront.background.outbox import email_queue_admins

logger = logging.getLogger(__name__)

RETRY_FOR = dt.timedelta(days=1)
DISABLE_AFTER = dt.timedelta(days=1)
FIRST_WAIT = dt.timedelta(minutes=1)
LONGEST_WAIT = dt.timedelta(hours=1)
# Long enough for one attempt (its timeouts) to finish before another process may claim the delivery again.
_CLAIM = dt.timedelta(minutes=2)
# Connect, then read: a receiver should answer 2xx at once and do its work later, as the store does for Stripe.
TIMEOUT = (3.05, 10.0)

# One session per process: connections to the same endpoint are reused. No urllib3 Retry here: a delivery is retried
# across hours by the worker, not within one attempt.
_session = requests.Session()


def event_body(event: Event) -> bytes:
    """The JSON body, the same bytes for every endpoint and every attempt (what the signature covers)."""
    payload = {
        "id": event.public_id,
        "type": event.type,
        "created": int(event.created_at.timestamp()),
        "data": event.data,
    }
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def wait_after(attempts: int) -> dt.timedelta:
    """The wait before the next attempt, after `attempts` failed ones: 1, 2, 4 … minutes, then hourly."""
    return min(FIRST_WAIT * 2 ** max(attempts - 1, 0), LONGEST_WAIT)


def delivery_send(*, delivery_id: int, now: dt.datetime | None = None) -> str:
    """Attempt the delivery if it is due and nobody else is sending it. Returns its status afterwards ("" when it
    was not this call's to send)."""
    now = now or timezone.now()
    claimed = Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt_at__lte=now).update(
        next_attempt_at=now + _CLAIM
    )
    if not claimed:
        return ""
    delivery = Delivery.objects.select_related("event", "endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    if not endpoint.active:
        delivery.status, delivery.next_attempt_at, delivery.last_error = Delivery.Status.GIVEN_UP, None, "endpoint off"
        delivery.save(update_fields=["status", "next_attempt_at", "last_error"])
        return delivery.status
    code, error = _post(endpoint, event_body(delivery.event), now=now)
    delivery.attempts += 1
    delivery.last_attempt_at = now
    delivery.response_code = code
    delivery.last_error = error[:300]
    if not error:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = Delivery.Status.DELIVERED, now, None
        delivery.save()
        Endpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=False).update(failing_since=None)
        return delivery.status
    next_at = now + wait_after(delivery.attempts)
    if next_at > delivery.retry_until:
        delivery.status, delivery.next_attempt_at = Delivery.Status.GIVEN_UP, None
        logger.warning("webhook delivery %s to %s given up after %s attempts", delivery.pk, endpoint, delivery.attempts)
    else:
        delivery.next_attempt_at = next_at
    delivery.save()
    _endpoint_failed(endpoint, now=now, error=error)
    return delivery.status


def _post(endpoint: Endpoint, body: bytes, *, now: dt.datetime) -> tuple[int | None, str]:
    """(HTTP status or None, "" on a 2xx else why not). Never a redirect; nothing of the answer is read."""
    try:
        address_check(endpoint.url)
        response = _session.post(
            endpoint.url,
            data=body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": f"{settings.STORE_NAME} webhooks",
                HEADER: signature_header(secret=endpoint.secret, body=body, timestamp=int(now.timestamp())),
            },
            timeout=TIMEOUT,
            allow_redirects=False,
            stream=True,
        )
    except AddressRefused as err:
        return None, f"refused: {err}"
    except requests.RequestException as err:
        # The exception's class, not its text: its text repeats the URL, which may carry a token of the receiver's.
        return None, f"no answer ({type(err).__name__})"
    response.close()
    if 200 <= response.status_code < 300:
        return response.status_code, ""
    if 300 <= response.status_code < 400:
        return response.status_code, f"HTTP {response.status_code}: redirects are not followed"
    return response.status_code, f"HTTP {response.status_code}"


def _endpoint_failed(endpoint: Endpoint, *, now: dt.datetime, error: str) -> None:
    """Count the failure towards a day of them; after a day, switch the endpoint off (once) and tell staff."""
    Endpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=True).update(failing_since=now)
    endpoint.refresh_from_db(fields=["failing_since", "active"])
    if not endpoint.active or endpoint.failing_since is None or now - endpoint.failing_since < DISABLE_AFTER:
        return
    if not Endpoint.objects.filter(pk=endpoint.pk, active=True).update(active=False, disabled_at=now):
        return  # another attempt switched it off first
    given_up = Delivery.objects.filter(endpoint=endpoint, status=Delivery.Status.PENDING).update(
        status=Delivery.Status.GIVEN_UP, next_attempt_at=None, last_error="endpoint off"
    )
    logger.warning("webhook endpoint %s switched off: failing since %s", endpoint.pk, endpoint.failing_since)
    admin = settings.SITE_URL + reverse("admin:reseller_webhooks_endpoint_change", args=[endpoint.pk])
    email_queue_admins(
        f"Webhook endpoint switched off: {endpoint.url}",
        f"Every delivery to {endpoint.url} has failed since {endpoint.failing_since:%Y-%m-%d %H:%M} UTC (last: "
        f"{error}), so the store stopped sending to it and gave up {given_up} waiting delivery(ies).\n\n"
        f'Once it answers again, tick Active on {admin} and use "Send again" on the deliveries it missed '
        "(the delivery log lists them).\n",
        key=f"webhook-endpoint-off:{endpoint.pk}:{now.isoformat()}",
    )


def deliveries_due(*, now: dt.datetime | None = None, limit: int = 200) -> list[tuple[int, int]]:
    """(id, attempts) of the deliveries whose next attempt is due: a retry, or a first attempt whose enqueue was
    lost."""
    now = now or timezone.now()
    due = Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now, endpoint__active=True)
    return list(due.order_by("next_attempt_at").values_list("pk", "attempts")[:limit])


def deliveries_send_again(deliveries: list[Delivery], *, now: dt.datetime | None = None) -> int:
    """Staff's "send again": each becomes pending at once with a new day of retries (its attempts kept)."""
    now = now or timezone.now()
    pks = [delivery.pk for delivery in deliveries]
    return Delivery.objects.filter(pk__in=pks).update(
        status=Delivery.Status.PENDING, next_attempt_at=now, retry_until=now + RETRY_FOR, delivered_at=None
    )
