"""{panel_url}/auto-login?token=: a token signs in once."""

import datetime as dt

import pytest
from django.utils import timezone

from sandbox.models import AutoLoginToken

from .conftest import SIGNUP

pytestmark = pytest.mark.django_db

PANEL = "/panel/auto-login"


@pytest.fixture
def token(api, customer_id):
    return api.post("/api/v1/customers/auto-login", {"email": SIGNUP["email"]}).json()["token"]


def test_a_token_signs_in_once(client, token):
    response = client.get(PANEL, {"token": token})
    assert response.status_code == 200
    assert b"Signed in as ada@example.org" in response.content
    assert response["Referrer-Policy"] == "no-referrer"
    assert "no-store" in response["Cache-Control"]
    again = client.get(PANEL, {"token": token})
    assert again.status_code == 403
    assert b"already been used" in again.content
    assert b"Signed in as" not in again.content


def test_an_expired_token_is_refused(client, token):
    AutoLoginToken.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    response = client.get(PANEL, {"token": token})
    assert response.status_code == 403
    assert b"expired" in response.content


@pytest.mark.parametrize("params", [{}, {"token": ""}, {"token": "0" * 64}])
def test_unknown_or_missing_tokens_are_refused(client, customer_id, params):
    response = client.get(PANEL, params)
    assert response.status_code == 403
    assert b"not valid" in response.content


def test_a_test_token_does_not_open_the_production_panel(client, token):
    assert client.get("/live/panel/auto-login", {"token": token}).status_code == 403
    assert client.get(PANEL, {"token": token}).status_code == 200


def test_each_auto_login_call_issues_a_new_token(client, api, token):
    second = api.post("/api/v1/customers/auto-login", {"email": SIGNUP["email"]}).json()["token"]
    assert second != token
    assert client.get(PANEL, {"token": second}).status_code == 200
    assert client.get(PANEL, {"token": token}).status_code == 200
