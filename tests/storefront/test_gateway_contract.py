"""The gateway against the built-in sandbox over real HTTP: every gateway method, and errors to exceptions.

This is the contract both sides share: if the sandbox drifts from the provider's interface, or the gateway
from the sandbox, a test here fails.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import pytest
import requests
from django.conf import settings
from django.test import override_settings

from storefront.gateway import (
    CustomerExists,
    NotFound,
    OutcomeUnknown,
    RateLimited,
    ResellerGateway,
    Unauthorized,
    Unavailable,
    ValidationRejected,
    gateway,
    key_environment,
)

pytestmark = pytest.mark.django_db(transaction=True)

CUSTOMER = {
    "name": "Grace Hopper",
    "address": "1 Navy Yard",
    "city": "Arlington",
    "state": "Virginia",
    "country": "US",
    "zipcode": "22202",
    "country_code": "1",
    "phone": "7035550123",
    "email": "grace@example.org",
    "password": "Cobol#1959x",
}


@pytest.fixture
def customer_id(gw) -> int:
    return gw.customer_signup(**CUSTOMER, company="US Navy").customer_id


@pytest.fixture
def order_id(gw, customer_id) -> int:
    return gw.domain_register(customer_id=customer_id, domain_name="contract.com", duration=1).order_id


@pytest.fixture
def zone(gw, order_id) -> int:
    gw.dns_activate(order_id=order_id)
    return order_id


@contextmanager
def other_gateway(sandbox_url: str, key: str, *, base: str = "") -> Iterator[ResellerGateway]:
    root = sandbox_url + base
    client = ResellerGateway(
        base_url=root,
        metasearch_url=f"{root}/metasearch",
        api_key=key,
        connect_timeout=settings.RESELLER_CONNECT_TIMEOUT,
        read_timeout=settings.RESELLER_READ_TIMEOUT,
        get_retries=0,
    )
    with client.session:
        yield client


# Health and keys --------------------------------------------------------------------------------------------


def test_hello(gw):
    hello = gw.hello()
    assert hello.message == "Authorized"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", hello.server_time)
    assert key_environment(settings.RESELLER_API_KEY) == "test"


def test_a_revoked_key_is_unauthorized(gw, sandbox_control):
    sandbox_control.revoke_key(settings.RESELLER_API_KEY)
    with pytest.raises(Unauthorized) as caught:
        gw.hello()
    assert caught.value.status == 401
    assert caught.value.provider_message == "key_revoked"


def test_an_unknown_key_is_unauthorized(gw, sandbox_url):
    with other_gateway(sandbox_url, "test_not_a_real_key") as stranger:
        with pytest.raises(Unauthorized) as caught:
            stranger.hello()
        assert caught.value.provider_message == "Unauthorized"
        with pytest.raises(Unauthorized) as caught:
            stranger.metasearch(search_term="coffee")
        assert caught.value.provider_message == "Invalid partner token"


def test_a_live_key_opens_production_only(gw, sandbox_url, sandbox_control):
    live_key = sandbox_control.issue_key(environment="live")
    with other_gateway(sandbox_url, live_key, base="/live") as production:
        assert production.hello().message == "Authorized"
    with other_gateway(sandbox_url, live_key) as sandbox, pytest.raises(Unauthorized) as caught:
        sandbox.hello()
    assert (caught.value.status, caught.value.provider_message) == (403, "environment_mismatch")


# Customers --------------------------------------------------------------------------------------------------


def test_customer_signup_and_its_refusals(gw):
    created = gw.customer_signup(**CUSTOMER)
    assert created.message == "Customer created"
    assert isinstance(created.customer_id, int) and created.customer_id >= 10_000_000
    with pytest.raises(CustomerExists) as duplicate:
        gw.customer_signup(**{**CUSTOMER, "email": CUSTOMER["email"].upper()})
    assert duplicate.value.provider_message == "User already exists"
    with pytest.raises(ValidationRejected) as invalid:
        gw.customer_signup(**{**CUSTOMER, "email": "other@example.org", "name": "Grâce Hopper"})
    assert not isinstance(invalid.value, CustomerExists)
    assert invalid.value.provider_message == "Signup Failed, please ensure that all the fields are valid and in English"


def test_customer_auto_login_and_the_panel(gw, customer_id):
    token = gw.customer_auto_login(email=CUSTOMER["email"])
    assert token.email == CUSTOMER["email"]
    assert re.fullmatch(r"[0-9a-f]{64}", token.token)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", token.expires_at)
    panel = f"{settings.RESELLER_PANEL_URL}/auto-login"
    first = requests.get(panel, params={"token": token.token}, timeout=5)
    assert first.status_code == 200
    assert f"Signed in as {CUSTOMER['email']}" in first.text
    assert requests.get(panel, params={"token": token.token}, timeout=5).status_code == 403
    with pytest.raises(NotFound) as caught:
        gw.customer_auto_login(email="nobody@example.org")
    assert caught.value.provider_message == "Invalid customer email"


# Search -----------------------------------------------------------------------------------------------------


def test_domain_availability_single_and_array(gw):
    [single] = gw.domain_availability(search_terms="coffee")
    assert (single.domain_name, single.sld, single.tld, single.available, single.premium) == (
        "coffee.com",
        "coffee",
        "com",
        True,
        False,
    )
    rows = gw.domain_availability(search_terms=["example", "premiumtea"], tlds=["com", "net", "museum"])
    by_name = {row.domain_name: row for row in rows}
    assert set(by_name) == {"example.com", "example.net", "premiumtea.com", "premiumtea.net"}
    assert not by_name["example.com"].available and not by_name["example.com"].premium
    assert by_name["example.net"].available
    assert by_name["premiumtea.net"].premium and not by_name["premiumtea.net"].available
    with pytest.raises(ValidationRejected) as caught:
        gw.domain_availability(search_terms="bad term")
    assert caught.value.status == 422
    assert caught.value.provider_message == "The search term field format is invalid."


def test_metasearch(gw):
    found = gw.metasearch(search_term="coffee.io", autosuggest=True, aisuggest=True)
    # The featured extension is fixed by the catalogue (.com here), whatever was typed; the typed domain is the
    # row marked as the exact search.
    assert found.hero is not None
    assert (found.hero.domain_name, found.hero.is_searched_exact) == ("coffee.com", False)
    exact = next(row for row in found.results if row.is_searched_exact)
    assert (exact.domain_name, exact.type, exact.available) == ("coffee.io", "result", True)
    assert exact.pricing.summary == "$39.99 first year, then $49.99/yr"
    assert exact.pricing.currency == "USD"
    assert found.results_total == len(found.listed)
    assert found.results_hidden == len(found.listed) - 10 > 0
    assert found.ai_suggestions
    assert found.meta.search_term == "coffee.io"
    assert found.meta.typed_tld == "io"
    assert (found.meta.autosuggest, found.meta.aisuggest) == (True, True)
    assert found.message is None
    kinds = [row.type for row in found.results]
    assert kinds == sorted(kinds, key=["hero", "result", "ai_suggestion"].index)


def test_metasearch_tells_premium_from_taken(gw):
    premium = gw.metasearch(search_term="cars.com", autosuggest=False, aisuggest=False).hero
    assert premium.premium and not premium.available
    assert premium.pricing.summary.startswith("Premium")
    taken = gw.metasearch(search_term="example.com", autosuggest=False, aisuggest=False).hero
    assert not taken.premium and not taken.available and taken.pricing is None
    assert taken.is_searched_exact


def test_metasearch_empty_results_and_errors(gw):
    nothing = gw.metasearch(search_term="---")
    assert nothing.results == []
    assert nothing.message == "No domains found for this search"
    with pytest.raises(ValidationRejected) as caught:
        gw.metasearch(search_term="!!!")
    assert caught.value.status == 400
    assert caught.value.provider_message == "search_term is required and must not be empty after sanitisation"


# Domains ----------------------------------------------------------------------------------------------------


def test_domain_register_and_its_refusals(gw, customer_id, sandbox_control):
    registered = gw.domain_register(customer_id=customer_id, domain_name="contract.net", duration=2)
    assert registered.message == "Domain registered successfully"
    assert registered.order_id >= 100_000_000
    with pytest.raises(ValidationRejected) as taken:
        gw.domain_register(customer_id=customer_id, domain_name="contract.net", duration=1)
    assert taken.value.provider_message == "Unable to register domain"
    with pytest.raises(ValidationRejected) as minimum:
        gw.domain_register(customer_id=customer_id, domain_name="contract.ai", duration=1)
    assert minimum.value.provider_message == "Unable to register domain"  # the one documented text
    with pytest.raises(NotFound) as unknown:
        gw.domain_register(customer_id=12345678, domain_name="contract.org", duration=1)
    assert unknown.value.provider_message == "Invalid customer ID"
    sandbox_control.set_balance(Decimal("0.00"))
    with pytest.raises(ValidationRejected) as broke:
        gw.domain_register(customer_id=customer_id, domain_name="contract.org", duration=1)
    assert broke.value.provider_message == "Unable to register domain"


def test_domain_orders(gw, customer_id, order_id, sandbox_control):
    for n in range(11):
        gw.domain_register(customer_id=customer_id, domain_name=f"page{n}.xyz", duration=1)
    first = gw.domain_orders(customer_id=customer_id)
    assert (first.total_orders, first.orders_on_page) == (12, 10)
    second = gw.domain_orders(customer_id=customer_id, page=2)
    assert second.orders_on_page == 2
    assert second.orders[-1].order_id == order_id  # newest first: the fixture's order is the oldest
    [found] = gw.domain_orders(customer_id=customer_id, search="contract").orders
    assert (found.order_id, found.domain_name, found.status) == (order_id, "contract.com", "Active")
    stored = sandbox_control.order(order_id)
    assert found.expires_at == stored.expires_at
    assert found.expiry == f"{stored.expires_at:%b} {stored.expires_at.day}, {stored.expires_at.year}"
    with pytest.raises(NotFound):
        gw.domain_orders(customer_id=12345678)


def test_domain_renew(gw, customer_id, order_id):
    [order] = gw.domain_orders(customer_id=customer_id).orders
    ack = gw.domain_renew(order_id=order_id, duration=2, expiry_timestamp=order.expiry_timestamp)
    assert (ack.status, ack.message) == ("SUCCESS", "Domain order renewed")
    [renewed] = gw.domain_orders(customer_id=customer_id).orders
    assert renewed.expires_at.year == order.expires_at.year + 2
    with pytest.raises(ValidationRejected) as stale:
        gw.domain_renew(order_id=order_id, duration=1, expiry_timestamp=order.expiry_timestamp)
    assert stale.value.provider_message == "Invalid current expiry timestamp"
    with pytest.raises(NotFound) as unknown:
        gw.domain_renew(order_id=123456789, duration=1, expiry_timestamp=renewed.expiry_timestamp)
    assert unknown.value.provider_message == "Invalid order ID"


def test_transfer_auth_code(gw, order_id, sandbox_control):
    code = gw.transfer_auth_code(order_id=order_id)
    assert code.order_id == order_id
    assert code.transfer_code == sandbox_control.order(order_id).transfer_code
    with pytest.raises(NotFound):
        gw.transfer_auth_code(order_id=123456789)


# DNS --------------------------------------------------------------------------------------------------------


def test_dns_activate_and_records(gw, order_id):
    with pytest.raises(ValidationRejected) as inactive:
        gw.dns_records(order_id=order_id)
    assert inactive.value.provider_message == "DNS service is not active for this order"
    ack = gw.dns_activate(order_id=order_id)
    assert (ack.status, ack.message) == ("SUCCESS", "DNS service activated successfully")
    with pytest.raises(ValidationRejected) as twice:
        gw.dns_activate(order_id=order_id)
    assert twice.value.provider_message == "DNS service is already active"
    assert len(gw.dns_records(order_id=order_id, record_type="NS")) == 2
    [soa] = gw.dns_records(order_id=order_id, record_type="SOA")
    assert soa.type == "SOA" and soa.status == "Active"
    assert gw.dns_records(order_id=order_id) == []
    with pytest.raises(NotFound) as unknown:
        gw.dns_activate(order_id=123456789)
    assert unknown.value.provider_message == "Invalid order ID"


@pytest.mark.parametrize(
    ("record_type", "host", "value", "new_value"),
    [
        ("A", "www", "203.0.113.10", "203.0.113.20"),
        ("AAAA", "www", "2001:db8::10", "2001:db8::20"),
        ("CNAME", "shop", "shops.example.net", "store.example.net"),
        ("MX", "", "mx1.example.net", "mx2.example.net"),
        ("TXT", "_dmarc", "v=DMARC1; p=none", "v=DMARC1; p=reject"),
    ],
)
def test_dns_record_add_modify_delete(gw, zone, record_type, host, value, new_value):
    priority = 10 if record_type == "MX" else None
    added = gw.dns_record_add(order_id=zone, record_type=record_type, value=value, host=host, priority=priority)
    assert added.message == "Record added successfully"
    [record] = gw.dns_records(order_id=zone, record_type=record_type)
    assert (record.type, record.host, record.value) == (record_type, host or "@", value)
    assert (record.time_to_live, record.status) == (3600, "Active")
    assert record.priority == priority
    with pytest.raises(ValidationRejected) as duplicate:
        gw.dns_record_add(order_id=zone, record_type=record_type, value=value, host=host, priority=priority)
    assert duplicate.value.provider_message == "Duplicate record found"

    modified = gw.dns_record_modify(
        order_id=zone,
        record_type=record_type,
        current_value=value,
        new_value=new_value,
        host=host,
        ttl=600,
        priority=20 if priority else None,
    )
    assert modified.message == "Record modified successfully"
    [record] = gw.dns_records(order_id=zone, record_type=record_type)
    assert (record.value, record.time_to_live) == (new_value, 600)
    if priority:
        assert record.priority == 20
    with pytest.raises(ValidationRejected) as missing:
        gw.dns_record_modify(order_id=zone, record_type=record_type, current_value=value, new_value=value, host=host)
    assert missing.value.provider_message == "Failed to modify the record"

    deleted = gw.dns_record_delete(order_id=zone, record_type=record_type, value=new_value, host=host)
    assert deleted.message == "Record deleted successfully"
    assert gw.dns_records(order_id=zone, record_type=record_type) == []
    with pytest.raises(ValidationRejected) as gone:
        gw.dns_record_delete(order_id=zone, record_type=record_type, value=new_value, host=host)
    assert gone.value.provider_message == "Failed to delete the record"


def test_dns_refusals(gw, zone):
    with pytest.raises(ValidationRejected) as ttl:
        gw.dns_record_add(order_id=zone, record_type="A", value="203.0.113.1", host="www", ttl=60)
    assert ttl.value.provider_message == "TTL must be at least 300 seconds"
    with pytest.raises(ValidationRejected):
        gw.dns_record_add(order_id=zone, record_type="CNAME", value="target.example.net", host="@")
    with pytest.raises(ValidationRejected):
        gw.dns_record_add(order_id=zone, record_type="A", value="2001:db8::1", host="www")
    with pytest.raises(NotFound):
        gw.dns_record_add(order_id=123456789, record_type="A", value="203.0.113.1")


def wait_out(started: float, hang: float) -> None:
    """Let the sandbox's hanging request thread finish before the next test resets the sandbox."""
    time.sleep(max(0.0, started + hang + 0.3 - time.perf_counter()))


