"""The sandbox is a project of its own: the storefront neither installs, migrates, administers nor serves it."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.db import connection


@pytest.mark.django_db
def test_the_storefront_database_has_no_sandbox_table():
    assert [name for name in connection.introspection.table_names() if name.startswith("sandbox")] == []


def test_the_storefront_admin_lists_no_sandbox_model():
    assert not apps.is_installed("sandbox")
    assert [model for model in admin.site._registry if model._meta.app_label == "sandbox"] == []


@pytest.mark.django_db
def test_the_storefront_serves_nothing_of_the_sandbox(client):
    response = client.get("/sandbox/api/v1/hello", HTTP_AUTHORIZATION="Bearer test_sandbox_demo")
    assert response.status_code == 404


def test_the_gateway_points_at_the_sandbox_by_url_only(settings, sandbox_url):
    assert settings.RESELLER_SANDBOX
    assert settings.RESELLER_BASE_URL == sandbox_url
    assert settings.RESELLER_METASEARCH_URL == f"{sandbox_url}/metasearch"
    assert settings.RESELLER_PANEL_URL == f"{sandbox_url}/panel"
