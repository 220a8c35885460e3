"""What one caller types never takes the provider away from everyone else.

- A control character (NUL and the other C0/C1 codes) in anything sent is refused before the call: the provider
  answers 500 to some of them, and nothing a customer means to send holds one (forms clean them first; this is
  the last line for any caller that did not).
- A server error (5xx) on a call that carries what a caller typed (a search) may be that input's fault rather than
  the provider's. It is counted against that caller (RATE_LIMITS["provider_input_faults"], per address): past the
  limit their own such calls are refused unsent for the window. The shared breaker counts the first such error of
  each caller in the window only, so one caller repeating one bad input cannot open it for every customer, while
  an outage, seen by many callers and by calls without typed input, still does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from storefront.gateway.errors import InvalidDetails, RateLimited
from storefront.requests import request_stats
from storefront.requests.typed_text import CONTROL_CHARACTERS
from storefront.resilience.counters import counter_get, counter_incr

_SCOPE = "provider_input_faults"


class ControlCharacters(InvalidDetails):
    default_message = _("Please remove the invisible control characters from what you typed and try again.")


class TooManyInputFaults(RateLimited):
    default_message = _(
        "The domain service could not handle your recent searches. Please wait a few minutes and try again."
    )


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)


def control_characters_refuse(params: Sequence[tuple[str, str]], body: Mapping[str, Any] | None) -> None:
    """Raise ControlCharacters (nothing sent) when any value to be sent holds a control character."""
    if any(CONTROL_CHARACTERS.search(text) for text in _texts([list(params), body or {}])):
        raise ControlCharacters("refused before sending: a control character in the request")


def _limit() -> tuple[int, int]:
    limit, window = settings.RATE_LIMITS.get(_SCOPE, (0, 60))
    return int(limit), max(1, int(window))


def _key(caller: str) -> str:
    digest = hashlib.sha256(caller.encode()).hexdigest()[:24]
    return f"provider-input-faults:{digest}"


def caller_faults_check() -> None:
    """Raise TooManyInputFaults (nothing sent) when the request's caller is past their limit."""
    caller = request_stats.caller()
    limit, window = _limit()
    if caller and limit and counter_get(_key(caller)) >= limit:
        raise TooManyInputFaults("refused before sending: this caller's input faults", retry_after=window)


def caller_fault_record() -> bool:
    """Count a server error on the caller's input against them; whether the shared breaker should count it too
    (outside a request, or the caller's first in the window)."""
    caller = request_stats.caller()
    limit, window = _limit()
    if not caller or not limit:
        return True
    return counter_incr(_key(caller), timeout=window) == 1
