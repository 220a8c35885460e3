"""Errors reach a person (docs/operations.md "Errors"): the error tracker (sentry-sdk, when SENTRY_DSN is set) and
mail to ADMINS, both scrubbed of secrets and personal data, the mail throttled so that an error storm sends a
handful of emails. A view's unhandled exception reaches both through Django (its got_request_exception signal,
the `django.request` logger); a failed task through `task_failure_report` below, on the `storefront.task_failures`
logger (settings.LOGGING routes both loggers to `mail_admins`; the tracker takes every ERROR record).
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.core.cache import cache
from django.utils.log import AdminEmailHandler
from django_tasks import TaskResultStatus
from django_tasks.signals import task_finished

from storefront.requests import request_ids

if TYPE_CHECKING:
    from sentry_sdk.types import Event, Hint

SCRUBBED = "[scrubbed]"

task_failures = logging.getLogger("storefront.task_failures")

# Words that make a key's value secret or personal, matched against the key's parts (`customer_email`,
# `auth-code`, `STRIPE_SECRET_KEY`): credentials, one-time codes, card data, contact details.
_SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "password1", "password2", "secret", "token", "key", "apikey", "dsn",
        "authorization", "auth", "cookie", "cookies", "csrftoken", "csrfmiddlewaretoken", "sessionid", "session",
        "signature", "otp", "totp", "card", "cvc", "cvv", "pan", "iban", "address", "street", "city", "zipcode",
        "zip", "postcode", "phone", "email",
    }
)  # fmt: skip
# Keys of a person's name (a bare "name" is everything's: a logger's, a package's, a TLD's).
_NAME_KEYS = frozenset({"first_name", "last_name", "full_name", "customer_name", "contact_name", "company"})
# The tracker's own fields: the DSN's public part (public by design, the event's envelope names it), SDK keys.
_NOT_SECRET = frozenset({"public_key", "sdk"})
# "code" alone is harmless (an HTTP status code, a country code); with one of these it is a secret.
_CODE_WORDS = frozenset({"transfer", "epp", "verification", "recovery", "backup", "login"})
_KEY_PARTS = re.compile(r"[^a-z0-9]+")
# Values that are secret whatever their key: card numbers, bearer tokens, the provider's and Stripe's keys, email
# addresses.
_SECRET_VALUES = (
    re.compile(r"\b(?:\d[ -]?){12,18}\d\b"),
    re.compile(r"(?i)\bbearer\s+\S+"),
    re.compile(r"\b(?:nk_)?(?:live|test)_[A-Za-z0-9]{6,}\b"),
    re.compile(r"\b(?:sk|rk|pk|whsec)_[A-Za-z0-9_]{6,}\b"),
    re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+"),
)
_MAX_DEPTH = 20


def secret_key(key: object) -> bool:
    """True for a key whose value must never leave the process (see _SECRET_WORDS)."""
    lowered = str(key).lower()
    if lowered in _NOT_SECRET:
        return False
    parts = set(_KEY_PARTS.split(lowered))
    return bool(parts & _SECRET_WORDS) or lowered in _NAME_KEYS or ("code" in parts and bool(parts & _CODE_WORDS))


# A query parameter inside any text (a request's repr in a frame's variables, a URL in a message).
_QUERY_PARAMETER = re.compile(r"(?<=[?&;])([A-Za-z0-9_.\[\]-]+)=([^&;#\s'\"<>]*)")


def _query_parameter_scrub(match: re.Match[str]) -> str:
    return f"{match.group(1)}={SCRUBBED}" if secret_key(match.group(1)) else match.group(0)


# Settings whose values never leave the process, whatever their shape (a provider key without its usual prefix).
_SECRET_SETTINGS = (
    "RESELLER_API_KEY",
    "RESELLER_METASEARCH_KEY",
    "STRIPE_SECRET_KEY",
    "STRIPE_WEBHOOK_SECRET",
    "SECRET_KEY",
)


def scrub_text(text: str) -> str:
    for name in _SECRET_SETTINGS:
        secret = str(getattr(settings, name, "") or "")
        if len(secret) >= 8 and secret in text:
            text = text.replace(secret, SCRUBBED)
    text = _QUERY_PARAMETER.sub(_query_parameter_scrub, text)
    for pattern in _SECRET_VALUES:
        text = pattern.sub(SCRUBBED, text)
    return text


def scrub(value: Any, depth: int = 0) -> Any:
    """`value` with every secret key's value and every secret-looking text replaced, however deeply nested."""
    if depth > _MAX_DEPTH:
        return SCRUBBED
    if isinstance(value, dict):
        return {key: SCRUBBED if secret_key(key) else scrub(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        # Sentry keeps headers and query strings as [name, value] pairs.
        if len(value) == 2 and isinstance(value[0], str) and secret_key(value[0]):
            return [value[0], SCRUBBED]
        return [scrub(item, depth + 1) for item in value]
    if isinstance(value, str):
        return scrub_text(value)
    return value


def _scrub_query(query: Any) -> Any:
    if not isinstance(query, str):
        return scrub(query)
    pairs = [(name, SCRUBBED if secret_key(name) else scrub_text(item)) for name, item in parse_qsl(query, True)]
    return urlencode(pairs)


def event_scrub(event: Event, hint: Hint | None = None) -> Event:
    """sentry-sdk's before_send (and before_send_transaction): the event without secrets or personal data, tagged
    with the request id a customer quotes. Cookies are dropped whole, the query string is scrubbed by name."""
    request = event.get("request")
    if isinstance(request, dict):
        request.pop("cookies", None)
        if "query_string" in request:
            request["query_string"] = _scrub_query(request["query_string"])
    event = cast("Event", scrub(event))
    request_id = request_ids.current()
    if request_id:
        tags = event.setdefault("tags", {})
        if isinstance(tags, dict):
            tags["request_id"] = request_id
    return event


def sentry_init(*, dsn: str, environment: str, release: str | None) -> None:
    """The error tracker, with Django's integration (and logging's: ERROR records become events)."""
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release or None,
        integrations=[DjangoIntegration()],
        # What sentry-sdk collects by itself (its successor of send_default_pii=False): no user identity (id, email,
        # address), no cookies, no request bodies (forms hold passwords and addresses), no SQL parameters.
        data_collection={
            "user_info": False,
            "cookies": {"mode": "off"},
            "http_bodies": [],
            "database_query_data": False,
            "gen_ai": {"inputs": False, "outputs": False},
        },
        before_send=event_scrub,
        before_send_transaction=event_scrub,
    )


class ThrottledAdminEmailHandler(AdminEmailHandler):
    """Django's mail to ADMINS on an error, at most MAX mails per WINDOW seconds across every process (a counter
    in the shared cache; per process while the cache is away), so a storm sends a handful, not thousands. The
    last mail of a window says that more were held back; the error tracker and the log still get every one.
    Each mail names the request id. Only AdminEmailHandler's documented override point (send_mail) is used."""

    MAX = 5
    WINDOW = 600

    _local_lock = threading.Lock()
    _local: dict[int, int] = {}

    def send_mail(self, subject: Any, message: Any, *args: Any, **kwargs: Any) -> None:
        sent = self._count()
        if sent > self.MAX:
            return
        # Django hides secret settings and form fields (storefront/observability/reporting.py); an exception's own text
        # may still hold a card number or an email address.
        subject, message = scrub_text(str(subject)), scrub_text(str(message))
        request_id = request_ids.current()
        if request_id:
            message = f"Request id: {request_id}\n\n{message}"
        if sent == self.MAX:
            message = (
                f"This is the {self.MAX}th error email in {self.WINDOW // 60} minutes: further ones are held "
                f"back until the next period (the log and the error tracker have every error).\n\n{message}"
            )
        super().send_mail(subject, message, *args, **kwargs)

    def _count(self) -> int:
        """This mail's number in the current window."""
        window = int(time.time() // self.WINDOW)
        key = f"error-mails:{window}"
        try:
            cache.add(key, 0, timeout=self.WINDOW + 60)
            return int(cache.incr(key))
        except Exception:  # noqa: BLE001 - the cache away (often the very storm): count in this process
            with self._local_lock:
                for old in [w for w in self._local if w != window]:
                    del self._local[old]
                self._local[window] = self._local.get(window, 0) + 1
                return self._local[window]


def task_failure_report(*, task_result: Any, **_: Any) -> None:
    """django-tasks' task_finished: a failed task is an error that reaches a person, as a view's is.

    django-tasks logs failures itself, but on a logger the worker silences below CRITICAL at `-v 0`; this line does
    not depend on the worker's verbosity. Sent from inside the worker's `except` (both backends), so the
    exception and its traceback go along. Connected before request ids' receivers (storefront/apps.py), which
    unbind the task's id: the record names it."""
    if task_result.status != TaskResultStatus.FAILED:
        return
    error = sys.exc_info()[1]
    task_failures.error(
        "Task %s failed (task id %s): %s",
        task_result.task.module_path,
        task_result.id,
        type(error).__name__ if error is not None else "error",
        exc_info=error is not None,
    )


def connect_task_failures() -> None:
    task_finished.connect(task_failure_report, dispatch_uid="error_reports.task_failure")
