"""Refunds through the API and from the Dashboard, and their states: succeeded at once, or pending until they
succeed or fail (refund.updated, refund.failed), with charge.refunded and the charge's refunded amount."""

from __future__ import annotations

import pytest

from sandbox.stripe_api.models import Event, Setup
from sandbox.tests.stripe_helpers import Api, authorised, charge_of, control

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


@pytest.fixture
def captured(api) -> dict:
    intent = authorised(api)
    api.post(f"payment_intents/{intent['id']}/capture", {})
    return intent


def _payloads(type: str) -> list[dict]:
    return [event.data for event in Event.objects.filter(type=type)]


def test_a_dashboard_refund_carries_no_metadata_and_is_told_by_refund_created_and_charge_refunded(api, captured):
    refund = control("POST", f"charges/{captured['latest_charge']}/refund", {"amount": 1000})
    assert (refund["object"], refund["amount"], refund["status"], refund["metadata"]) == (
        "refund",
        1000,
        "succeeded",
        {},
    )
    assert (refund["charge"], refund["payment_intent"]) == (captured["latest_charge"], captured["id"])
    [created] = _payloads("refund.created")
    assert created["data"]["object"]["id"] == refund["id"]
    assert created["request"]["idempotency_key"] is None  # not the storefront's request
    [refunded] = _payloads("charge.refunded")
    charge = refunded["data"]["object"]
    assert (charge["amount_refunded"], charge["refunded"]) == (1000, False)
    assert refunded["data"]["previous_attributes"]["amount_refunded"] == 0
    assert charge["refunds"]["data"][0]["id"] == refund["id"]
    txn = api.get(f"balance_transactions/{refund['balance_transaction']}").json()
    assert (txn["type"], txn["amount"], txn["source"]) == ("refund", -1000, refund["id"])


def test_a_dashboard_refund_of_everything_left_names_the_payment_intent_too(api, captured):
    api.post("refunds", {"payment_intent": captured["id"], "amount": "799", "metadata[line]": "a"})
    refund = control("POST", f"charges/{captured['id']}/refund")
    assert refund["amount"] == 3000
    charge = charge_of(api, captured)
    assert (charge["amount_refunded"], charge["refunded"], charge["refunds"]["total_count"]) == (3799, True, 2)
    refused = control("POST", f"charges/{captured['id']}/refund", status=409)
    assert refused["code"] == "charge_already_refunded"


def test_an_api_refund_keeps_the_storefronts_metadata_and_can_name_the_charge(api, captured):
    made = api.post("refunds", {"charge": captured["latest_charge"], "amount": "500", "metadata[payment_id]": "7"})
    assert (made.status_code, made.json()["metadata"]) == (200, {"payment_id": "7"})
    assert api.get(f"refunds/{made.json()['id']}").json()["amount"] == 500


def test_a_pending_refund_succeeds_when_it_settles(api, captured):
    Setup.objects.update_or_create(pk=1, defaults={"refund_flow": "pending", "refund_settle_seconds": 3600})
    refund = api.post("refunds", {"payment_intent": captured["id"], "amount": "1000"}).json()
    assert refund["status"] == "pending"
    assert charge_of(api, captured)["amount_refunded"] == 1000  # taken back from the account at once
    control("POST", "clock", {"advance_seconds": 3540})  # real time passes too: a minute to spare
    assert api.get(f"refunds/{refund['id']}").json()["status"] == "pending"
    control("POST", "clock", {"advance_seconds": 60})
    assert api.get(f"refunds/{refund['id']}").json()["status"] == "succeeded"
    [updated] = _payloads("refund.updated")
    assert updated["data"]["object"]["status"] == "succeeded"
    assert updated["data"]["previous_attributes"] == {"status": "pending"}
    assert not _payloads("refund.failed")


def test_a_refund_that_fails_gives_the_money_back_to_the_account(api, captured):
    Setup.objects.update_or_create(pk=1, defaults={"refund_flow": "fails"})
    refund = control("POST", f"charges/{captured['id']}/refund", {"amount": 1000})
    assert refund["status"] == "pending"
    failed = control("POST", f"refunds/{refund['id']}/settle")
    assert (failed["status"], failed["failure_reason"]) == ("failed", "expired_or_canceled_card")
    assert charge_of(api, captured)["amount_refunded"] == 0
    assert [e["data"]["object"]["status"] for e in _payloads("refund.failed")] == ["failed"]
    assert _payloads("refund.updated")[0]["data"]["previous_attributes"]["status"] == "pending"
    back = api.get(f"balance_transactions/{failed['failure_balance_transaction']}").json()
    assert (back["type"], back["amount"]) == ("refund_failure", 1000)
    # What failed can be refunded again.
    assert api.post("refunds", {"payment_intent": captured["id"]}).json()["amount"] == 3799


def test_a_settled_refund_does_not_settle_again(api, captured):
    refund = control("POST", f"charges/{captured['id']}/refund")
    assert control("POST", f"refunds/{refund['id']}/settle", status=409)["code"] == "refund_not_pending"


def test_an_uncaptured_or_unknown_payment_is_not_refunded(api):
    intent = authorised(api)
    assert control("POST", f"charges/{intent['latest_charge']}/refund", status=409)["code"] == "charge_not_refundable"
    assert api.post("refunds", {"payment_intent": intent["id"]}).json()["error"]["code"] == "charge_not_refundable"
    control("POST", "charges/ch_nothing/refund", status=404)
