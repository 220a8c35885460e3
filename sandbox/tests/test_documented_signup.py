"""Signup refusals with the status codes of the provider's OpenAPI: invalid details 500, a duplicate email 422."""

import pytest

from sandbox.models import Customer

from .conftest import SIGNUP

pytestmark = pytest.mark.django_db

SIGNUP_FAILED = {
    "status": "ERROR",
    "message": "Signup Failed, please ensure that all the fields are valid and in English",
}


def signup(client, **changes):
    return client.post("/api/v1/customers/signup", {**SIGNUP, **changes})


@pytest.mark.parametrize(
    "changes",
    [{"email": "not-an-email"}, {"password": "short"}, {"country": "ZZ"}, {"name": "Zoë Ünicode"}, {"phone": "12ab"}],
)
def test_invalid_details_are_the_documented_500(api, changes):
    response = signup(api, **changes)
    assert response.status_code == 500
    assert response.json() == SIGNUP_FAILED
    assert not Customer.objects.exists()


def test_the_live_environment_answers_the_same(live_api):
    response = signup(live_api, email="")
    assert response.status_code == 500
    assert response.json() == SIGNUP_FAILED


def test_a_duplicate_email_stays_422_user_already_exists(api, customer_id):
    response = signup(api, email=SIGNUP["email"].upper())
    assert response.status_code == 422
    assert response.json() == {"message": "User already exists"}
    assert Customer.objects.count() == 1


def test_a_body_that_is_not_json_is_still_400(api):
    response = api.client.post(
        "/api/v1/customers/signup",
        "[1, 2]",
        content_type="application/json",
        headers={"Authorization": f"Bearer {api.key}"},
    )
    assert response.status_code == 400
    assert response.json()["message"] == "Bad Request."
