"""Disputes opened on a captured charge (control endpoint and admin), moved to review and closed won or lost, with
Stripe's Dispute shape, its balance transactions and its events."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User
from django.test import Client

from sandbox.stripe_api.models import Event, StripeObject
from sandbox.tests.stripe_helpers import Api, authorised, charge_of, control, sdk

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


@pytest.fixture
def captured(api) -> dict:
    intent = authorised(api)
    api.post(f"payment_intents/{intent['id']}/capture", {})
    return intent


def _types() -> list[str]:
    return list(Event.objects.filter(type__startswith="charge.dispute.").values_list("type", flat=True))


def test_a_chargeback_takes_the_money_and_the_fee_at_once(api, captured):
    dispute = control("POST", f"charges/{captured['latest_charge']}/dispute", {"reason": "fraudulent"})
    assert dispute["id"].startswith("du_") and dispute["object"] == "dispute"
    assert (dispute["amount"], dispute["currency"], dispute["reason"]) == (3799, "usd", "fraudulent")
    assert (dispute["charge"], dispute["payment_intent"]) == (captured["latest_charge"], captured["id"])
    assert (dispute["status"], dispute["is_charge_refundable"]) == ("needs_response", False)
    details = dispute["evidence_details"]
    assert details["due_by"] > dispute["created"] + 6 * 86400 and details["due_by"] % 86400 == 86399
    [withdrawal] = dispute["balance_transactions"]
    assert (withdrawal["type"], withdrawal["reporting_category"]) == ("adjustment", "dispute")
    assert (withdrawal["amount"], withdrawal["fee"], withdrawal["net"]) == (-3799, 1500, -5299)
    assert charge_of(api, captured)["disputed"] is True
    assert _types() == ["charge.dispute.created", "charge.dispute.funds_withdrawn"]
    assert api.get(f"disputes/{dispute['id']}").json() == dispute


def test_a_lost_dispute_leaves_the_money_with_the_cardholder(api, captured):
    dispute = control("POST", f"charges/{captured['id']}/dispute")
    review = control("POST", f"disputes/{dispute['id']}/review")
    assert (review["status"], review["evidence_details"]["submission_count"]) == ("under_review", 1)
    lost = control("POST", f"disputes/{dispute['id']}/close", {"outcome": "lost"})
    assert lost["status"] == "lost"
    assert [txn["amount"] for txn in lost["balance_transactions"]] == [-3799]
    assert _types() == [
        "charge.dispute.created",
        "charge.dispute.funds_withdrawn",
        "charge.dispute.updated",
        "charge.dispute.closed",
    ]
    updated = Event.objects.get(type="charge.dispute.updated").data["data"]
    assert updated["previous_attributes"]["status"] == "needs_response"
    # A charged-back charge is not refunded as well.
    refused = api.post("refunds", {"payment_intent": captured["id"]}).json()["error"]
    assert refused["code"] == "charge_disputed"


def test_a_won_dispute_gives_the_money_back(api, captured):
    dispute = control("POST", f"charges/{captured['id']}/dispute", {"amount": 1000})
    won = control("POST", f"disputes/{dispute['id']}/close", {"outcome": "won"})
    assert won["status"] == "won"
    assert [txn["amount"] for txn in won["balance_transactions"]] == [-1000, 1000]
    assert _types()[-2:] == ["charge.dispute.closed", "charge.dispute.funds_reinstated"]
    assert control("POST", f"disputes/{dispute['id']}/close", {"outcome": "lost"}, status=409)


def test_an_inquiry_moves_no_money_unless_it_is_lost(api, captured):
    inquiry = control("POST", f"charges/{captured['id']}/dispute", {"inquiry": True})
    assert (inquiry["status"], inquiry["balance_transactions"], inquiry["is_charge_refundable"]) == (
        "warning_needs_response",
        [],
        True,
    )
    assert control("POST", f"disputes/{inquiry['id']}/review")["status"] == "warning_under_review"
    lost = control("POST", f"disputes/{inquiry['id']}/close", {"outcome": "lost"})
    assert (lost["status"], [txn["amount"] for txn in lost["balance_transactions"]]) == ("lost", [-3799])


def test_a_closed_inquiry_in_the_merchants_favour_is_warning_closed(api, captured):
    inquiry = control("POST", f"charges/{captured['id']}/dispute", {"inquiry": True})
    closed = control("POST", f"disputes/{inquiry['id']}/close", {"outcome": "won"})
    assert (closed["status"], closed["balance_transactions"]) == ("warning_closed", [])


def test_only_a_captured_charge_is_disputed_and_only_once(api, captured):
    uncaptured = authorised(api)
    assert control("POST", f"charges/{uncaptured['id']}/dispute", status=409)["code"] == "charge_not_captured"
    control("POST", f"charges/{captured['id']}/dispute")
    assert control("POST", f"charges/{captured['id']}/dispute", status=409)["code"] == "charge_already_disputed"


def _admin() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("staff", "staff@example.org", "x"))
    return client


def test_staff_open_review_and_close_a_dispute_in_the_admin(api, captured):
    admin = _admin()
    opened = admin.post(
        "/admin/stripe_api/charge/",
        {"action": "open_chargeback", "_selected_action": [captured["latest_charge"]]},
        follow=True,
    )
    assert b"dispute du_" in opened.content
    dispute = StripeObject.objects.get(object="dispute")
    admin.post("/admin/stripe_api/dispute/", {"action": "move_to_review", "_selected_action": [dispute.pk]})
    admin.post("/admin/stripe_api/dispute/", {"action": "close_lost", "_selected_action": [dispute.pk]})
    assert api.get(f"disputes/{dispute.pk}").json()["status"] == "lost"
    assert Event.objects.get(type="charge.dispute.closed").data["request"]["id"].startswith("req_")


def test_staff_refund_part_of_a_payment_in_the_admin(api, captured):
    admin = _admin()
    asked = admin.post(
        "/admin/stripe_api/paymentintent/", {"action": "refund_part", "_selected_action": [captured["id"]]}
    )
    assert asked.status_code == 200 and b'name="amount"' in asked.content
    admin.post(
        "/admin/stripe_api/paymentintent/",
        {"action": "refund_part", "_selected_action": [captured["id"]], "apply": "1", "amount": "1200"},
    )
    refunds = charge_of(api, captured)["refunds"]["data"]
    assert [(refund["amount"], refund["metadata"]) for refund in refunds] == [(1200, {})]


@pytest.mark.django_db(transaction=True)
def test_the_sdk_retrieves_a_dispute(live_server):
    api = Api()
    intent = authorised(api)
    api.post(f"payment_intents/{intent['id']}/capture", {})
    made = control("POST", f"charges/{intent['id']}/dispute", {"reason": "product_not_received"})
    dispute = sdk(live_server).v1.disputes.retrieve(made["id"])
    assert (dispute.status, dispute.reason, dispute.amount) == ("needs_response", "product_not_received", 3799)
    assert dispute.balance_transactions[0].fee == 1500


def test_every_payment_sandbox_list_in_the_admin_shows_its_objects(api, captured):
    dispute = control("POST", f"charges/{captured['id']}/dispute", {"inquiry": True})
    refund = control("POST", f"charges/{captured['id']}/refund", {"amount": 100})
    admin = _admin()
    shown = {
        "paymentintent": captured["id"],
        "charge": captured["latest_charge"],
        "refund": refund["id"],
        "dispute": dispute["id"],
        "stripeobject": captured["id"],
        "event": "charge.dispute.created",
        "setup": " UTC</td>",
    }
    for model, text in shown.items():
        page = admin.get(f"/admin/stripe_api/{model}/")
        assert page.status_code == 200, model
        assert text in page.content.decode(), model
    # Quoted as the admin's own links are: an id whose "_" is followed by two hex digits of one of the admin's escapes
    # (ch_22…, ch_40…: one id in about forty) would otherwise be read back as another id.
    detail = admin.get(f"/admin/stripe_api/charge/{quote(captured['latest_charge'])}/change/")
    assert detail.status_code == 200
