"""The database unreachable for a moment (a restart, a failover) is a 503 that says so and asks to try again, never a
500; any other error is still Django's own 500 (and reported)."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import Client

from storefront import views

pytestmark = pytest.mark.django_db


def _failing(error: Exception):
    def render(*args, **kwargs):
        raise error

    return render


def test_a_database_outage_is_a_503_that_asks_to_try_again(monkeypatch):
    monkeypatch.setattr(views, "render", _failing(OperationalError("could not connect to server")))
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    page = response.content.decode()
    assert "cannot reach its records for a moment" in page and "try again in a minute" in page
    assert "could not connect" not in page  # the error itself stays in the logs


def test_it_is_said_in_the_customer_s_language(monkeypatch):
    monkeypatch.setattr(views, "render", _failing(OperationalError("database is locked")))
    response = Client(raise_request_exception=False).get("/", HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 503
    assert 'lang="es"' in response.content.decode()
    assert "vuelve a intentarlo dentro de un minuto" in response.content.decode()


def test_any_other_error_is_still_a_500(monkeypatch):
    monkeypatch.setattr(views, "render", _failing(ValueError("a bug")))
    assert Client(raise_request_exception=False).get("/").status_code == 500
