"""What a payment pays for, line by line, and who delivers each kind of line once it is paid.

billing knows nothing of domains (the apps' layers): the apps that sell register, at start-up, one `LineKind` per
kind of line they put in a payment (`line_kind_register`, called from their `payments` module, which their
AppConfig imports). A paid line's kind is `details["kind"]`; settling a payment hands each line to its kind's
`deliver` (register the domain, renew it) and, for a line whose outcome was lost, asks its kind's `resolve` later;
a refund or a dispute tells the kind through `refunded` and `disputed`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from billing.models import SaleCause
from pricing.money import Money

if TYPE_CHECKING:
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
    # For the books: why it is sold, the TLD, and what it costs us at the quote (same currency as the price).
    cause: str = SaleCause.REGISTRATION
    tld: str = ""
    cost: Money | None = None
    # A promotion's part (pricing.promotions): `price` is charged after it; the price before it and what it took.
    list_price: Money | None = None
    discount: Money | None = None
    promotion_id: int | None = None


class LineOutcome(StrEnum):
    REGISTERED = "registered"  # delivered: its part is captured
    FAILED = "failed"  # certainly not delivered: its part is released
    UNKNOWN = "unknown"  # the answer was lost: its part is held until `resolve` says
    # Not delivered yet and nothing done: its service cannot be asked now (down, busy, its breaker open). The line
    # is pending again, its part held, and the next settle delivers it (asked by the confirmation page while it is
    # watched, else by the reconciler's pass over payments left authorised: billing/payments/reconcile.py).
    WAITING = "pending"


@dataclass(frozen=True)
class LineResult:
    outcome: LineOutcome
    reference: str = ""  # e.g. the registration's id, shown to staff
    cost: Decimal | None = None  # what delivering it cost us, when the delivering side recorded it


@dataclass(frozen=True)
class LineKind:
    name: str
    # Deliver one paid line, once: called again for a line whose first call was abandoned, it must find its own
    # earlier work (by the payment's checkout id) instead of doing it twice.
    deliver: Callable[[PaymentLine], LineResult]
    # For a line left UNKNOWN: True delivered, False not, None not known yet (asked again by the next run).
    resolve: Callable[[PaymentLine], bool | None]
    # What it means for what was sold when the line's money is given back (refunded in full, or lost to a dispute),
    # and while a dispute of it is open (True) or once it closed (False): e.g. the domain is marked refunded and its
    # auto-renew switched off. Called in the transaction that records the movement; no outside call.
    refunded: Callable[[PaymentLine], None] | None = None
    disputed: Callable[[PaymentLine, bool], None] | None = None


_KINDS: dict[str, LineKind] = {}


def line_kind_register(kind: LineKind) -> None:
    _KINDS[kind.name] = kind


def line_kind_of(line: PaymentLine) -> LineKind | None:
    """The kind that delivers this line, or None when no app registered it (the payment then waits for staff)."""
    return _KINDS.get(str(line.details.get("kind") or DEFAULT_KIND))


def line_refunded(line: PaymentLine) -> None:
    kind = line_kind_of(line)
    if kind is not None and kind.refunded is not None:
        kind.refunded(line)


def line_disputed(line: PaymentLine, *, open: bool) -> None:
    kind = line_kind_of(line)
    if kind is not None and kind.disputed is not None:
        kind.disputed(line, open)
