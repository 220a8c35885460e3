"""Work a request leaves for after its response has gone out: run on the same thread once the server has sent the
body (Django's request_finished), so the customer does not wait for it; outside a request (the worker, a shell, a
test calling a service) it runs at once.

For work whose result the answer does not need and nobody may miss if it never happens: a new search's answer
stored in the shared cache for other processes (a third of a millisecond of every new search, measured with
bench/profile_search.py) is one; until it is stored they ask the provider themselves, as they would for any new term.
Never for money, a customer's data or anything a later request of the same customer must see.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.core.signals import request_finished, request_started

logger = logging.getLogger(__name__)

_pending = threading.local()


def after_response(work: Callable[[], object]) -> None:
    """Run `work` once this thread's response has been sent; at once when no request is being served."""
    queue: list[Callable[[], object]] | None = getattr(_pending, "queue", None)
    if queue is None:
        work()
    else:
        queue.append(work)


def _request_started(**_: Any) -> None:
    # A request whose response never reached the server (its thread interrupted) leaves nothing for the next one.
    _pending.queue = []


def _request_finished(**_: Any) -> None:
    queue, _pending.queue = getattr(_pending, "queue", None), None
    for work in queue or ():
        try:
            work()
        except Exception:
            logger.exception("work after the response failed")


def connect() -> None:
    """Called once at start-up (storefront.apps)."""
    request_started.connect(_request_started, dispatch_uid="storefront.requests.after_response.started")
    request_finished.connect(_request_finished, dispatch_uid="storefront.requests.after_response.finished")
