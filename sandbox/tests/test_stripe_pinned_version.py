"""The payment sandbox as Stripe answers at the API version the storefront's SDK pins (2026-10-28.endive): today's
field values, the version on every event, Stripe's minimum charge per currency, at most 20 event types per list,
Tax Rates listed, webhook endpoints kept per account, and a strict mode refusing requests made for other versions."""

from __future__ import annotations

import pytest
import stripe
from django.contrib.auth.models import User
from django.test import Client

from sandbox.stripe_api.models import Event
from sandbox.tests.stripe_helpers import SESSION, Api, authorised, control, sdk, session

pytestmark = pytest.mark.django_db
PINNED = "2026-10-28.endive"


@pytest.fixture
def api() -> Api:
    return Api()


def test_the_sdk_pins_the_version_the_sandbox_answers_as():
    assert stripe.api_version == PINNED


def test_sessions_and_events_carry_todays_values(api):
    made = session(api)
    assert made["ui_mode"] == "hosted_page"
    authorised(api)
    assert {event.data["api_version"] for event in Event.objects.all()} == {PINNED}
    assert session(api, ui_mode="hosted_page")["ui_mode"] == "hosted_page"
    refused = api.post("checkout/sessions", {**SESSION, "ui_mode": "hosted"})
    assert refused.status_code == 400 and refused.json()["error"]["param"] == "ui_mode"


@pytest.mark.parametrize(
    ("currency", "amount", "refused"),
    [
        ("usd", 49, True),
        ("usd", 50, False),
        ("gbp", 29, True),
        ("gbp", 30, False),
        ("jpy", 49, True),
        ("huf", 17400, True),
    ],
)
def test_a_charge_below_stripes_minimum_is_refused(api, currency, amount, refused):
    answer = api.post(
        "checkout/sessions",
        {
            "mode": "payment",
            "success_url": "https://shop.example/",
            "line_items[0][price_data][currency]": currency,
            "line_items[0][price_data][unit_amount]": str(amount),
            "line_items[0][price_data][product_data][name]": "a.com",
            "line_items[0][quantity]": "1",
        },
    )
    assert (answer.status_code == 400) is refused, answer.content
    if refused:
        error = answer.json()["error"]
        assert error["code"] == "amount_too_small"
        assert "must add up to at least" in error["message"]
    intent = api.post("payment_intents", {"amount": str(amount), "currency": currency})
    assert (intent.status_code == 400) is refused
    if refused:
        assert intent.json()["error"]["message"].startswith("Amount must be at least ")


def test_an_event_list_names_at_most_20_types(api):
    twenty = "&".join(f"types[]=charge.t{index}" for index in range(20))
    assert api.get("events", twenty).status_code == 200
    answer = api.get("events", f"{twenty}&types[]=charge.t20")
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == "types"


def test_tax_rates_are_listed_newest_first_and_filtered(api):
    made = [
        api.post("tax_rates", {"display_name": name, "percentage": "19", "inclusive": inclusive}).json()
        for name, inclusive in (("VAT", "true"), ("Sales tax", "false"), ("IVA", "true"))
    ]
    listed = api.get("tax_rates", "limit=2").json()
    assert [rate["id"] for rate in listed["data"]] == [made[2]["id"], made[1]["id"]] and listed["has_more"]
    following = api.get("tax_rates", f"limit=2&starting_after={made[1]['id']}").json()
    assert [rate["id"] for rate in following["data"]] == [made[0]["id"]] and not following["has_more"]
    inclusive = api.get("tax_rates", "inclusive=true").json()["data"]
    assert {rate["display_name"] for rate in inclusive} == {"VAT", "IVA"}
    assert Api(key="sk_test_another_account").get("tax_rates").json()["data"] == []


def test_webhook_endpoints_are_created_listed_and_deleted_per_account(api):
    created = api.post(
        "webhook_endpoints",
        {"url": "https://shop.example/payments/stripe/webhook/", "enabled_events[0]": "charge.refunded"},
    ).json()
    assert created["object"] == "webhook_endpoint" and created["secret"].startswith("whsec_")
    assert created["api_version"] == PINNED and created["status"] == "enabled"
    listed = api.get("webhook_endpoints").json()["data"]
    assert [(item["url"], item["enabled_events"]) for item in listed] == [
        ("https://shop.example/payments/stripe/webhook/", ["charge.refunded"])
    ]
    assert "secret" not in listed[0]  # shown on create only
    assert Api(key="sk_test_another_account").get("webhook_endpoints").json()["data"] == []
    missing = api.post("webhook_endpoints", {"url": "https://shop.example/"})
    assert missing.json()["error"]["param"] == "enabled_events"
    assert api.client.delete(
        f"/stripe/v1/webhook_endpoints/{created['id']}", headers={"Authorization": f"Bearer {api.key}"}
    ).json()["deleted"]
    assert api.get("webhook_endpoints").json()["data"] == []


@pytest.mark.django_db(transaction=True)
def test_strict_mode_refuses_other_versions_and_earlier_parameters(live_server):
    control("PUT", "setup", {"strict": True})
    client = sdk(live_server)
    params = {
        "mode": "payment",
        "success_url": "https://shop.example/",
        "line_items": [
            {"price_data": {"currency": "usd", "unit_amount": 1299, "product_data": {"name": "a.com"}}, "quantity": 1}
        ],
    }
    assert client.v1.checkout.sessions.create(params=params).ui_mode == "hosted_page"
    with pytest.raises(stripe.InvalidRequestError) as earlier:
        client.v1.checkout.sessions.create(params={**params, "payment_method_types": ["card"]})
    assert earlier.value.error.code == "parameter_unknown"
    with pytest.raises(stripe.InvalidRequestError) as other_version:
        client.v1.checkout.sessions.create(params=params, options={"stripe_version": "2024-06-20"})
    assert other_version.value.error.code == "api_version_invalid"
    control("PUT", "setup", {"strict": False})
    assert client.v1.checkout.sessions.create(params={**params, "payment_method_types": ["card"]})


def test_staff_see_and_delete_webhook_endpoints_in_the_admin(api):
    """As removing an endpoint in Stripe's Dashboard: the store's golive_check then names the missing webhook."""
    made = api.post(
        "webhook_endpoints", {"url": "https://shop.example/payments/stripe/webhook/", "enabled_events[0]": "*"}
    ).json()
    staff = Client()
    staff.force_login(User.objects.create_superuser("staff", "staff@example.org", "x"))
    listed = staff.get("/admin/stripe_api/webhookendpoint/").content.decode()
    assert made["id"] in listed and "https://shop.example/payments/stripe/webhook/" in listed
    staff.post(
        "/admin/stripe_api/webhookendpoint/",
        {"action": "delete_selected", "_selected_action": [made["id"]], "post": "yes"},
    )
    assert api.get("webhook_endpoints").json()["data"] == []
