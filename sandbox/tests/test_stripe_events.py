"""Events for every money movement, in Stripe's shapes, and GET /v1/events(/<id>) to reconcile with."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.tests.stripe_helpers import GOOD_CARD, Api, authorised, control, page_path, sdk

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


def _events(api: Api, query: str = "") -> dict:
    response = api.get("events", query)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_capture_is_told_by_payment_intent_succeeded_and_charge_captured_with_whole_objects(api):
    intent = authorised(api)
    captured = api.post(f"payment_intents/{intent['id']}/capture", {"amount_to_capture": "1299"}, idempotency_key="c1")
    listed = _events(api, "limit=2")
    assert [event["type"] for event in listed["data"]] == ["charge.captured", "payment_intent.succeeded"]
    charge = listed["data"][0]["data"]["object"]
    assert (charge["object"], charge["id"], charge["captured"], charge["amount_captured"]) == (
        "charge",
        intent["latest_charge"],
        True,
        1299,
    )
    succeeded = listed["data"][1]
    assert succeeded["data"]["object"]["amount_received"] == 1299
    # The request that caused them, as Stripe's events name it.
    assert succeeded["request"] == {"id": captured["Request-Id"], "idempotency_key": "c1"}


def test_the_list_filters_by_type_with_wildcards_and_by_time(api):
    first = authorised(api)
    control("POST", "clock", {"advance_seconds": 3600})
    moment = control("GET", "clock")["now"]
    authorised(api)
    assert [e["type"] for e in _events(api, "type=charge.succeeded")["data"]] == ["charge.succeeded"] * 2
    assert {e["type"] for e in _events(api, "type=payment_intent.*")["data"]} == {
        "payment_intent.amount_capturable_updated"
    }
    both = _events(api, "types[]=charge.succeeded&types[]=checkout.session.completed")["data"]
    assert len(both) == 4
    recent = _events(api, f"created[gte]={moment}&type=charge.succeeded")["data"]
    assert [event["data"]["object"]["payment_intent"] for event in recent] != [first["id"]]
    assert len(recent) == 1


def test_the_list_pages_newest_first(api):
    for _ in range(3):
        authorised(api)  # 3 events each
    page = _events(api, "limit=4")
    assert (len(page["data"]), page["has_more"], page["url"]) == (4, True, "/v1/events")
    created = [event["created"] for event in page["data"]]
    assert created == sorted(created, reverse=True)
    rest = _events(api, f"limit=10&starting_after={page['data'][-1]['id']}")
    assert (len(rest["data"]), rest["has_more"]) == (5, False)
    assert not {e["id"] for e in page["data"]} & {e["id"] for e in rest["data"]}
    before = _events(api, f"limit=2&ending_before={rest['data'][0]['id']}")
    assert [e["id"] for e in before["data"]] == [e["id"] for e in page["data"][-2:]]


def test_one_event_is_retrieved_by_its_id_and_only_by_its_own_account(api):
    authorised(api)
    listed = _events(api, "limit=1")["data"][0]
    assert api.get(f"events/{listed['id']}").json() == listed
    other = Api("sk_test_another_account")
    assert other.get(f"events/{listed['id']}").status_code == 404
    assert _events(other)["data"] == []


def test_bad_list_parameters_are_refused_as_stripe_does(api):
    assert api.get("events", "limit=101").json()["error"]["param"] == "limit"
    unknown = api.get("events", "kind=charge.succeeded").json()["error"]
    assert (unknown["code"], unknown["message"]) == ("parameter_unknown", "Received unknown parameter: kind")
    assert api.get("events", "starting_after=evt_nothing").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_sdk_lists_pages_and_retrieves_events(live_server):
    client = sdk(live_server)
    for _ in range(2):
        made = client.v1.checkout.sessions.create(
            params={
                "mode": "payment",
                "success_url": "https://shop.example/done/",
                "payment_intent_data": {"capture_method": "manual"},
                "line_items": [
                    {
                        "price_data": {"currency": "usd", "unit_amount": 500, "product_data": {"name": "a"}},
                        "quantity": 1,
                    }
                ],
            }
        )
        Client().post(page_path({"url": made.url}), {"card_number": GOOD_CARD})
    listed = client.v1.events.list(params={"type": "checkout.session.completed", "limit": 1})
    assert (len(listed.data), listed.has_more) == (1, True)
    every = list(listed.auto_paging_iter())
    assert len(every) == 2 and every[0].type == "checkout.session.completed"
    assert client.v1.events.retrieve(every[1].id).data.object.object == "checkout.session"
