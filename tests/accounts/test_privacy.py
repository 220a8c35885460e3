"""The customer's own data: /accounts/export/ (JSON of everything we hold) and /accounts/delete/."""

from __future__ import annotations

import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from accounts.models import ContactChange, Customer
from domains.models import Order, Registration

pytestmark = pytest.mark.django_db

PASSWORD = "Engine#1843x"


def _order(customer: Customer, name: str, order_id: int) -> Order:
    return Order.objects.create(customer=customer, order_id=order_id, domain_name=name)


def _registration(customer: Customer, name: str) -> Registration:
    return Registration.objects.create(
        customer=customer, checkout_id=uuid.uuid4(), domain_name=name, duration=1, status=Registration.Status.REGISTERED
    )


def _confirmed(client, customer: Customer):
    client.force_login(customer.user)
    assert client.post("/accounts/reauthenticate/", {"password": PASSWORD}).status_code == 302
    return client


def test_the_export_has_the_customers_contact_and_orders_and_no_one_elses(client, make_local_customer):
    ada = make_local_customer("ada@example.org")
    grace = make_local_customer("grace@example.org", name="Grace Hopper")
    _order(ada, "ada-lovelace.com", 1001)
    _order(grace, "grace-hopper.com", 1002)
    _registration(ada, "ada-lovelace.com")
    _registration(grace, "grace-hopper.com")
    client.force_login(ada.user)

    response = client.get("/accounts/export/")

    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["contact"]["email"] == "ada@example.org"
    assert data["contact"]["name"] == "Ada Lovelace"
    assert [order["domain_name"] for order in data["orders"]] == ["ada-lovelace.com"]
    assert [line["domain_name"] for line in data["registrations"]] == ["ada-lovelace.com"]
    assert "grace" not in response.content.decode().lower()


def test_the_export_needs_a_signed_in_customer(client):
    assert client.get("/accounts/export/")["Location"].startswith("/accounts/login/")


def test_deleting_asks_for_the_password_first(client, make_local_customer):
    client.force_login(make_local_customer("ada@example.org").user)
    assert client.post("/accounts/delete/", {"confirm": "delete"})["Location"].startswith("/accounts/reauthenticate/")
    assert Customer.objects.exists()


def test_an_account_without_orders_is_deleted_and_staff_are_told(client, make_local_customer, settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    customer = make_local_customer("ada@example.org", customer_id=4242)
    _confirmed(client, customer)
    assert "Delete my account" in client.get("/accounts/delete/").content.decode()

    response = client.post("/accounts/delete/", {"confirm": "delete"})

    assert response["Location"] == "/"
    assert not get_user_model().objects.filter(email="ada@example.org").exists()
    assert not Customer.objects.exists()
    assert "_auth_user_id" not in client.session
    (staff_mail,) = [m for m in mail.outbox if m.to == ["ops@example.org"]]
    assert "4242" in staff_mail.body and "ask the provider" in staff_mail.body


def test_registrations_are_kept_with_the_contact_anonymised(client, make_local_customer):
    customer = make_local_customer("ada@example.org", name="Ada Lovelace-Müller")
    ContactChange.objects.create(
        customer=customer, details={"name": "Ada Lovelace-Müller", "city": "Zürich"}, requested_at=customer.created_at
    )
    _order(customer, "ada-lovelace.com", 1001)
    _registration(customer, "ada-lovelace.com")
    _confirmed(client, customer)

    client.post("/accounts/delete/", {"confirm": "delete"})

    kept = Customer.objects.get()
    assert kept.name == "Deleted customer" and kept.address == "" and kept.phone == ""
    assert kept.name_ascii == "Deleted customer" and kept.address_ascii == "" and kept.city_ascii == ""
    assert not ContactChange.objects.exists()  # a change asked for holds the contact too
    assert kept.user.email == "" and not kept.user.is_active and not kept.user.has_usable_password()
    assert Registration.objects.get().customer == kept
    assert Order.objects.filter(customer=kept).exists()
    assert client.post("/accounts/login/", {"login": "ada@example.org", "password": PASSWORD}).status_code == 200
