"""What the staff API answers: each list and detail, cursor paging, the month filters, the one write, and nothing
secret in any of it."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Activity
from accounts.staff.activity import acting, activity_record
from billing.models import SavedCard
from domains.models import Order
from tests.factories import CustomerFactory, OrderFactory
from tests.reseller_api.conftest import payment_make

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def _all_pages(api, path: str, **params) -> list[dict]:
    seen: list[dict] = []
    cursor = ""
    while True:
        page = api.get(path, cursor=cursor, limit=2, **params).json()
        seen += page["items"]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            return seen


def test_customers_list_and_detail(api):
    customer = CustomerFactory.create(email="grace@example.org", name="Grace Hopper", country_code="1", phone="5550100")
    page = api.get("/customers").json()
    assert page["has_more"] is False
    (row,) = page["items"]
    assert row["id"] == customer.pk
    assert (row["email"], row["name"], row["phone"], row["country"]) == (
        "grace@example.org", "Grace Hopper", "+1.5550100", "GB",
    )  # fmt: skip
    assert api.get(f"/customers/{customer.pk}").json() == row
    assert api.get(f"/customers/{customer.pk + 1000}").status_code == 404


def test_paging_by_cursor_sees_every_row_once_even_as_rows_are_added(api):
    first = [CustomerFactory.create() for _ in range(3)]
    page = api.get("/customers", limit=2).json()
    assert [row["id"] for row in page["items"]] == [customer.pk for customer in first[:2]]
    assert page["has_more"] is True
    added = CustomerFactory.create()  # made while the client pages
    rest = api.get("/customers", limit=2, cursor=page["next_cursor"]).json()
    assert [row["id"] for row in rest["items"]] == [first[2].pk, added.pk]
    last = api.get("/customers", limit=2, cursor=rest["next_cursor"]).json()
    assert last == {"items": [], "next_cursor": rest["next_cursor"], "has_more": False}
    # The kept cursor picks up exactly what is made later.
    later = CustomerFactory.create()
    assert [row["id"] for row in api.get("/customers", cursor=last["next_cursor"]).json()["items"]] == [later.pk]


@pytest.mark.parametrize("cursor", ["nonsense", "-1", "1.5", "1234567890123456789"])
def test_a_cursor_the_api_never_gave_is_400(api, cursor):
    response = api.get("/customers", cursor=cursor)
    assert response.status_code == 400
    assert "cursor" in response.json()["detail"]


def test_an_invalid_filter_is_400_naming_it(api):
    response = api.get("/payments", month="2026-13")
    assert response.status_code == 400
    assert "month" in response.json()["detail"]
    assert api.get("/customers", limit=0).status_code == 400


def test_domains_say_status_expiry_auto_renew_refund_and_dispute(api):
    now = timezone.now().replace(microsecond=0)
    refunded = OrderFactory.create(domain_name="refunded.com", refunded_at=now, auto_renew=False)
    disputed = OrderFactory.create(domain_name="disputed.com", disputed_at=now, auto_renew=True, status="Suspended")
    rows = {row["domain_name"]: row for row in api.get("/domains").json()["items"]}
    assert (rows["refunded.com"]["refunded"], rows["refunded.com"]["disputed"]) == (True, False)
    assert rows["refunded.com"]["refunded_at"] == now.isoformat().replace("+00:00", "Z")
    assert (rows["disputed.com"]["disputed"], rows["disputed.com"]["auto_renew"]) == (True, True)
    assert rows["disputed.com"]["status"] == "Suspended"
    assert rows["disputed.com"]["customer_id"] == disputed.customer_id
    detail = api.get(f"/domains/{refunded.order_id}").json()
    assert detail == rows["refunded.com"]
    assert dt.datetime.fromisoformat(detail["expires_at"]) == refunded.expires_at


def test_payments_and_ledger_by_month(api):
    customer = CustomerFactory.create()
    october = dt.datetime(2026, 10, 31, 23, 30, tzinfo=UTC)
    november = dt.datetime(2026, 11, 1, 0, 30, tzinfo=UTC)
    old_payment, old_entry = payment_make(customer, at=october, domain="old.com")
    payment, entry = payment_make(customer, at=november, amount="20.10", domain="new.net")
    payments = api.get("/payments", month="2026-11").json()["items"]
    assert [row["id"] for row in payments] == [payment.pk]
    (row,) = payments
    assert (row["amount"], row["amount_captured"], row["currency"]) == ("20.10", "20.10", "USD")
    assert row["status"] == "captured"
    assert row["stripe_payment_intent"] == payment.stripe_payment_intent_id
    assert row["lines"] == [
        {"reference": "new.net", "description": "new.net, 1 year", "cause": "registration", "tld": "net",
         "amount": "20.10", "tax_amount": "0.00", "status": "registered", "refunded_at": None},
    ]  # fmt: skip
    assert [row["id"] for row in api.get("/payments", month="2026-10").json()["items"]] == [old_payment.pk]
    assert len(api.get("/payments").json()["items"]) == 2

    ledger = api.get("/ledger", month="2026-11").json()["items"]
    assert [row["id"] for row in ledger] == [entry.pk]
    assert ledger[0] | {"occurred_at": None} == {
        "id": entry.pk, "occurred_at": None, "kind": "capture", "cause": "registration", "amount": "20.10",
        "currency": "USD", "tax": "0.00", "fee": "0.00", "cost": "9.00", "written_off": "0.00", "tld": "net",
        "payment_id": payment.pk, "customer_id": customer.pk, "domain_name": "new.net", "source_id": entry.source_id,
        "note": "",
    }  # fmt: skip
    assert [row["id"] for row in api.get("/ledger", month="2026-10").json()["items"]] == [old_entry.pk]


def test_a_ledger_entry_booked_late_for_an_earlier_month_is_not_skipped_by_a_client_paging(api):
    customer = CustomerFactory.create()
    at = dt.datetime(2026, 11, 10, tzinfo=UTC)
    entries = [payment_make(customer, at=at + dt.timedelta(days=n), domain=f"d{n}.com")[1] for n in range(2)]
    page = api.get("/ledger", month="2026-11", limit=2).json()
    assert [row["id"] for row in page["items"]] == [entry.pk for entry in entries]
    _, late = payment_make(customer, at=at - dt.timedelta(days=5), domain="late.com")  # booked now, happened before
    rest = api.get("/ledger", month="2026-11", cursor=page["next_cursor"]).json()
    assert [row["id"] for row in rest["items"]] == [late.pk]


def test_filtering_by_customer_shows_only_that_customers_rows(api):
    mine, theirs = CustomerFactory.create(), CustomerFactory.create(name="Alan Turing")
    for customer in (mine, theirs):
        OrderFactory.create(customer=customer)
        payment_make(customer, domain=f"{uuid.uuid4().hex[:8]}.com")
        with acting(None):
            activity_record(action="signup", customer=customer)
    for path in ("/domains", "/payments", "/ledger", "/activity"):
        rows = _all_pages(api, path, customer_id=mine.pk)
        assert rows and {row["customer_id"] for row in rows} == {mine.pk}, path
        assert "Alan Turing" not in json.dumps(rows), path


def test_nothing_secret_is_in_any_answer(api, read_key):
    customer = CustomerFactory.create()
    order = OrderFactory.create(customer=customer)
    payment, _ = payment_make(customer)
    SavedCard.objects.create(
        customer=customer, stripe_customer_id="cus_secretish", payment_method_id="pm_secretish", brand="visa",
        last4="4242", exp_month=12, exp_year=2040,
    )  # fmt: skip
    answers = " ".join(
        api.get(path).content.decode()
        for path in (
            "/customers", f"/customers/{customer.pk}", "/domains", f"/domains/{order.order_id}", "/payments",
            "/ledger", "/activity",
        )
    )  # fmt: skip
    for secret in (
        "cus_secretish", "pm_secretish", "4242", payment.stripe_session_id, "password", customer.user.password,
        "transfer", read_key.secret, read_key.key.secret_hash,
    ):  # fmt: skip
        assert secret not in answers


def test_activity_lists_the_log_with_its_words(api, read_key):
    customer = CustomerFactory.create()
    order = OrderFactory.create(customer=customer, domain_name="logged.com")
    with acting(None):
        activity_record(action="renewed", order=order, detail={"years": 2})
    rows = api.get("/activity", action="renewed").json()["items"]
    assert [(row["action"], row["text"], row["domain_name"], row["customer_id"]) for row in rows] == [
        ("renewed", "Renewed for 2 year(s)", "logged.com", customer.pk),
    ]
    own = api.get("/activity", action="api_request").json()["items"]
    assert own[0]["actor_name"] == "API key: Accounting sync"
    assert own[0]["text"] == "Staff API used by key Accounting sync: GET /api/v1/activity?action=renewed"


@pytest.fixture
def card_order():
    order = OrderFactory.create(auto_renew=False)
    SavedCard.objects.create(
        customer=order.customer, stripe_customer_id=f"cus_{uuid.uuid4().hex[:10]}", payment_method_id="pm_1",
        brand="visa", last4="4242", exp_month=12, exp_year=2040,
    )  # fmt: skip
    return order


def test_the_write_key_switches_auto_renew_through_the_customers_service(write_api, card_order, settings):
    settings.PAYMENTS_DISABLED = False
    response = write_api.post(f"/domains/{card_order.order_id}/auto-renew", {"auto_renew": True})
    assert response.status_code == 200
    assert response.json()["auto_renew"] is True
    assert Order.objects.get(pk=card_order.pk).auto_renew is True
    switched = Activity.objects.get(action="auto_renew_on")
    assert (switched.actor, switched.actor_name, switched.order_id, switched.customer_id) == (
        Activity.Actor.STAFF, "API key: Support desk", card_order.order_id, card_order.customer_id,
    )  # fmt: skip
    assert switched.detail == {"last4": "4242"}
    assert Activity.objects.filter(action="api_request", actor_name="API key: Support desk").count() == 1

    off = write_api.post(f"/domains/{card_order.order_id}/auto-renew", {"auto_renew": False})
    assert off.json()["auto_renew"] is False
    assert Activity.objects.get(action="auto_renew_off").actor_name == "API key: Support desk"


def test_the_services_rules_apply_refusals_are_409(write_api, settings):
    settings.PAYMENTS_DISABLED = False
    no_card = OrderFactory.create(auto_renew=False)
    response = write_api.post(f"/domains/{no_card.order_id}/auto-renew", {"auto_renew": True})
    assert response.status_code == 409
    assert "saved card" in response.json()["detail"]
    assert Order.objects.get(pk=no_card.pk).auto_renew is False
    assert not Activity.objects.filter(action="auto_renew_on").exists()


def test_refunded_domains_are_never_switched_on(write_api, card_order, settings):
    settings.PAYMENTS_DISABLED = False
    Order.objects.filter(pk=card_order.pk).update(refunded_at=timezone.now())
    response = write_api.post(f"/domains/{card_order.order_id}/auto-renew", {"auto_renew": True})
    assert response.status_code == 409
    assert "refunded" in response.json()["detail"]


def test_switching_an_unknown_domain_is_404(write_api):
    assert write_api.post("/domains/987654321/auto-renew", {"auto_renew": True}).status_code == 404
    assert write_api.post("/domains/987654321/auto-renew", {"on": True}).status_code == 400


def test_a_misspelt_filter_is_400_rather_than_everything(api):
    response = api.get("/payments", months="2026-11")
    assert response.status_code == 400
    assert response.json() == {"detail": "Unknown query parameter(s): months."}


@pytest.mark.parametrize("path", ["/customers", "/domains", "/payments", "/ledger", "/activity"])
def test_a_page_costs_the_same_queries_however_many_rows(api, path, django_assert_max_num_queries):
    def rows(count: int) -> None:
        for _ in range(count):
            customer = CustomerFactory.create()
            OrderFactory.create(customer=customer)
            payment_make(customer, domain=f"{uuid.uuid4().hex[:8]}.com")

    rows(1)
    with CaptureQueriesContext(connection) as one:
        assert api.get(path).status_code == 200
    rows(6)
    with django_assert_max_num_queries(len(one.captured_queries)):
        assert len(api.get(path).json()["items"]) > 1
