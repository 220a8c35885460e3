"""Each key has its own request limit (RATE_LIMIT_API), counted in the shared cache like the store's other limits."""

from __future__ import annotations

import pytest

from accounts.models import Activity
from tests.reseller_api.conftest import Api

pytestmark = pytest.mark.django_db


def test_past_the_keys_limit_it_is_429_with_retry_after(client, api, make_key, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "api": (3, 60)}
    assert [api.get("/customers").status_code for _ in range(3)] == [200, 200, 200]
    refused = api.get("/customers")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "try again in" in refused.json()["detail"]
    assert Activity.objects.filter(action="api_request").count() == 3  # the refused one is not logged
    # Another key has its own count.
    other = Api(client, make_key("CRM").secret)
    assert other.get("/customers").status_code == 200


def test_a_limit_of_zero_switches_it_off(api, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "api": (0, 60)}
    assert {api.get("/customers").status_code for _ in range(5)} == {200}
