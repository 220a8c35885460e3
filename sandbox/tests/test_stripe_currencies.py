"""Stripe's rules for amounts in minor units: zero-decimal currencies in whole units, ISK and UGX with two decimals
that must be 00, HUF and TWD charged with two decimals, three-decimal currencies ending in 0; the hosted page shows
each amount as a person reads it."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.stripe_api import currencies
from sandbox.tests.stripe_helpers import SESSION, Api, authorised, page_path, session

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


def _one_line(currency: str, unit_amount: int) -> dict:
    return {
        "line_items[0][price_data][currency]": currency,
        "line_items[0][price_data][unit_amount]": str(unit_amount),
        "line_items[1][price_data][currency]": currency,
        "line_items[1][price_data][unit_amount]": str(unit_amount),
    }


def _refused(api: Api, currency: str, unit_amount: int) -> dict:
    response = api.post("checkout/sessions", {**SESSION, **_one_line(currency, unit_amount)})
    assert response.status_code == 400
    return response.json()["error"]


@pytest.mark.parametrize(
    ("currency", "unit_amount", "shown"),
    [
        ("jpy", 1500, "3000 JPY"),  # zero-decimal: whole yen
        ("krw", 25000, "50000 KRW"),
        ("isk", 500, "10 ISK"),  # two decimals, always 00: 500 is 5 ISK
        ("ugx", 100000, "2000 UGX"),
        ("huf", 10045, "200.90 HUF"),  # HUF is charged with two decimals (100 is for payouts only)
        ("twd", 80045, "1600.90 TWD"),
        ("kwd", 5120, "10.240 KWD"),  # three decimals, the last one 0
        ("usd", 1299, "25.98 USD"),
    ],
)
def test_amounts_that_keep_the_rules_are_taken_and_shown_as_people_read_them(api, currency, unit_amount, shown):
    made = session(api, **_one_line(currency, unit_amount))
    assert (made["currency"], made["amount_total"]) == (currency, 2 * unit_amount)
    page = Client().get(page_path(made))
    assert f"Pay {shown}" in page.content.decode()


@pytest.mark.parametrize(
    ("currency", "unit_amount"), [("isk", 1050), ("ugx", 150), ("kwd", 5124), ("bhd", 1), ("omr", 99)]
)
def test_amounts_that_break_the_rules_are_refused_with_stripes_error_shape(api, currency, unit_amount):
    error = _refused(api, currency, unit_amount)
    assert (error["type"], error["code"]) == ("invalid_request_error", "invalid_charge_amount")
    assert error["param"] == "line_items[0][price_data][unit_amount]"
    assert currency in error["message"]


def test_an_unsupported_currency_is_refused(api):
    error = _refused(api, "xyz", 1000)
    assert error["message"].startswith("Invalid currency: xyz. Stripe currently supports these currencies: ")
    assert error["param"] == "line_items[0][price_data][currency]"


def test_payment_intents_captures_and_refunds_keep_the_rules_too(api):
    refused = api.post("payment_intents", {"amount": "1050", "currency": "isk"}).json()["error"]
    assert (refused["code"], refused["param"]) == ("invalid_charge_amount", "amount")
    assert api.post("payment_intents", {"amount": "1000", "currency": "isk"}).status_code == 200
    intent = authorised(api, **_one_line("kwd", 5120))
    capture = api.post(f"payment_intents/{intent['id']}/capture", {"amount_to_capture": "5005"}).json()
    assert capture["error"]["param"] == "amount_to_capture"
    api.post(f"payment_intents/{intent['id']}/capture", {"amount_to_capture": "5000"})
    refund = api.post("refunds", {"payment_intent": intent["id"], "amount": "1001"}).json()
    assert refund["error"]["code"] == "invalid_charge_amount"
    assert api.post("refunds", {"payment_intent": intent["id"], "amount": "1000"}).json()["amount"] == 1000


def test_the_list_has_stripes_presentment_currencies_and_the_three_decimal_ones():
    assert {"usd", "eur", "gbp", "jpy", "isk", "huf", "twd", "ugx"} <= currencies.SUPPORTED
    assert currencies.THREE_DECIMAL <= currencies.SUPPORTED
    assert currencies.ZERO_DECIMAL <= currencies.SUPPORTED
    assert "xyz" not in currencies.SUPPORTED
