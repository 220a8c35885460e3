"""GET /api/v1/domains/details, POST /api/v1/domains/delete and PUT /api/v1/transfers/lock."""

import datetime as dt

import pytest
from django.utils import timezone

from sandbox.models import DomainOrder, Partner

pytestmark = pytest.mark.django_db

DETAILS = "/api/v1/domains/details"
DELETE = "/api/v1/domains/delete"
LOCK = "/api/v1/transfers/lock"
INVALID_ORDER = {"status": "ERROR", "message": "Invalid order ID"}


@pytest.fixture
def order_id(api, customer_id) -> int:
    body = {"customer_id": customer_id, "domain_name": "settings.com", "duration": 2}
    return api.post("/api/v1/domains/register", body).json()["order_id"]


def short(moment: dt.datetime) -> str:
    return f"{moment:%b} {moment.day}, {moment.year}"


# Details ----------------------------------------------------------------------------------------------------


def test_details_of_a_new_order(api, customer_id, order_id):
    response = api.get(DETAILS, {"order_id": order_id})
    assert response.status_code == 200
    order = DomainOrder.objects.get(order_id=order_id)
    assert response.json() == {
        "order_id": order_id,
        "domain_name": "settings.com",
        "customer_id": customer_id,
        "status": "Active",
        "registered": short(order.created_at),
        "registered_timestamp": int(order.created_at.timestamp()),
        "expiry": short(order.expires_at),
        "expiry_timestamp": order.expiry_timestamp,
        "transfer_lock": True,
        "dns_active": False,
        "privacy_protection": {"purchased": False, "enabled": False, "expiry": None, "expiry_timestamp": None},
    }


def test_details_show_what_changed(api, order_id):
    api.post("/api/v1/dns/activate", {"order_id": order_id})
    api.put(LOCK, {"order_id": order_id, "locked": False})
    api.post("/api/v1/privacy-protection", {"order_id": order_id, "duration": 1})
    body = api.get(DETAILS, {"order_id": order_id}).json()
    assert (body["dns_active"], body["transfer_lock"], body["privacy_protection"]["enabled"]) == (True, False, True)


def test_details_say_expired_when_the_expiry_has_passed(api, order_id):
    DomainOrder.objects.filter(order_id=order_id).update(expires_at=timezone.now() - dt.timedelta(days=1))
    assert api.get(DETAILS, {"order_id": order_id}).json()["status"] == "Expired"


def test_details_of_unknown_foreign_failed_or_deleted_orders_are_invalid_order_id(api, other_api, order_id):
    assert api.get(DETAILS, {"order_id": 123456789}).json() == INVALID_ORDER
    assert api.get(DETAILS, {}).json() == INVALID_ORDER
    assert other_api.get(DETAILS, {"order_id": order_id}).json() == INVALID_ORDER
    DomainOrder.objects.filter(order_id=order_id).update(status="Deleted")
    assert api.get(DETAILS, {"order_id": order_id}).status_code == 422


# Delete -----------------------------------------------------------------------------------------------------


def test_delete_puts_the_order_in_pending_delete_and_keeps_the_name_held(api, partner, customer_id, order_id):
    before = Partner.objects.get(pk=partner.pk).test_balance
    response = api.post(DELETE, {"order_id": order_id})
    assert response.status_code == 200
    assert response.json() == {
        "status": "SUCCESS",
        "message": "Domain order deleted",
        "order_id": order_id,
        "order_status": "Pending Delete Restorable",
    }
    assert api.get(DETAILS, {"order_id": order_id}).json()["status"] == "Pending Delete Restorable"
    [listed] = api.get("/api/v1/domains/orders", {"customer_id": customer_id}).json()["orders"]
    assert listed["status"] == "Pending Delete Restorable"
    check = api.get("/api/v1/domains/availability", {"search_term": "settings"}).json()
    assert check["results"][0]["available"] is False
    assert Partner.objects.get(pk=partner.pk).test_balance == before  # no refund is documented


def test_an_expired_order_may_be_deleted(api, order_id):
    DomainOrder.objects.filter(order_id=order_id).update(expires_at=timezone.now() - dt.timedelta(days=1))
    assert api.post(DELETE, {"order_id": order_id}).status_code == 200


@pytest.mark.parametrize("status", ["Suspended", "Pending Delete Restorable"])
def test_a_suspended_or_already_deleted_order_is_not_deleted(api, order_id, status):
    DomainOrder.objects.filter(order_id=order_id).update(status=status)
    response = api.post(DELETE, {"order_id": order_id})
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Failed to delete the domain order"}
    assert DomainOrder.objects.get(order_id=order_id).status == status


def test_deleting_twice_refuses_the_second(api, order_id):
    assert api.post(DELETE, {"order_id": order_id}).status_code == 200
    assert api.post(DELETE, {"order_id": order_id}).json()["message"] == "Failed to delete the domain order"


def test_delete_of_unknown_or_foreign_orders_is_invalid_order_id(api, other_api, order_id):
    for client, order in [(api, 123456789), (api, "abc"), (other_api, order_id)]:
        assert client.post(DELETE, {"order_id": order}).json() == INVALID_ORDER
    assert DomainOrder.objects.get(order_id=order_id).status == "Active"


# Transfer lock ----------------------------------------------------------------------------------------------


def test_a_new_domain_is_locked_and_its_owner_unlocks_and_locks_it(api, order_id):
    unlocked = api.put(LOCK, {"order_id": order_id, "locked": False})
    assert unlocked.status_code == 200
    assert unlocked.json() == {
        "status": "SUCCESS",
        "message": "Transfer lock disabled",
        "order_id": order_id,
        "transfer_lock": False,
    }
    assert api.get(DETAILS, {"order_id": order_id}).json()["transfer_lock"] is False
    locked = api.put(LOCK, {"order_id": order_id, "locked": True}).json()
    assert (locked["message"], locked["transfer_lock"]) == ("Transfer lock enabled", True)
    assert api.put(LOCK, {"order_id": order_id, "locked": 1}).json()["transfer_lock"] is True  # again: still locked


@pytest.mark.parametrize("value", [None, "no", "false", 3])
def test_locked_must_be_a_boolean(api, order_id, value):
    body = {"order_id": order_id} if value is None else {"order_id": order_id, "locked": value}
    assert api.put(LOCK, body).json() == {"status": "ERROR", "message": "The locked field must be true or false."}
    assert DomainOrder.objects.get(order_id=order_id).transfer_lock is True


@pytest.mark.parametrize("status", ["Suspended", "Pending Delete Restorable", "Expired"])
def test_the_lock_of_a_domain_that_is_not_active_stays(api, order_id, status):
    DomainOrder.objects.filter(order_id=order_id).update(status=status)
    response = api.put(LOCK, {"order_id": order_id, "locked": False})
    assert response.json() == {"status": "ERROR", "message": "Failed to update the transfer lock"}
    assert DomainOrder.objects.get(order_id=order_id).transfer_lock is True


def test_the_lock_of_unknown_or_foreign_orders_is_invalid_order_id(api, other_api, order_id):
    for client, order in [(api, 123456789), (other_api, order_id)]:
        assert client.put(LOCK, {"order_id": order, "locked": False}).json() == INVALID_ORDER
    assert DomainOrder.objects.get(order_id=order_id).transfer_lock is True


def test_the_transfer_code_is_still_given_while_locked(api, order_id):
    # The lock stops a transfer at the registry; reading the code is documented without any condition.
    assert api.get("/api/v1/transfers/auth-code", {"order_id": order_id}).status_code == 200
