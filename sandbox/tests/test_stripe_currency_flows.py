"""A whole payment in a zero-decimal currency (JPY) and in a two-decimal one (EUR): the session, the authorisation,
the capture, a refund and the charge keep the currency and its minor units, as Stripe does."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.tests.stripe_helpers import Api, authorised, page_path, session

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


def _lines(currency: str, *amounts: int) -> dict[str, str]:
    fields = {}
    for index, amount in enumerate(amounts):
        fields[f"line_items[{index}][price_data][currency]"] = currency
        fields[f"line_items[{index}][price_data][unit_amount]"] = str(amount)
    return fields


@pytest.mark.parametrize(
    ("currency", "amounts", "total", "shown"),
    [
        ("jpy", (1967, 2360), 4327, "Pay 4327 JPY"),  # whole yen: 1967 is ¥1,967, not ¥19.67
        ("eur", (1199, 599), 1798, "Pay 17.98 EUR"),  # cents
    ],
)
def test_a_payment_keeps_its_currency_and_minor_units_from_session_to_refund(api, currency, amounts, total, shown):
    made = session(api, **_lines(currency, *amounts))
    assert (made["currency"], made["amount_total"]) == (currency, total)
    assert shown in Client().get(page_path(made)).content.decode()

    intent = authorised(api, **_lines(currency, *amounts))
    assert (intent["currency"], intent["amount_capturable"]) == (currency, total)
    captured = api.post(f"payment_intents/{intent['id']}/capture", {"amount_to_capture": str(total)}).json()
    assert (captured["status"], captured["amount_received"], captured["currency"]) == ("succeeded", total, currency)

    refund = api.post("refunds", {"payment_intent": intent["id"], "amount": str(amounts[1])}).json()
    assert (refund["amount"], refund["currency"]) == (amounts[1], currency)
    charge = api.get(f"charges/{captured['latest_charge']}").json()
    assert (charge["currency"], charge["amount_captured"], charge["amount_refunded"]) == (currency, total, amounts[1])
