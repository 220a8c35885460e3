"""POST /api/v1/domains/register, GET /api/v1/domains/orders, POST /api/v1/domains/renew, transfer codes."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from sandbox.models import Customer, DomainOrder, Partner
from sandbox.views.domains import add_years

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/domains/register"
ORDERS = "/api/v1/domains/orders"
RENEW = "/api/v1/domains/renew"
AUTH_CODE = "/api/v1/transfers/auth-code"
UNABLE = {"status": "ERROR", "message": "Unable to register domain"}


def register(api, customer_id, domain_name="brandnew.com", duration=1):
    return api.post(REGISTER, {"customer_id": customer_id, "domain_name": domain_name, "duration": duration})


def order_id_of(api, customer_id, domain_name="brandnew.com", duration=1):
    response = register(api, customer_id, domain_name, duration)
    assert response.status_code == 200, response.content
    return response.json()["order_id"]


def listing(api, customer_id, **params):
    response = api.get(ORDERS, {"customer_id": customer_id, **params})
    assert response.status_code == 200, response.content
    return response.json()


def balance(partner):
    return Partner.objects.get(pk=partner.pk).test_balance


# Register ---------------------------------------------------------------------------------------------------


def test_register_answers_success_with_a_provider_like_order_id(api, customer_id, partner):
    before = balance(partner)
    response = register(api, customer_id, duration=2)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "SUCCESS"
    assert body["message"] == "Domain registered successfully"
    assert isinstance(body["order_id"], int)
    assert 100_000_000 <= body["order_id"] <= 999_999_999
    order = DomainOrder.objects.get(order_id=body["order_id"])
    assert order.status == "Active"
    assert order.domain_name == "brandnew.com"
    # first year at the register price, the second at the renew price
    assert balance(partner) == before - Decimal("12.99") - Decimal("14.99")
    expected = add_years(order.created_at, 2)
    assert order.expires_at == expected


def test_a_registered_name_is_taken_at_once(api, customer_id, make_customer):
    check = {"search_term": "brandnew"}
    assert api.get("/api/v1/domains/availability", check).json()["results"][0]["available"] is True
    order_id_of(api, customer_id)
    assert api.get("/api/v1/domains/availability", check).json()["results"][0]["available"] is False
    other_customer = make_customer(email="grace@example.org")
    assert register(api, other_customer).json() == UNABLE


def test_a_name_registered_by_another_partner_is_taken_too(api, other_api, customer_id, make_customer):
    order_id_of(api, customer_id, "shared.com")
    theirs = make_customer(client=other_api, email="them@example.org")
    response = register(other_api, theirs, "shared.com")
    assert response.status_code == 422
    assert response.json() == UNABLE


def test_free_first_year_costs_nothing_the_first_year(api, customer_id, partner):
    before = balance(partner)
    order_id_of(api, customer_id, "brandnew.shop")
    assert balance(partner) == before
    order_id_of(api, customer_id, "second.shop", duration=3)
    assert balance(partner) == before - 2 * Decimal("29.99")


@pytest.mark.parametrize("customer", [12345678, "nonsense", None, 0])
def test_unknown_customer_is_invalid_customer_id(api, customer_id, customer):
    response = register(api, customer)
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Invalid customer ID"}


def test_another_partners_customer_is_invalid_customer_id(api, other_api, customer_id):
    response = register(other_api, customer_id)
    assert response.status_code == 422
    assert response.json()["message"] == "Invalid customer ID"


@pytest.mark.parametrize(
    "domain_name",
    [
        "example.com",  # taken in the catalogue
        "takenname.net",  # taken by rule
        "cars.com",  # premium in the catalogue
        "premiumname.io",  # premium by rule
        "brandnew.museum",  # not in the catalogue
        "brandnew",  # no TLD
        "bad_name.com",
        "-bad.com",
        "",
        "a" * 77 + ".com",  # 81 characters
    ],
)
def test_unregistrable_names_are_failed_orders(api, customer_id, partner, domain_name):
    before = balance(partner)
    response = register(api, customer_id, domain_name)
    assert response.status_code == 422
    assert response.json() == UNABLE
    assert balance(partner) == before
    failed = DomainOrder.objects.get(customer__customer_id=customer_id)
    assert failed.status == "Failed"
    assert listing(api, customer_id)["total_orders"] == 0


def test_80_characters_is_the_longest_name(api, customer_id):
    assert register(api, customer_id, "a" * 63 + ".com").status_code == 200
    name = "b" * 63 + "." + "c" * 10
    assert len(name) <= 80
    # (a TLD outside the catalogue is refused for that reason, not for the length)
    assert register(api, customer_id, name).json() == UNABLE


@pytest.mark.parametrize("duration", [0, 11, -1, "two", None, 1.5])
def test_duration_must_be_1_to_10_years(api, customer_id, duration):
    response = register(api, customer_id, duration=duration)
    assert response.status_code == 422
    assert response.json()["status"] == "ERROR"
    assert response.json()["message"] == "Unable to register domain"  # the one documented register refusal


def test_ten_years_is_allowed(api, customer_id):
    assert register(api, customer_id, duration=10).status_code == 200


def test_minimum_term_is_enforced(api, customer_id):
    response = register(api, customer_id, "brandnew.ai", duration=1)
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Unable to register domain"}
    assert register(api, customer_id, "brandnew.ai", duration=2).status_code == 200


def test_insufficient_balance_registers_nothing(api, customer_id, partner):
    Partner.objects.filter(pk=partner.pk).update(test_balance=Decimal("5.00"))
    response = register(api, customer_id)
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Unable to register domain"}
    assert balance(partner) == Decimal("5.00")
    assert not DomainOrder.objects.filter(status__in=DomainOrder.LISTED).exists()
    assert api.get("/api/v1/domains/availability", {"search_term": "brandnew"}).json()["results"][0]["available"]


def test_live_environment_settles_against_the_live_balance(live_api, make_customer, partner):
    customer = make_customer(client=live_api)
    response = register(live_api, customer)
    assert response.json()["message"] == "Unable to register domain"
    Partner.objects.filter(pk=partner.pk).update(live_balance=Decimal("100.00"))
    assert register(live_api, customer).status_code == 200
    partner.refresh_from_db()
    assert partner.live_balance == Decimal("87.01")
    assert partner.test_balance == Decimal("100000.00")


def test_the_database_allows_one_registration_per_name(customer_id):
    customer = Customer.objects.get(customer_id=customer_id)
    DomainOrder.objects.create(partner=customer.partner, customer=customer, domain_name="race.com")
    DomainOrder.objects.create(partner=customer.partner, customer=customer, domain_name="race.com", status="Failed")
    with pytest.raises(IntegrityError), transaction.atomic():
        DomainOrder.objects.create(partner=customer.partner, customer=customer, domain_name="race.com")


# Orders -----------------------------------------------------------------------------------------------------


def test_orders_list_the_customers_orders_newest_first(api, customer_id, make_customer):
    first = order_id_of(api, customer_id, "first.com")
    second = order_id_of(api, customer_id, "second.net", duration=2)
    other = make_customer(email="grace@example.org")
    order_id_of(api, other, "notmine.com")
    DomainOrder.objects.filter(order_id=first).update(created_at=timezone.now() - dt.timedelta(days=1))
    body = listing(api, customer_id)
    assert body["total_orders"] == 2
    assert body["orders_on_page"] == 2
    assert [o["order_id"] for o in body["orders"]] == [second, first]
    row = body["orders"][0]
    assert set(row) == {"order_id", "domain_name", "status", "expiry", "expiry_timestamp"}
    order = DomainOrder.objects.get(order_id=second)
    assert row["domain_name"] == "second.net"
    assert row["status"] == "Active"
    assert row["expiry_timestamp"] == int(order.expires_at.timestamp())
    assert row["expiry"] == f"{order.expires_at:%b} {order.expires_at.day}, {order.expires_at.year}"
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}", row["expiry"])


def test_orders_are_paged_by_ten(api, partner, customer_id):
    # 23 registrations at test speed are a burst past the documented 10/s; paging is the point here.
    partner.rate_limit = 100
    partner.save()
    for n in range(23):
        order_id_of(api, customer_id, f"name{n:02d}.xyz")
    page1, page3 = listing(api, customer_id), listing(api, customer_id, page=3)
    assert (page1["total_orders"], page1["orders_on_page"]) == (23, 10)
    assert (page3["total_orders"], page3["orders_on_page"]) == (23, 3)
    assert listing(api, customer_id, page=2)["orders_on_page"] == 10
    beyond = listing(api, customer_id, page=9)
    assert (beyond["total_orders"], beyond["orders_on_page"], beyond["orders"]) == (23, 0, [])
    seen = {o["order_id"] for page in (1, 2, 3) for o in listing(api, customer_id, page=page)["orders"]}
    assert len(seen) == 23


def test_orders_search_matches_the_domain_name(api, customer_id):
    order_id_of(api, customer_id, "coffee.com")
    order_id_of(api, customer_id, "tea.com")
    body = listing(api, customer_id, search="COF")
    assert [o["domain_name"] for o in body["orders"]] == ["coffee.com"]
    assert body["total_orders"] == 1


def test_only_the_four_statuses_are_listed_and_past_expiry_is_expired(api, customer_id):
    ids = {status: order_id_of(api, customer_id, f"s{n}.com") for n, status in enumerate(DomainOrder.LISTED)}
    for status, order_id in ids.items():
        DomainOrder.objects.filter(order_id=order_id).update(status=status)
    deleted = order_id_of(api, customer_id, "deleted.com")
    DomainOrder.objects.filter(order_id=deleted).update(status="Deleted")
    lapsed = order_id_of(api, customer_id, "lapsed.com")
    DomainOrder.objects.filter(order_id=lapsed).update(expires_at=timezone.now() - dt.timedelta(days=3))
    register(api, customer_id, "example.com")  # a failed order
    statuses = {o["domain_name"]: o["status"] for o in listing(api, customer_id)["orders"]}
    assert statuses == {
        "s0.com": "Active",
        "s1.com": "Suspended",
        "s2.com": "Pending Delete Restorable",
        "s3.com": "Expired",
        "lapsed.com": "Expired",
    }


@pytest.mark.parametrize("customer", ["12345678", "abc", ""])
def test_orders_of_an_unknown_customer_are_refused(api, customer_id, customer):
    response = api.get(ORDERS, {"customer_id": customer})
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Invalid customer ID"}


def test_orders_of_another_partners_customer_are_refused(other_api, customer_id):
    response = other_api.get(ORDERS, {"customer_id": customer_id})
    assert response.status_code == 422
    assert response.json()["message"] == "Invalid customer ID"


# Renew ------------------------------------------------------------------------------------------------------


def renew(api, order_id, duration, expiry_timestamp):
    return api.post(RENEW, {"order_id": order_id, "duration": duration, "expiry_timestamp": expiry_timestamp})


def current_expiry(order_id):
    return DomainOrder.objects.get(order_id=order_id).expiry_timestamp


def test_renew_extends_the_expiry_and_settles(api, customer_id, partner):
    order_id = order_id_of(api, customer_id)
    before_expiry = DomainOrder.objects.get(order_id=order_id).expires_at
    before = balance(partner)
    response = renew(api, order_id, 2, current_expiry(order_id))
    assert response.status_code == 200
    assert response.json() == {"status": "SUCCESS", "message": "Domain order renewed"}
    assert DomainOrder.objects.get(order_id=order_id).expires_at == add_years(before_expiry, 2)
    assert balance(partner) == before - 2 * Decimal("14.99")
    listed = listing(api, customer_id)["orders"][0]
    assert listed["expiry_timestamp"] == current_expiry(order_id)


def test_renew_needs_the_exact_current_expiry(api, customer_id):
    order_id = order_id_of(api, customer_id)
    stale = current_expiry(order_id)
    assert renew(api, order_id, 1, stale).status_code == 200
    response = renew(api, order_id, 1, stale)  # a double renewal with the old timestamp
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Invalid current expiry timestamp"}
    assert renew(api, order_id, 1, current_expiry(order_id) + 1).json()["message"] == (
        "Invalid current expiry timestamp"
    )


@pytest.mark.parametrize("duration", [0, 10, "x", None])
def test_renew_duration_is_1_to_9(api, customer_id, duration):
    order_id = order_id_of(api, customer_id)
    response = renew(api, order_id, duration, current_expiry(order_id))
    assert response.status_code == 422
    assert response.json()["message"] == "Failed to renew the domain order"
    assert renew(api, order_id, 9, current_expiry(order_id)).status_code == 200


def test_renew_of_an_unknown_or_foreign_order_is_invalid_order_id(api, other_api, customer_id):
    order_id = order_id_of(api, customer_id)
    for client, target in ((api, 123456789), (other_api, order_id), (api, "nope")):
        response = renew(client, target, 1, current_expiry(order_id))
        assert response.status_code == 422
        assert response.json() == {"status": "ERROR", "message": "Invalid order ID"}


def test_renew_of_pending_delete_restorable_fails(api, customer_id):
    order_id = order_id_of(api, customer_id)
    DomainOrder.objects.filter(order_id=order_id).update(status="Pending Delete Restorable")
    response = renew(api, order_id, 1, current_expiry(order_id))
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Failed to renew the domain order"}


def test_renew_settles_first(api, customer_id, partner):
    order_id = order_id_of(api, customer_id)
    expiry = current_expiry(order_id)
    Partner.objects.filter(pk=partner.pk).update(test_balance=Decimal("1.00"))
    response = renew(api, order_id, 1, expiry)
    assert response.status_code == 422
    assert response.json()["message"] == "Failed to renew the domain order"
    assert current_expiry(order_id) == expiry


def test_renew_minimum_term(api, customer_id):
    order_id = order_id_of(api, customer_id, "brandnew.ai", duration=2)
    response = renew(api, order_id, 1, current_expiry(order_id))
    assert response.status_code == 422
    assert response.json()["message"] == "Failed to renew the domain order"


def test_an_expired_order_can_be_renewed(api, customer_id):
    order_id = order_id_of(api, customer_id)
    DomainOrder.objects.filter(order_id=order_id).update(
        expires_at=timezone.now().replace(microsecond=0) - dt.timedelta(days=10), status="Expired"
    )
    assert renew(api, order_id, 1, current_expiry(order_id)).status_code == 200
    assert listing(api, customer_id)["orders"][0]["status"] == "Active"


# Transfer code ----------------------------------------------------------------------------------------------


def test_transfer_code_is_stable_and_epp_like(api, customer_id):
    order_id = order_id_of(api, customer_id)
    response = api.get(AUTH_CODE, {"order_id": order_id})
    assert response.status_code == 200
    body = response.json()
    assert body["order_id"] == order_id
    code = body["transfer_code"]
    assert len(code) >= 8
    assert re.search(r"[A-Z]", code) and re.search(r"[a-z]", code) and re.search(r"\d", code)
    assert api.get(AUTH_CODE, {"order_id": order_id}).json()["transfer_code"] == code


def test_transfer_code_of_an_unknown_or_foreign_order(api, other_api, customer_id):
    order_id = order_id_of(api, customer_id)
    for client, target in ((api, "123456789"), (other_api, order_id), (api, "")):
        response = client.get(AUTH_CODE, {"order_id": target})
        assert response.status_code == 422
        assert response.json() == {"status": "ERROR", "message": "Invalid order ID"}
