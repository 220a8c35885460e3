"""A production deployment on the built-in sandbox (a demo shop): the loopback calls must go through."""

import pytest
from django.test import Client, override_settings


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["shop.example.com", "127.0.0.1"])
def test_sandbox_calls_over_loopback_http_are_not_redirected_to_https(sandbox_partner):
    response = Client(HTTP_HOST="127.0.0.1").get("/sandbox/api/v1/hello", HTTP_AUTHORIZATION="Bearer test_sandbox_demo")
    assert response.status_code == 200
    assert response.json()["message"] == "Authorized"


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=True)
def test_pages_are_still_redirected_to_https():
    assert Client().get("/").status_code == 301


def test_the_settings_let_the_gateway_reach_the_builtin_sandbox(settings):
    assert settings.RESELLER_SANDBOX
    assert "127.0.0.1" in settings.ALLOWED_HOSTS
    assert r"^sandbox/" in settings.SECURE_REDIRECT_EXEMPT
