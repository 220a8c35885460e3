"""What an action on the sandbox's objects comes to: the hosted page's outcome, or a refusal for the state it
found (answered by the API as Stripe's 400 with the code, and by the hosted page as a message)."""

from __future__ import annotations

from dataclasses import dataclass


class Unexpected(Exception):
    """The object is not in a state that allows this (Stripe's `payment_intent_unexpected_state` and kin)."""

    def __init__(self, message: str, code: str = "payment_intent_unexpected_state") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class PayResult:
    outcome: str  # "authorised", "declined", "authenticate", "invalid"
    message: str = ""
