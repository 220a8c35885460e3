"""A client for the payment sandbox's test-only control endpoint (`/_control/stripe/`, sandbox/stripe_api/control.py).

The payment sandbox is served by the session's sandbox process under `/stripe/`; tests pay, switch faults and read
its events and API calls through this client, never through its models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import requests

TEST_KEY = "sk_test_storefront_tests"
WEBHOOK_SECRET = "whsec_storefront_tests"


@dataclass(frozen=True)
class SignedEvent:
    id: str
    type: str
    payload: str  # the exact body Stripe would POST
    signature: str  # its Stripe-Signature header, made now
    deliveries: int  # how many times the sandbox POSTed it to its webhook endpoint


@dataclass(frozen=True)
class SandboxClock:
    now: int  # the payment sandbox's time, Unix seconds: every `created`, deadline and event time comes from it
    offset_seconds: int  # how far it runs ahead of real time
    due: int  # how many objects the move changed (holds lapsed, sessions expired, refunds settled)


# A Stripe object as the sandbox answers with it (refund, dispute, ...): the same JSON the API returns.
StripeObjectData = dict[str, Any]


class StripeControl:
    def __init__(self, sandbox_url: str) -> None:
        self.root = f"{sandbox_url}/_control/stripe"
        self.api_base = f"{sandbox_url}/stripe"
        self.http = requests.Session()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, f"{self.root}/{path}", timeout=15, **kwargs)
        assert response.status_code < 400, response.text
        return response.json()

    def reset(self) -> None:
        self._call("POST", "reset")
        self.setup(webhook_secret=WEBHOOK_SECRET, webhook_url="")

    def setup(self, **fields: Any) -> dict:
        return self._call("PUT", "setup", json=fields)

    def pay(self, session_id: str, card: str) -> str:
        """What the hosted page does with this card: "authorised", "declined" or "authenticate"."""
        return self._call("POST", f"sessions/{session_id}/pay", json={"card": card})["outcome"]

    def pay_with_link(self, session_id: str) -> str:
        """The customer chooses Link on the hosted page (offered unless the session is card only): "authorised",
        or "invalid" on a card-only session. Link leaves no card payment method on the Customer."""
        return self._call("POST", f"sessions/{session_id}/pay", json={"method": "link"})["outcome"]

    def require_idempotency_keys(self, on: bool = True) -> None:
        """Every state-changing request without an Idempotency-Key of our own is then refused (400
        idempotency_error naming its path); the SDK's automatic keys do not count. `reset()` turns it off."""
        self.setup(require_idempotency_keys=on)

    def clock(self) -> SandboxClock:
        return SandboxClock(**self._call("GET", "clock"))

    def advance_clock(self, seconds: int) -> SandboxClock:
        """Move the sandbox's clock forward; what fell due meanwhile happens now (and its events go out)."""
        return SandboxClock(**self._call("POST", "clock", json={"advance_seconds": seconds}))

    def move_clock_to(self, timestamp: int) -> SandboxClock:
        """Move the clock to this Unix time (never back), e.g. a charge's capture_before plus one."""
        return SandboxClock(**self._call("POST", "clock", json={"to": timestamp}))

    def tick(self) -> int:
        """Do what is due now without moving the clock; how many objects it changed."""
        return int(self._call("POST", "tick")["due"])

    def refund_in_dashboard(
        self, charge_or_intent: str, *, amount: int | None = None, reason: str | None = None
    ) -> StripeObjectData:
        """A refund staff make in Stripe's Dashboard (no metadata of ours): all that is left, or `amount`."""
        body: dict[str, Any] = {"reason": reason} if reason else {}
        if amount is not None:
            body["amount"] = amount
        return self._call("POST", f"charges/{charge_or_intent}/refund", json=body)

    def settle_refund(
        self, refund_id: str, *, outcome: Literal["succeeded", "failed"] | None = None
    ) -> StripeObjectData:
        """A pending refund (setup refund_flow "pending" or "fails") reaches its outcome now."""
        return self._call("POST", f"refunds/{refund_id}/settle", json={"outcome": outcome} if outcome else {})

    def open_dispute(
        self, charge_or_intent: str, *, reason: str = "general", amount: int | None = None, inquiry: bool = False
    ) -> StripeObjectData:
        """The cardholder's bank disputes a captured charge: a chargeback (money and fee withdrawn at once) or an
        inquiry (nothing moves unless it is lost)."""
        body: dict[str, Any] = {"reason": reason, "inquiry": inquiry}
        if amount is not None:
            body["amount"] = amount
        return self._call("POST", f"charges/{charge_or_intent}/dispute", json=body)

    def review_dispute(self, dispute_id: str) -> StripeObjectData:
        """Evidence sent: the dispute goes under review."""
        return self._call("POST", f"disputes/{dispute_id}/review")

    def close_dispute(self, dispute_id: str, *, won: bool) -> StripeObjectData:
        """The bank decides: won (a chargeback's money comes back) or lost (it stays with the cardholder)."""
        return self._call("POST", f"disputes/{dispute_id}/close", json={"outcome": "won" if won else "lost"})

    def authenticate(self, session_id: str, *, passed: bool = True) -> str:
        """The card's authentication step on the hosted page, passed or failed: "authorised" or "declined"."""
        return self._call("POST", f"sessions/{session_id}/authenticate", json={"passed": passed})["outcome"]

    def events(self, *, type: str = "", session: str = "") -> list[SignedEvent]:
        found = self._call("GET", "events", params={"type": type, "session": session})["events"]
        return [SignedEvent(e["id"], e["type"], e["payload"], e["signature"], e["deliveries"]) for e in found]

    def calls(self, path_contains: str = "") -> list[dict]:
        return self._call("GET", "calls", params={"path_contains": path_contains})["calls"]

    def captures(self) -> list[dict]:
        """The capture requests that did capture (a replayed idempotent answer is not a second capture)."""
        return [c for c in self.calls("/capture") if c["status"] == 200 and not c["replayed"]]

    def stored(self, object_id: str) -> dict:
        return self._call("GET", f"objects/{object_id}")
