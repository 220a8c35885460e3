"""POST /api/v1/privacy-protection (purchase, charged at the price list's `privacy_protection` a year) and
PUT /api/v1/privacy-protection (switch it on or off once bought)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from sandbox.catalogue import add_years
from sandbox.models import CatalogueTld, DomainOrder, Partner

pytestmark = pytest.mark.django_db

PRIVACY = "/api/v1/privacy-protection"
DETAILS = "/api/v1/domains/details"
PURCHASE_FAILED = {"status": "ERROR", "message": "Failed to purchase privacy protection"}


@pytest.fixture
def order_id(api, customer_id) -> int:
    body = {"customer_id": customer_id, "domain_name": "private.com", "duration": 1}
    return api.post("/api/v1/domains/register", body).json()["order_id"]


def balance(partner) -> Decimal:
    return Partner.objects.get(pk=partner.pk).test_balance


def test_the_price_charged_is_the_price_lists(api, partner):
    assert api.get("/api/v1/pricing").json()["privacy_protection"] == 4.99


def test_a_purchase_charges_the_yearly_price_and_switches_privacy_on(api, partner, order_id):
    before = balance(partner)
    response = api.post(PRIVACY, {"order_id": order_id, "duration": 2})
    assert response.status_code == 200
    body = response.json()
    order = DomainOrder.objects.get(order_id=order_id)
    assert body == {
        "status": "SUCCESS",
        "message": "Privacy protection purchased",
        "order_id": order_id,
        "privacy_protection": {
            "purchased": True,
            "enabled": True,
            "expiry": f"{order.privacy_expires_at:%b} {order.privacy_expires_at.day}, {order.privacy_expires_at.year}",
            "expiry_timestamp": int(order.privacy_expires_at.timestamp()),
        },
    }
    assert balance(partner) == before - Decimal("9.98")
    assert abs(order.privacy_expires_at - add_years(timezone.now(), 2)) < dt.timedelta(seconds=5)
    assert api.get(DETAILS, {"order_id": order_id}).json()["privacy_protection"] == body["privacy_protection"]


def test_buying_again_renews_from_the_end_of_what_was_paid(api, partner, order_id):
    api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    first = DomainOrder.objects.get(order_id=order_id).privacy_expires_at
    api.put(PRIVACY, {"order_id": order_id, "enabled": False})
    assert api.post(PRIVACY, {"order_id": order_id, "duration": 1}).status_code == 200
    order = DomainOrder.objects.get(order_id=order_id)
    assert order.privacy_expires_at == add_years(first, 1)
    assert order.privacy_enabled  # a purchase switches it on again


def test_the_charge_follows_the_price_list(api, partner, order_id):
    CatalogueTld.objects.filter(partner=partner, tld="net").update(privacy_price=Decimal("7.50"))
    before = balance(partner)
    assert api.get("/api/v1/pricing").json()["privacy_protection"] == 7.5
    api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    assert balance(partner) == before - Decimal("7.50")


def test_too_little_money_buys_nothing(api, partner, order_id):
    Partner.objects.filter(pk=partner.pk).update(test_balance=Decimal("4.98"))
    response = api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    assert response.status_code == 422
    assert response.json() == PURCHASE_FAILED
    assert balance(partner) == Decimal("4.98")
    assert DomainOrder.objects.get(order_id=order_id).privacy_expires_at is None


@pytest.mark.parametrize("duration", [None, 0, 11, "two", 1.5])
def test_a_bad_duration_buys_nothing(api, partner, order_id, duration):
    before = balance(partner)
    body = {"order_id": order_id} if duration is None else {"order_id": order_id, "duration": duration}
    assert api.post(PRIVACY, body).json() == PURCHASE_FAILED
    assert balance(partner) == before


@pytest.mark.parametrize("status", ["Suspended", "Pending Delete Restorable", "Expired"])
def test_only_an_active_domain_gets_privacy(api, partner, order_id, status):
    DomainOrder.objects.filter(order_id=order_id).update(status=status)
    before = balance(partner)
    assert api.post(PRIVACY, {"order_id": order_id, "duration": 1}).json() == PURCHASE_FAILED
    assert balance(partner) == before


def test_an_order_past_its_expiry_gets_no_privacy(api, partner, order_id):
    DomainOrder.objects.filter(order_id=order_id).update(expires_at=timezone.now() - dt.timedelta(days=1))
    assert api.post(PRIVACY, {"order_id": order_id, "duration": 1}).json() == PURCHASE_FAILED


def test_switching_off_and_on(api, order_id):
    api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    off = api.put(PRIVACY, {"order_id": order_id, "enabled": False})
    assert off.status_code == 200
    body = off.json()
    assert (body["status"], body["message"], body["order_id"]) == ("SUCCESS", "Privacy protection disabled", order_id)
    assert (body["privacy_protection"]["purchased"], body["privacy_protection"]["enabled"]) == (True, False)
    on = api.put(PRIVACY, {"order_id": order_id, "enabled": True}).json()
    assert on["message"] == "Privacy protection enabled" and on["privacy_protection"]["enabled"] is True
    assert api.put(PRIVACY, {"order_id": order_id, "enabled": True}).status_code == 200  # again: still on


def test_switching_needs_privacy_bought_and_paid_for(api, order_id):
    refused = {"status": "ERROR", "message": "Privacy protection has not been purchased for this domain"}
    assert api.put(PRIVACY, {"order_id": order_id, "enabled": True}).json() == refused
    api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    DomainOrder.objects.filter(order_id=order_id).update(privacy_expires_at=timezone.now() - dt.timedelta(days=1))
    assert api.put(PRIVACY, {"order_id": order_id, "enabled": True}).json() == refused
    lapsed = api.get(DETAILS, {"order_id": order_id}).json()["privacy_protection"]
    assert (lapsed["purchased"], lapsed["enabled"]) == (False, False)


@pytest.mark.parametrize("value", [None, "yes", "true", 2])
def test_enabled_must_be_a_boolean(api, order_id, value):
    api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    body = {"order_id": order_id} if value is None else {"order_id": order_id, "enabled": value}
    response = api.put(PRIVACY, body)
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "The enabled field must be true or false."}


def test_switching_a_domain_that_is_not_active_is_refused(api, order_id):
    api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    DomainOrder.objects.filter(order_id=order_id).update(status="Suspended")
    response = api.put(PRIVACY, {"order_id": order_id, "enabled": False})
    assert response.json() == {"status": "ERROR", "message": "Failed to update privacy protection"}
    assert DomainOrder.objects.get(order_id=order_id).privacy_enabled


def test_unknown_and_foreign_orders_are_invalid_order_id(api, other_api, partner, order_id):
    before = balance(partner)
    for client in (api, other_api):
        for order in (123456789, "abc", None):
            bought = client.post(PRIVACY, {"order_id": order, "duration": 1})
            switched = client.put(PRIVACY, {"order_id": order, "enabled": True})
            for response in (bought, switched):
                assert response.json() == {"status": "ERROR", "message": "Invalid order ID"}
    foreign = other_api.post(PRIVACY, {"order_id": order_id, "duration": 1})
    assert foreign.json()["message"] == "Invalid order ID"
    assert balance(partner) == before
