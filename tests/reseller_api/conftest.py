"""Keys and rows for the staff API's tests: keys made as the admin makes them, customers only in our database (the
API never calls the provider)."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from billing.models import LedgerEntry, Payment, PaymentLine, SaleCause
from reseller_api.keys import IssuedKey, api_key_issue
from reseller_api.models import ApiKey


@pytest.fixture
def make_key(db) -> Callable[..., IssuedKey]:
    def make(name: str = "Accounting sync", scope: str = ApiKey.Scope.READ) -> IssuedKey:
        return api_key_issue(key=ApiKey(name=name, scope=scope))

    return make


@pytest.fixture
def read_key(make_key) -> IssuedKey:
    return make_key()


@pytest.fixture
def write_key(make_key) -> IssuedKey:
    return make_key("Support desk", ApiKey.Scope.WRITE)


class Api:
    """A client that sends a key: `api.get("/customers")` for /api/v1/customers."""

    def __init__(self, client: Client, secret: str) -> None:
        self.client, self.secret = client, secret

    def get(self, path: str, **params: str | int):
        return self.client.get(f"/api/v1{path}", params, headers={"Authorization": f"Bearer {self.secret}"})

    def post(self, path: str, body: dict[str, object]):
        return self.client.post(
            f"/api/v1{path}", body, content_type="application/json", headers={"Authorization": f"Bearer {self.secret}"}
        )


@pytest.fixture
def api(client, read_key) -> Api:
    return Api(client, read_key.secret)


@pytest.fixture
def write_api(client, write_key) -> Api:
    return Api(client, write_key.secret)


def payment_make(
    customer, *, at: dt.datetime | None = None, amount: str = "14.49", domain: str = "paid.com"
) -> tuple[Payment, LedgerEntry]:
    """A captured payment of one domain line and its capture in the ledger, as billing's booking leaves them."""
    at = at or timezone.now()
    payment = Payment.objects.create(
        customer=customer, checkout_id=uuid.uuid4(), currency="USD", amount=Decimal(amount), status="captured",
        amount_authorised=Decimal(amount), amount_captured=Decimal(amount), stripe_session_id=f"cs_{uuid.uuid4().hex}",
        stripe_payment_intent_id=f"pi_{uuid.uuid4().hex[:16]}", settled_at=at,
    )  # fmt: skip
    Payment.objects.filter(pk=payment.pk).update(created_at=at)
    payment.refresh_from_db()
    line = PaymentLine.objects.create(
        payment=payment, position=0, reference=domain, description=f"{domain}, 1 year", amount=Decimal(amount),
        tld=domain.rsplit(".", 1)[-1], status="registered",
    )  # fmt: skip
    entry = LedgerEntry.objects.create(
        kind=LedgerEntry.Kind.CAPTURE, cause=SaleCause.REGISTRATION, amount=Decimal(amount), currency="USD",
        tld=line.tld, payment=payment, line=line, source_id=f"ch_{uuid.uuid4().hex[:16]}", occurred_at=at,
        cost=Decimal("9.00"),
    )  # fmt: skip
    return payment, entry