# Faults -----------------------------------------------------------------------------------------------------


def test_server_errors_are_unavailable(gw, sandbox_control):
    with sandbox_control.fault(error_rate=1.0, scope="hello"), pytest.raises(Unavailable) as caught:
        gw.hello()
    assert caught.value.status == 500


def test_availability_down_makes_metasearch_unavailable(gw, sandbox_control):
    with sandbox_control.fault(availability_down=True), pytest.raises(Unavailable) as caught:
        gw.metasearch(search_term="coffee")
    assert caught.value.status == 503
    assert caught.value.provider_message == "Domain availability service unavailable"
    assert gw.hello().message == "Authorized"


def test_rate_limiting_carries_retry_after(gw, sandbox_control):
    with sandbox_control.fault(rate_limited=True), pytest.raises(RateLimited) as caught:
        gw.hello()
    # The sandbox's Retry-After (2 s) plus the jitter every instance adds before asking again.
    assert 2 <= caught.value.retry_after <= 2 * 1.25


def test_a_malformed_answer_to_a_registration_is_an_unknown_outcome(gw, customer_id, sandbox_control):
    with sandbox_control.fault(malformed=True, scope="register"), pytest.raises(OutcomeUnknown):
        gw.domain_register(customer_id=customer_id, domain_name="garbled.com", duration=1)
    with sandbox_control.fault(malformed=True, scope="orders"), pytest.raises(Unavailable) as caught:
        gw.domain_orders(customer_id=customer_id)
    assert not isinstance(caught.value, OutcomeUnknown)
    assert [o.domain_name for o in gw.domain_orders(customer_id=customer_id).orders] == ["garbled.com"]


