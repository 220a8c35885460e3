"""Counts provider calls made while serving one request, for the request log line."""

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class ProviderCalls:
    count: int = 0
    seconds: float = 0.0


_current: ContextVar[ProviderCalls | None] = ContextVar("provider_calls", default=None)


def start() -> ProviderCalls:
    calls = ProviderCalls()
    _current.set(calls)
    return calls


def add_provider_call(seconds: float) -> None:
    calls = _current.get()
    if calls is not None:
        calls.count += 1
        calls.seconds += seconds
