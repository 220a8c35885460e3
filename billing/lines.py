"""What a payment pays for, line by line, and who delivers each kind of line once it is paid.

billing knows nothing of domains (the apps' layers): the apps that sell register, at start-up, one `LineKind` per
kind of line they put in a payment (`line_kind_register`, called from their `payments` module, which their
AppConfig imports). A paid line's kind is `details["kind"]`; settling a payment hands each line to its kind's
`deliver` (register the domain, renew it) and, for a line whose outcome was lost, asks its kind's `resolve` later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pricing.money import Money

if TYPE_CHECKING:  # types only: models import nothing from here
    from billing.models import PaymentLine

# Lines paid before kinds were recorded were all domain registrations.
DEFAULT_KIND = "registration"


@dataclass(frozen=True)
class LineToPay:
    """One reviewed line at its quoted retail price."""

    reference: str  # unique in the checkout; the delivering side finds its line by it (the domain name)
    description: str
    price: Money
    details: dict[str, Any] = field(default_factory=dict)  # `kind` among them


class LineOutcome(StrEnum):
    REGISTERED = "registered"  # delivered: its part is captured
    FAILED = "failed"  # certainly not delivered: its part is released
    UNKNOWN = "unknown"  # the answer was lost: its part is held until `resolve` says
    # Not delivered yet and nothing done: its service cannot be asked now (down, busy, its breaker open). The line
    # is pending again, its part held, and the next settle (the worker's, or the confirmation page's) delivers it.
    WAITING = "pending"


@dataclass(frozen=True)
class LineResult:
    outcome: LineOutcome
    reference: str = ""  # e.g. the registration's id, shown to staff


@dataclass(frozen=True)
class LineKind:
    name: str
    # Deliver one paid line, once: called again for a line whose first call was abandoned, it must find its own
    # earlier work (by the payment's checkout id) instead of doing it twice.
    deliver: Callable[[PaymentLine], LineResult]
    # For a line left UNKNOWN: True delivered, False not, None not known yet (asked again by the next run).
    resolve: Callable[[PaymentLine], bool | None]


_KINDS: dict[str, LineKind] = {}


def line_kind_register(kind: LineKind) -> None:
    _KINDS[kind.name] = kind


def line_kind_of(line: PaymentLine) -> LineKind | None:
    """The kind that delivers this line, or None when no app registered it (the payment then waits for staff)."""
    return _KINDS.get(str(line.details.get("kind") or DEFAULT_KIND))
