"""The capability guard: a gateway method for a "coming soon" endpoint runs only while its capability is on."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from storefront.gateway.errors import CapabilityOff
from storefront.site.capabilities import capability_enabled

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


def requires_capability(
    name: str,
) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """Raise CapabilityOff before the method does anything (no call, no log line) unless `name` is enabled."""

    def decorator(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        @functools.wraps(method)
        def guarded(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if not capability_enabled(name):
                raise CapabilityOff(name)
            return method(self, *args, **kwargs)

        guarded.capability = name  # type: ignore[attr-defined]
        return guarded

    return decorator
