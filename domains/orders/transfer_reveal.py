"""Post/redirect/get for the transfer code: a POST (typed by the customer, or resumed by allauth after the
password was asked again) leaves a one-time ticket in the session and redirects to a GET that spends it.

The code itself is never kept (not in the session, not in a cache): the GET reads it from the provider. A reload of
that GET finds the ticket spent and shows the domain page, so a reload never re-sends the password form nor reveals
the code again."""

from __future__ import annotations

import secrets
import time

from django.contrib.sessions.backends.base import SessionBase

from domains.models import Order

SESSION_KEY = "transfer_code_tickets"
# Long enough for a slow redirect, short enough that a ticket left in a shared browser is soon worthless.
TICKET_SECONDS = 120


def reveal_ticket_issue(*, session: SessionBase, order: Order) -> str:
    ticket = secrets.token_urlsafe(16)
    tickets: dict[str, list[str | float]] = session.get(SESSION_KEY, {})
    tickets[str(order.order_id)] = [ticket, time.time()]  # one per domain: a newer POST replaces an older ticket
    session[SESSION_KEY] = tickets
    return ticket


def reveal_ticket_spend(*, session: SessionBase, order: Order, ticket: str) -> bool:
    """Whether `ticket` is this domain's live ticket; spent either way (a second GET never reveals)."""
    tickets: dict[str, list[str | float]] = session.get(SESSION_KEY, {})
    issued = tickets.pop(str(order.order_id), None)
    session[SESSION_KEY] = tickets
    if issued is None or not ticket:
        return False
    expected, issued_at = issued
    return secrets.compare_digest(str(expected), ticket) and time.time() - float(issued_at) < TICKET_SECONDS
