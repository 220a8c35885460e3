"""GET and PUT /api/v1/customers/details: a customer's contact details, changed by exactly the rules of signup."""

import pytest

from sandbox.models import Customer

from .conftest import SIGNUP

pytestmark = pytest.mark.django_db

DETAILS = "/api/v1/customers/details"
FIELDS = {name: value for name, value in SIGNUP.items() if name != "password"}
SIGNUP_FAILED = {
    "status": "ERROR",
    "message": "Signup Failed, please ensure that all the fields are valid and in English",
}
MOVED = {
    "name": "Ada King",
    "company": "",
    "address": "1 Rue de Rivoli",
    "city": "Paris",
    "state": "Ile-de-France",
    "country": "FR",
    "zipcode": "75001",
    "country_code": "33",
    "phone": "140000000",
    "email": "countess@example.org",
}


def update(api, customer_id, **changes):
    return api.put(DETAILS, {"customer_id": customer_id, **FIELDS, **changes})


def test_get_answers_the_details_given_at_signup_without_the_password(api, customer_id):
    response = api.get(DETAILS, {"customer_id": customer_id})
    assert response.status_code == 200
    assert response.json() == {"customer_id": customer_id, **FIELDS}


def test_put_replaces_every_detail_and_answers_them(api, customer_id):
    response = update(api, customer_id, **MOVED)
    assert response.status_code == 200
    assert response.json() == {
        "status": "SUCCESS",
        "message": "Customer details updated",
        "customer_id": customer_id,
        **MOVED,
    }
    assert api.get(DETAILS, {"customer_id": customer_id}).json() == {"customer_id": customer_id, **MOVED}
    # The new email is the login: auto-login now knows the customer by it, and no longer by the old one.
    assert api.post("/api/v1/customers/auto-login", {"email": MOVED["email"]}).status_code == 200
    assert api.post("/api/v1/customers/auto-login", {"email": SIGNUP["email"]}).status_code == 422


def test_a_password_in_the_body_changes_nothing(api, customer_id):
    password = Customer.objects.get(customer_id=customer_id).password
    assert update(api, customer_id, password="Other#Pass99").status_code == 200
    assert Customer.objects.get(customer_id=customer_id).password == password


@pytest.mark.parametrize(
    "changes",
    [
        {"name": ""},
        {"name": "José Núñez"},
        {"company": "Société Générale"},
        {"address": ...},
        {"city": "Zürich"},
        {"zipcode": "!!!"},
        {"country": "gb"},
        {"state": "Atlantis"},
        {"country": "US", "state": "England", "country_code": "1"},
        {"country_code": "+44"},
        {"phone": "020 7946 0000"},
        {"email": "not-an-email"},
        {"email": "ädä@example.org"},
        {"name": 42},
    ],
)
def test_invalid_details_are_refused_as_signup_refuses_them_and_nothing_changes(api, customer_id, changes):
    body = {"customer_id": customer_id, **FIELDS, **MOVED, **changes}
    body = {name: value for name, value in body.items() if value is not ...}
    response = api.put(DETAILS, body)
    assert response.status_code == 422
    assert response.json() == SIGNUP_FAILED
    assert api.get(DETAILS, {"customer_id": customer_id}).json() == {"customer_id": customer_id, **FIELDS}


def test_an_email_another_customer_has_is_user_already_exists_whatever_the_case(api, customer_id, make_customer):
    make_customer(email="grace@example.org")
    response = update(api, customer_id, email="Grace@Example.org")
    assert response.status_code == 422
    assert response.json() == {"message": "User already exists"}
    assert update(api, customer_id, email=SIGNUP["email"].upper()).status_code == 200  # its own, in another case


@pytest.mark.parametrize("customer", [None, "abc", 12345678])
def test_an_unknown_customer_is_invalid_customer_id(api, customer_id, customer):
    params = {} if customer is None else {"customer_id": customer}
    for response in (api.get(DETAILS, params), api.put(DETAILS, {**FIELDS, **params})):
        assert response.status_code == 422
        assert response.json() == {"status": "ERROR", "message": "Invalid customer ID"}


def test_another_partners_customer_is_invalid_customer_id(api, other_api, customer_id):
    assert other_api.get(DETAILS, {"customer_id": customer_id}).json()["message"] == "Invalid customer ID"
    assert update(other_api, customer_id, **MOVED).json()["message"] == "Invalid customer ID"
    assert Customer.objects.get(customer_id=customer_id).name == SIGNUP["name"]


def test_details_live_in_their_environment(api, live_api, customer_id):
    assert live_api.get(DETAILS, {"customer_id": customer_id}).json()["message"] == "Invalid customer ID"
