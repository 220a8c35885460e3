"""GET and POST /api/v1/contacts: the registrant, admin, tech and billing contacts of a domain or of a customer."""

import pytest

from sandbox.models import Contact, DomainOrder

from .conftest import SIGNUP

pytestmark = pytest.mark.django_db

CONTACTS = "/api/v1/contacts"
DETAILS = {name: value for name, value in SIGNUP.items() if name != "password"}
ROLES = ("registrant", "admin", "tech", "billing")
AGENCY = {
    "name": "Charles Babbage",
    "company": "Difference Engines",
    "address": "1 Dorset Street",
    "city": "London",
    "state": "England",
    "country": "GB",
    "zipcode": "W1U 4EG",
    "country_code": "44",
    "phone": "2079460001",
    "email": "charles@example.org",
}
BILLING = {**AGENCY, "name": "Billing Desk", "email": "billing@example.org", "company": ""}
SIGNUP_FAILED = "Signup Failed, please ensure that all the fields are valid and in English"


@pytest.fixture
def order_id(api, customer_id) -> int:
    body = {"customer_id": customer_id, "domain_name": "contacts.com", "duration": 1}
    return api.post("/api/v1/domains/register", body).json()["order_id"]


def test_a_new_domain_has_the_customers_details_as_its_four_contacts(api, customer_id, order_id):
    response = api.get(CONTACTS, {"order_id": order_id})
    assert response.status_code == 200
    assert response.json() == {
        "order_id": order_id,
        "domain_name": "contacts.com",
        "customer_id": customer_id,
        "contacts": {role: DETAILS for role in ROLES},
    }
    customer = api.get(CONTACTS, {"customer_id": customer_id}).json()
    assert customer == {"customer_id": customer_id, "contacts": {role: DETAILS for role in ROLES}}


def test_setting_some_roles_of_a_domain_leaves_the_others(api, customer_id, order_id):
    response = api.post(CONTACTS, {"order_id": order_id, "contacts": {"admin": AGENCY, "tech": AGENCY}})
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["message"], body["order_id"]) == ("SUCCESS", "Contacts updated", order_id)
    expected = {"registrant": DETAILS, "admin": AGENCY, "tech": AGENCY, "billing": DETAILS}
    assert body["contacts"] == expected
    assert api.get(CONTACTS, {"order_id": order_id}).json()["contacts"] == expected
    # Setting a role again replaces it rather than adding a second one.
    api.post(CONTACTS, {"order_id": order_id, "contacts": {"admin": BILLING}})
    assert Contact.objects.filter(order__order_id=order_id, role="admin").get().name == "Billing Desk"


def test_a_customers_contacts_are_the_default_of_each_domain_without_its_own(api, customer_id, order_id):
    api.post(CONTACTS, {"order_id": order_id, "contacts": {"admin": AGENCY}})
    response = api.post(CONTACTS, {"customer_id": customer_id, "contacts": {"admin": BILLING, "billing": BILLING}})
    assert response.status_code == 200
    assert response.json()["contacts"] == {
        "registrant": DETAILS,
        "admin": BILLING,
        "tech": DETAILS,
        "billing": BILLING,
    }
    domain = api.get(CONTACTS, {"order_id": order_id}).json()["contacts"]
    assert domain == {"registrant": DETAILS, "admin": AGENCY, "tech": DETAILS, "billing": BILLING}


def test_an_order_id_wins_over_a_customer_id(api, customer_id, order_id):
    answer = api.get(CONTACTS, {"order_id": order_id, "customer_id": 12345678}).json()
    assert answer["order_id"] == order_id


@pytest.mark.parametrize(
    "contacts",
    [
        {},
        {"owner": AGENCY},
        {"admin": {**AGENCY, "name": "Zoë Babbage"}},
        {"admin": {**AGENCY, "state": "Atlantis"}},
        {"admin": {**AGENCY, "email": "not-an-email"}},
        {"admin": {name: value for name, value in AGENCY.items() if name != "phone"}},
        {"admin": "Charles Babbage"},
        {"admin": AGENCY, "tech": {**AGENCY, "city": "Zürich"}},
        None,
        ["admin"],
    ],
)
def test_contacts_breaking_a_signup_rule_are_refused_and_nothing_changes(api, order_id, contacts):
    response = api.post(CONTACTS, {"order_id": order_id, "contacts": contacts})
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": SIGNUP_FAILED}
    assert not Contact.objects.exists()


def test_a_domain_that_is_not_active_keeps_its_contacts(api, order_id):
    for status in ("Suspended", "Pending Delete Restorable", "Expired"):
        DomainOrder.objects.filter(order_id=order_id).update(status=status)
        response = api.post(CONTACTS, {"order_id": order_id, "contacts": {"admin": AGENCY}})
        assert response.status_code == 422
        assert response.json() == {"status": "ERROR", "message": "Failed to update the contacts"}
        assert api.get(CONTACTS, {"order_id": order_id}).status_code == 200  # still readable
    assert not Contact.objects.exists()


def test_neither_id_is_a_validation_error(api, customer_id):
    for response in (api.get(CONTACTS), api.post(CONTACTS, {"contacts": {"admin": AGENCY}})):
        assert response.status_code == 422
        assert response.json() == {
            "status": "ERROR",
            "message": "The order id field is required when customer id is not present.",
        }


def test_unknown_and_foreign_ids_are_refused(api, other_api, customer_id, order_id):
    unknown = [({"order_id": 123456789}, "Invalid order ID"), ({"customer_id": 12345678}, "Invalid customer ID")]
    for params, text in unknown:
        assert api.get(CONTACTS, params).json() == {"status": "ERROR", "message": text}
        assert api.post(CONTACTS, {**params, "contacts": {"admin": AGENCY}}).json()["message"] == text
    assert other_api.get(CONTACTS, {"order_id": order_id}).json()["message"] == "Invalid order ID"
    assert other_api.get(CONTACTS, {"customer_id": customer_id}).json()["message"] == "Invalid customer ID"
    refused = other_api.post(CONTACTS, {"order_id": order_id, "contacts": {"admin": AGENCY}})
    assert refused.json()["message"] == "Invalid order ID"
    assert not Contact.objects.exists()


def test_a_deleted_order_has_no_contacts_to_show(api, order_id):
    DomainOrder.objects.filter(order_id=order_id).update(status="Deleted")
    assert api.get(CONTACTS, {"order_id": order_id}).json()["message"] == "Invalid order ID"
