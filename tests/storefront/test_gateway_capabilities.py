"""A gateway method behind one of the provider's "coming soon" endpoints raises CapabilityOff before anything is
sent while its capability is off (RESELLER_CAPABILITIES), in the client and in the in-memory provider alike."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from storefront.gateway import CapabilityOff, GatewayError, ResellerGateway
from storefront.site.capabilities import CAPABILITIES
from tests.fakes.gateway import FakeGateway
from tests.storefront.scripted_server import Answer, ScriptedServer
from tests.storefront.test_gateway_coming_soon import AGENT, GRACE

# One call of each guarded method, with arguments it accepts.
CALLS: dict[str, dict[str, Any]] = {
    "customer_details": {"customer_id": 12345678},
    "customer_details_update": {"customer_id": 12345678, "details": GRACE},
    "contacts": {"order_id": 123456789},
    "contacts_set": {"order_id": 123456789, "admin": AGENT},
    "privacy_purchase": {"order_id": 123456789, "duration": 1},
    "privacy_set": {"order_id": 123456789, "enabled": True},
    "domain_details": {"order_id": 123456789},
    "domain_delete": {"order_id": 123456789},
    "transfer_lock_set": {"order_id": 123456789, "locked": False},
}
GUARDED = {
    name: member.capability
    for name, member in vars(ResellerGateway).items()
    if inspect.isfunction(member) and hasattr(member, "capability")
}


@pytest.fixture
def provider() -> Iterator[tuple[ScriptedServer, ResellerGateway]]:
    with ScriptedServer().running() as server:
        server.default = Answer(status=500, body={"message": "Server Error."})
        yield (
            server,
            ResellerGateway(
                base_url=server.url,
                metasearch_url=server.url + "/ms",
                api_key="test_capabilities",
                connect_timeout=0.5,
                read_timeout=1.0,
                get_retries=0,
            ),
        )


def test_exactly_the_coming_soon_methods_are_guarded_and_every_capability_guards_one():
    assert GUARDED == {
        "customer_details": "customer_details",
        "customer_details_update": "customer_details",
        "contacts": "contacts",
        "contacts_set": "contacts",
        "privacy_purchase": "privacy",
        "privacy_set": "privacy",
        "domain_details": "domain_details",
        "domain_delete": "domain_delete",
        "transfer_lock_set": "transfer_lock",
    }
    assert set(GUARDED.values()) == set(CAPABILITIES)
    assert set(CALLS) == set(GUARDED)


@pytest.mark.parametrize("method", sorted(CALLS))
def test_a_method_whose_capability_is_off_raises_capability_off_and_sends_nothing(provider, method):
    server, client = provider
    others = [name for name in CAPABILITIES if name != GUARDED[method]]
    with override_settings(RESELLER_CAPABILITIES=others), pytest.raises(CapabilityOff) as caught:
        getattr(client, method)(**CALLS[method])
    assert server.seen == []
    assert caught.value.capability == GUARDED[method]
    assert isinstance(caught.value, GatewayError) and caught.value.status is None
    # With it on, the same call goes out (and meets the scripted server error).
    with override_settings(RESELLER_CAPABILITIES=[GUARDED[method]]), pytest.raises(GatewayError) as sent:
        getattr(client, method)(**CALLS[method])
    assert not isinstance(sent.value, CapabilityOff)
    assert len(server.seen) == 1


@pytest.mark.parametrize("method", sorted(CALLS))
def test_the_in_memory_provider_is_guarded_the_same_way(method):
    fake = FakeGateway()
    with override_settings(RESELLER_CAPABILITIES=[]), pytest.raises(CapabilityOff):
        getattr(fake, method)(**CALLS[method])
    assert fake.calls == []