# A hang of HANG seconds against a read timeout of TIMEOUT: short, so these tests wait well under a second each.
TIMEOUT, HANG = 0.4, 0.9


def test_a_registration_whose_answer_is_lost(gw, customer_id, sandbox_control):
    started = time.perf_counter()
    with (
        override_settings(RESELLER_READ_TIMEOUT=TIMEOUT),
        sandbox_control.fault(hang_seconds=HANG, hang_after_commit=True, scope="register"),
        pytest.raises(OutcomeUnknown),
    ):
        # Had the client waited for the answer it would have got one (the hang ends in a success): the unknown
        # outcome says it gave up at its read timeout.
        gateway().domain_register(customer_id=customer_id, domain_name="dropped.com", duration=1)
    # The provider did register it: reconciling from the listing finds the order.
    assert [o.domain_name for o in gw.domain_orders(customer_id=customer_id).orders] == ["dropped.com"]
    wait_out(started, HANG)


def test_a_hanging_read_times_out(sandbox_url, sandbox_control):
    started = time.perf_counter()
    with override_settings(RESELLER_GET_RETRIES=0, RESELLER_READ_TIMEOUT=TIMEOUT):
        with sandbox_control.fault(hang_seconds=HANG, scope="hello"), pytest.raises(Unavailable) as caught:
            gateway().hello()  # the hang ends in an answer: raising means the client stopped waiting first
        assert not caught.value.retryable  # a provider too slow to answer is not asked again
        wait_out(started, HANG)


@pytest.mark.django_db(transaction=True)
def test_pricing_lists_the_partners_cost_per_tld_operation_and_term(sandbox_url, sandbox_partner):
    prices = gateway().pricing()

    assert prices.currency == "USD"
    com = prices.tlds["com"]
    assert com.register[1] == Decimal("12.99")
    assert com.renew[1] == Decimal("14.99")
    assert com.min_term == 1
    # .ai is sold for two years at least: its price list starts there.
    assert prices.tlds["ai"].min_term == 2
    assert isinstance(prices.privacy_protection, Decimal)
