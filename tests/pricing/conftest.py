"""Factories for the cost table, a fake provider price list for the sync's failure cases, and the default rule as a
pricing test states it (`markup`)."""

import datetime as dt
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.utils import timezone

from pricing.models import CostPrice, Promotion, PromotionKind, PromotionRedemption, PromotionScope, Tld
from storefront.gateway import PriceList, TldPrices, Unavailable


def markup(*, percent: str = "0", fixed: str = "0", rounding: str = "none") -> override_settings:
    """The store's default rule (PRICE_MARKUP_*), stated whole by a test of the pricing itself instead of taken from
    the suite's settings (a markup of 1.50 a year): `@markup()` is no markup at all, so retail equals cost;
    `@markup(percent="20")` is 20 % and nothing else."""
    return override_settings(
        PRICE_MARKUP_PERCENT=Decimal(percent), PRICE_MARKUP_FIXED=Decimal(fixed), PRICE_ROUNDING=rounding
    )


def tld_prices(
    tld: str,
    *,
    register: dict[int, str],
    renew: dict[int, str] | None = None,
    transfer: dict[int, str] | None = None,
    restore: dict[int, str] | None = None,
) -> TldPrices:
    def money(prices: dict[int, str] | None) -> dict[int, Decimal]:
        return {years: Decimal(amount) for years, amount in (prices or {}).items()}

    return TldPrices(
        tld=tld,
        register=money(register),
        renew=money(renew if renew is not None else {1: register[min(register)]}),
        transfer=money(transfer),
        restore=money(restore),
    )


def price_list(*entries: TldPrices) -> PriceList:
    return PriceList(currency="USD", tlds={e.tld: e for e in entries}, privacy_protection=Decimal("4.99"))


class FakeGateway:
    """Answers `pricing()` with a given price list, or raises the given gateway error."""

    def __init__(self) -> None:
        self.answer: PriceList | Exception = price_list()
        self.calls = 0

    def pricing(self) -> PriceList:
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> FakeGateway:
    fake = FakeGateway()
    monkeypatch.setattr("pricing.sync.gateway", lambda: fake)
    return fake


@pytest.fixture
def provider_down(provider: FakeGateway) -> FakeGateway:
    provider.answer = Unavailable("HTTP 503")
    return provider


@pytest.fixture
def costs(db: None) -> Callable[..., Tld]:
    """Write one TLD's cost rows straight into the table: `costs("com", register={1: "12.99"}, renew={1: "14.99"})`."""

    def make(tld: str, *, sold: bool = True, currency: str = "USD", **operations: dict[int, str]) -> Tld:
        now = timezone.now()
        row, _ = Tld.objects.update_or_create(name=tld, defaults={"sold": sold})
        for operation, prices in operations.items():
            for years, amount in prices.items():
                CostPrice.objects.update_or_create(
                    tld=row,
                    operation=operation,
                    years=years,
                    defaults={"amount": Decimal(amount), "currency": currency, "fetched_at": now, "changed_at": now},
                )
        return row

    return make


@pytest.fixture
def staff_client(client):
    """The test client signed in as a superuser (the admin's pages)."""
    staff = get_user_model().objects.create_superuser("staff@example.com", "staff@example.com", "x")
    client.force_login(staff)
    return client


def promotion_make(**fields: Any) -> Promotion:
    """A promotion valid since yesterday: 20 % off first-year registrations of every TLD unless told otherwise."""
    values: dict[str, Any] = {
        "code": "LAUNCH",
        "kind": PromotionKind.PERCENT,
        "value": Decimal("20"),
        "applies_to": PromotionScope.REGISTER,
        "starts_at": timezone.now() - dt.timedelta(days=1),
    }
    values.update(fields)
    return Promotion.objects.create(**values)


def use_taken_elsewhere(promotion: Promotion, *, customer_id: int, operation: str = "register") -> None:
    """Another customer's checkout takes a use of the promotion (one line) meanwhile."""
    PromotionRedemption.objects.create(
        promotion=promotion,
        customer_id=customer_id,
        checkout_id=uuid.uuid4(),
        reference="elsewhere.com",
        operation=operation,
        list_amount=Decimal("14.49"),
        discount=Decimal("1.00"),
        currency="USD",
    )
