"""Provider calls made while serving one request: counted for the request log line, and bounded.

A request may make at most REQUEST_PROVIDER_CALLS_MAX provider calls and spend at most
REQUEST_PROVIDER_DEADLINE seconds (below a router's 30 s) before its next call is refused unsent; each call's
read timeout is cut to the time left. Work with no request around it (the worker, the scheduler, a shell) is not
bounded here: it has its own pacing.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class ProviderCalls:
    count: int = 0
    seconds: float = 0.0
    started: float = field(default_factory=time.monotonic)
    max_calls: int = 0  # 0: no bound
    deadline: float = 0.0  # seconds after `started`; 0: no bound
    caller: str = ""  # who sent the request (their address): what they typed is counted against them

    def time_left(self) -> float | None:
        if not self.deadline:
            return None
        return self.deadline - (time.monotonic() - self.started)


_current: ContextVar[ProviderCalls | None] = ContextVar("provider_calls", default=None)


class BudgetSpent(Exception):
    """This request has made its share of provider calls, or is out of time for another."""


@contextmanager
def serving(*, max_calls: int = 0, deadline: float = 0.0, caller: str = "") -> Iterator[ProviderCalls]:
    """Count (and bound) the provider calls of the block; afterwards the thread is outside any request again."""
    token = _current.set(ProviderCalls(max_calls=max_calls, deadline=deadline, caller=caller))
    try:
        calls = _current.get()
        assert calls is not None
        yield calls
    finally:
        _current.reset(token)


def before_call(timeout: tuple[float, float]) -> tuple[float, float]:
    """The timeout the next provider call may use; BudgetSpent if this request may make no more."""
    calls = _current.get()
    if calls is None:
        return timeout
    if calls.max_calls and calls.count >= calls.max_calls:
        raise BudgetSpent(f"{calls.count} provider calls already")
    left = calls.time_left()
    if left is None:
        return timeout
    if left <= timeout[0]:
        raise BudgetSpent(f"{left:.1f} s left")
    return timeout[0], max(0.1, min(timeout[1], left - timeout[0]))


def add_provider_call(seconds: float) -> None:
    calls = _current.get()
    if calls is not None:
        calls.count += 1
        calls.seconds += seconds


def caller() -> str:
    """Who the request being served came from ("" outside a request)."""
    calls = _current.get()
    return calls.caller if calls is not None else ""
