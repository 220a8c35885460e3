"""A client for the payment sandbox's test-only control endpoint (`/_control/stripe/`, sandbox/stripe_api/control.py).

The payment sandbox is served by the session's sandbox process under `/stripe/`; tests pay, switch faults and read
its events and API calls through this client, never through its models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
