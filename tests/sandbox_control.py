"""A typed client for the sandbox's test-only control endpoint (`/_control/`, see sandbox/control.py).

The sandbox runs in its own process (tests/conftest.py starts it once per session); tests arrange its state and
read it back through this client, never through its models.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import requests

DEMO_PARTNER = "Demo Reseller"
DEMO_KEY = "test_sandbox_demo"
# The statuses the provider lists (a Failed attempt is kept but never listed).
LISTED_STATUSES = ("Active", "Suspended", "Pending Delete Restorable", "Expired")


@dataclass(frozen=True)
class SandboxOrder:
    """A domain order as the sandbox holds it (its own view, not what the provider's API lists)."""

    order_id: int
    domain_name: str
    status: str
    expires_at: dt.datetime
    partner: str
    dns_active: bool
    transfer_code: str
    transfer_lock: bool
    privacy_enabled: bool
    privacy_expires_at: dt.datetime | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SandboxOrder:
        privacy = row["privacy_expires_at"]
        return cls(
            order_id=int(row["order_id"]),
            domain_name=row["domain_name"],
            status=row["status"],
            expires_at=dt.datetime.fromisoformat(row["expires_at"]),
            partner=row["partner"],
            dns_active=bool(row["dns_active"]),
            transfer_code=row["transfer_code"],
            transfer_lock=bool(row["transfer_lock"]),
            privacy_enabled=bool(row["privacy_enabled"]),
            privacy_expires_at=dt.datetime.fromisoformat(privacy) if privacy else None,
        )


@dataclass(frozen=True)
class SandboxRecord:
    """A DNS record as the sandbox holds it."""

    type: str
    host: str
    value: str
    time_to_live: int
    priority: int | None
    status: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SandboxRecord:
        return cls(**{name: row[name] for name in ("type", "host", "value", "time_to_live", "priority", "status")})


class ControlError(AssertionError):
    """The control endpoint refused a request: a mistake in the test's arrangement."""


class SandboxControl:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._session = requests.Session()

    def _send(self, method: str, path: str, *, params: dict[str, Any] | None = None, body: Any = None) -> Any:
        # A connection of its own each time: the sandbox's server closes idle keep-alive connections after a couple
        # of seconds, and a test that waited longer (a hang fault) would otherwise send on one already closed.
        response = self._session.request(
            method,
            f"{self.base_url}/_control/{path}",
            params=params,
            json=body if body is not None else {},
            headers={"Connection": "close"},
            timeout=30,
        )
        if response.status_code >= 400:
            raise ControlError(f"{method} /_control/{path}: {response.status_code} {response.text}")
        return response.json()

    # --- State as a whole -----------------------------------------------------------------------------------
    def reset(self) -> None:
        """Wipe every partner, customer, order and fault; then seed the demo partner and its key."""
        self._send("POST", "reset")

    # --- Faults ---------------------------------------------------------------------------------------------
    def set_fault(self, *, partner: str | None = None, **fields: Any) -> dict[str, Any]:
        """Switch faults on: any field of the sandbox's Fault (error_rate, hang_seconds, scope, ...)."""
        return self._send("PUT", "faults", body={**fields, **({"partner": partner} if partner else {})})

    def clear_faults(self, *, partner: str | None = None) -> None:
        self._send("DELETE", "faults", params={"partner": partner} if partner else None)

    @contextmanager
    def fault(self, *, partner: str | None = None, **fields: Any) -> Iterator[dict[str, Any]]:
        """Faults on for the block (default: the demo partner), off again after it."""
        fault = self.set_fault(partner=partner, **fields)
        try:
            yield fault
        finally:
            self.clear_faults(partner=partner)

    def revoke_key(self, plaintext: str) -> None:
        # The sandbox keeps only the key's SHA-256, as the provider does.
        key_hash = hashlib.sha256(plaintext.encode()).hexdigest()
        assert self.update("ApiKey", {"key_hash": key_hash}, revoked_at=dt.datetime.now(dt.UTC).isoformat()) == 1

    # --- Partners, keys, catalogue --------------------------------------------------------------------------
    def issue_key(
        self, *, partner: str = DEMO_PARTNER, environment: str = "test", label: str = "tests", plaintext: str = ""
    ) -> str:
        """A new key's plaintext (made up by the sandbox unless given)."""
        body = {"partner": partner, "environment": environment, "label": label, "plaintext": plaintext}
        return self._send("POST", "keys", body=body)["key"]

    def create_partner(self, *, name: str, test_balance: Decimal = Decimal("0.00"), tlds: tuple[str, ...] = ()) -> str:
        self.create("Partner", name=name, test_balance=str(test_balance))
        for position, tld in enumerate(tlds):
            self.create(
                "CatalogueTld", partner=name, tld=tld, position=position, register_price="10.00", renew_price="10.00"
            )
        return name

    def set_balance(self, amount: Decimal, *, partner: str = DEMO_PARTNER) -> None:
        self.update("Partner", {"name": partner}, test_balance=str(amount))

    def partner_balance(self, *, partner: str = DEMO_PARTNER) -> Decimal:
        """What the partner has left to spend in the test environment."""
        (row,) = self.rows("Partner", name=partner)
        return Decimal(str(row["test_balance"]))

    def set_min_term(self, tld: str, years: int, *, partner: str = DEMO_PARTNER) -> None:
        self.update("CatalogueTld", {"partner": partner, "tld": tld}, min_term=years)

    def reserve(
        self, domain_name: str, *, kind: str, premium_price: Decimal | None = None, partner: str = DEMO_PARTNER
    ) -> None:
        """Add a taken or premium name to the partner's catalogue."""
        fields: dict[str, Any] = {"partner": partner, "domain_name": domain_name, "kind": kind}
        if premium_price is not None:
            fields["premium_price"] = str(premium_price)
        self.create("ReservedName", **fields)

    # --- Customers, orders, DNS -----------------------------------------------------------------------------
    def customers(self, email: str) -> list[dict[str, Any]]:
        return self.rows("Customer", email__iexact=email)

    def orders(self, **lookups: Any) -> list[SandboxOrder]:
        return [SandboxOrder.from_row(row) for row in self.rows("DomainOrder", **lookups)]

    def order(self, order_id: int) -> SandboxOrder:
        (found,) = self.orders(order_id=order_id)
        return found

    def listed_orders(self, domain_name: str) -> int:
        """Orders holding the name (failed attempts are kept at the sandbox but never listed)."""
        return len(self.orders(domain_name=domain_name, status__in=",".join(LISTED_STATUSES)))

    def set_order(self, order_id: int, *, status: str | None = None, expires_at: dt.datetime | None = None) -> None:
        fields: dict[str, Any] = {}
        if status is not None:
            fields["status"] = status
        if expires_at is not None:
            fields["expires_at"] = expires_at.isoformat()
        self.update("DomainOrder", {"order_id": order_id}, **fields)

    def dns_records(self, order_id: int, **lookups: Any) -> list[SandboxRecord]:
        return [SandboxRecord.from_row(row) for row in self.rows("DnsRecord", order__order_id=order_id, **lookups)]

    # --- Any sandbox model, generically ---------------------------------------------------------------------
    def rows(self, model: str, **lookups: Any) -> list[dict[str, Any]]:
        return self._send("GET", f"rows/{model}", params=lookups)["rows"]

    def create(self, model: str, **fields: Any) -> dict[str, Any]:
        return self._send("POST", f"rows/{model}", body=fields)

    def update(self, model: str, lookups: dict[str, Any], **fields: Any) -> int:
        return self._send("PATCH", f"rows/{model}", params=lookups, body=fields)["updated"]


_session_sandbox: SandboxControl | None = None


def session_sandbox() -> SandboxControl:
    """The sandbox this test session started, for helpers that have no fixture at hand (tests/conftest.py)."""
    if _session_sandbox is None:
        raise RuntimeError("the sandbox is not running: request the `sandbox_url` fixture")
    return _session_sandbox


def set_session_sandbox(control: SandboxControl | None) -> None:
    global _session_sandbox  # one sandbox per test session, started and stopped by its fixture
    _session_sandbox = control
