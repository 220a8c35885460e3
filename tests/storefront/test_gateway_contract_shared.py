"""The same scenarios against the in-memory fake (tests/fakes/gateway.py) and the real client talking to the sandbox.

Page and service tests use the fake; this module keeps it honest: each scenario runs twice, and a fake that
answers differently from the client + sandbox (a result, a refusal's class or text, a signature) fails here.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

import pytest
from django.test import override_settings

from storefront.gateway import (
    CapabilityOff,
    Contact,
    Contacts,
    CustomerExists,
    InvalidDetails,
    InvalidSearchTerm,
    NotFound,
    RegistrationRefused,
    ResellerGateway,
    ValidationRejected,
    gateway,
)
from tests.fakes.gateway import FakeGateway
from tests.storefront.test_gateway_coming_soon import AGENT, GRACE  # the same people as the client-only tests
from tests.storefront.test_gateway_contract import CUSTOMER  # the same customer as the client-only contract

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Provider:
    gw: Any  # ResellerGateway or FakeGateway: the same public methods
    control: Any  # SandboxControl or the fake itself: set_balance, order(order_id)


@pytest.fixture(params=["fake", "sandbox"])
def provider(request) -> Provider:
    if request.param == "fake":
        fake = request.getfixturevalue("fake_gateway")
        assert gateway() is fake  # what the product's code gets
        return Provider(gw=fake, control=fake)
    request.getfixturevalue("sandbox_url")
    assert isinstance(gateway(), ResellerGateway)
    return Provider(gw=gateway(), control=request.getfixturevalue("sandbox_control"))


@pytest.fixture
def customer_id(provider) -> int:
    return provider.gw.customer_signup(**CUSTOMER).customer_id


@pytest.fixture
def order_id(provider, customer_id) -> int:
    return provider.gw.domain_register(customer_id=customer_id, domain_name="contract.com", duration=1).order_id


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(cls).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }


def test_the_fake_has_every_public_method_of_the_client_with_the_same_signature():
    real, fake = _public(ResellerGateway), _public(FakeGateway)
    for name, signature in real.items():
        assert name in fake, f"the fake lacks {name}"
        assert fake[name] == signature, f"{name}: fake {fake[name]} != client {signature}"


def test_signup_and_its_refusals(provider):
    created = provider.gw.customer_signup(**CUSTOMER)
    assert created.message == "Customer created"
    assert created.customer_id >= 10_000_000
    with pytest.raises(CustomerExists) as duplicate:
        provider.gw.customer_signup(**{**CUSTOMER, "email": CUSTOMER["email"].upper()})
    assert duplicate.value.provider_message == "User already exists"
    with pytest.raises(InvalidDetails) as invalid:
        provider.gw.customer_signup(**{**CUSTOMER, "email": "other@example.org", "name": "Grâce Hopper"})
    assert invalid.value.provider_message.startswith("Signup Failed")


def test_auto_login(provider, customer_id):
    token = provider.gw.customer_auto_login(email=CUSTOMER["email"])
    assert token.email == CUSTOMER["email"] and len(token.token) == 64
    with pytest.raises(NotFound) as unknown:
        provider.gw.customer_auto_login(email="nobody@example.org")
    assert unknown.value.provider_message == "Invalid customer email"


def test_availability(provider):
    [single] = provider.gw.domain_availability(search_terms="coffee")
    assert (single.domain_name, single.available, single.premium) == ("coffee.com", True, False)
    rows = provider.gw.domain_availability(search_terms=["example", "premiumtea"], tlds=["com", "net", "museum"])
    by_name = {row.domain_name: (row.available, row.premium) for row in rows}
    assert by_name == {
        "example.com": (False, False),
        "example.net": (True, False),
        "premiumtea.com": (False, True),
        "premiumtea.net": (False, True),
    }
    with pytest.raises(ValidationRejected) as caught:
        provider.gw.domain_availability(search_terms="bad term")
    assert caught.value.provider_message == "The search term field format is invalid."


def test_metasearch_rows(provider):
    found = provider.gw.metasearch(search_term="coffee.io", autosuggest=False, aisuggest=False)
    assert (found.hero.domain_name, found.hero.is_searched_exact, found.hero.available) == ("coffee.com", False, True)
    assert found.hero.pricing.summary == "$12.99 first year, then $14.99/yr"
    assert found.hero.pricing.register == Decimal("12.99")
    exact = next(row for row in found.results if row.is_searched_exact)
    assert (exact.domain_name, exact.type, exact.pricing.summary) == (
        "coffee.io",
        "result",
        "$39.99 first year, then $49.99/yr",
    )
    assert found.listed[0] == exact  # the typed domain leads the list
    assert {row.tld for row in found.listed} == {"net", "org", "io", "co", "dev", "shop", "ai", "app", "xyz"}
    ai = next(row for row in found.listed if row.tld == "ai")
    assert ai.pricing.summary == "$79.99/yr (2-year minimum)"
    assert (found.meta.search_term, found.meta.typed_tld) == ("coffee.io", "io")
    assert found.results_total == 9 and found.results_hidden == 0 and found.message is None
    suggested = provider.gw.metasearch(search_term="coffee", autosuggest=True, aisuggest=True)
    assert suggested.ai_suggestions and all(row.available for row in suggested.ai_suggestions)
    assert suggested.results_total == len(suggested.listed) > 9


def test_metasearch_premium_taken_empty_and_invalid(provider):
    premium = provider.gw.metasearch(search_term="cars.com", autosuggest=False, aisuggest=False).hero
    assert premium.premium and not premium.available and premium.pricing.summary.startswith("Premium: $25,000.00")
    taken = provider.gw.metasearch(search_term="example.com", autosuggest=False, aisuggest=False).hero
    assert not taken.premium and not taken.available and taken.pricing is None and taken.is_searched_exact
    nothing = provider.gw.metasearch(search_term="---")
    assert (nothing.results, nothing.message) == ([], "No domains found for this search")
    with pytest.raises(InvalidSearchTerm) as caught:
        provider.gw.metasearch(search_term="!!!")
    assert caught.value.status == 400


def test_register_and_its_refusals(provider, customer_id):
    registered = provider.gw.domain_register(customer_id=customer_id, domain_name="contract.net", duration=2)
    assert registered.message == "Domain registered successfully" and registered.order_id >= 100_000_000
    assert not provider.gw.domain_availability(search_terms="contract", tlds=["net"])[0].available
    for name, years in [("contract.net", 1), ("contract.ai", 1), ("premiumtea.com", 1), ("contract.museum", 1)]:
        with pytest.raises(RegistrationRefused) as refused:
            provider.gw.domain_register(customer_id=customer_id, domain_name=name, duration=years)
        assert refused.value.provider_message == "Unable to register domain"
    with pytest.raises(NotFound) as unknown:
        provider.gw.domain_register(customer_id=12345678, domain_name="contract.org", duration=1)
    assert unknown.value.provider_message == "Invalid customer ID"
    provider.control.set_balance(Decimal("0.00"))
    with pytest.raises(RegistrationRefused):
        provider.gw.domain_register(customer_id=customer_id, domain_name="contract.org", duration=1)


def test_orders_pages_and_search(provider, customer_id, order_id):
    for n in range(11):
        provider.gw.domain_register(customer_id=customer_id, domain_name=f"page{n}.xyz", duration=1)
    first = provider.gw.domain_orders(customer_id=customer_id)
    assert (first.total_orders, first.orders_on_page) == (12, 10)
    second = provider.gw.domain_orders(customer_id=customer_id, page=2)
    assert second.orders_on_page == 2 and second.orders[-1].order_id == order_id
    [found] = provider.gw.domain_orders(customer_id=customer_id, search="contract").orders
    assert (found.order_id, found.domain_name, found.status) == (order_id, "contract.com", "Active")
    stored = provider.control.order(order_id)
    assert found.expires_at == stored.expires_at
    assert found.expiry == f"{stored.expires_at:%b} {stored.expires_at.day}, {stored.expires_at.year}"
    with pytest.raises(NotFound):
        provider.gw.domain_orders(customer_id=12345678)


def test_renew_and_transfer_code(provider, customer_id, order_id):
    [order] = provider.gw.domain_orders(customer_id=customer_id).orders
    ack = provider.gw.domain_renew(order_id=order_id, duration=2, expiry_timestamp=order.expiry_timestamp)
    assert (ack.status, ack.message) == ("SUCCESS", "Domain order renewed")
    [renewed] = provider.gw.domain_orders(customer_id=customer_id).orders
    assert renewed.expires_at.year == order.expires_at.year + 2
    with pytest.raises(ValidationRejected) as stale:
        provider.gw.domain_renew(order_id=order_id, duration=1, expiry_timestamp=order.expiry_timestamp)
    assert stale.value.provider_message == "Invalid current expiry timestamp"
    with pytest.raises(NotFound):
        provider.gw.domain_renew(order_id=123456789, duration=1, expiry_timestamp=renewed.expiry_timestamp)
    code = provider.gw.transfer_auth_code(order_id=order_id)
    assert code.transfer_code == provider.control.order(order_id).transfer_code
    with pytest.raises(NotFound):
        provider.gw.transfer_auth_code(order_id=123456789)


def test_dns_activation_records_and_refusals(provider, order_id):
    gw = provider.gw
    with pytest.raises(ValidationRejected) as inactive:
        gw.dns_records(order_id=order_id)
    assert inactive.value.provider_message == "DNS service is not active for this order"
    assert gw.dns_activate(order_id=order_id).message == "DNS service activated successfully"
    with pytest.raises(ValidationRejected) as twice:
        gw.dns_activate(order_id=order_id)
    assert twice.value.provider_message == "DNS service is already active"
    assert len(gw.dns_records(order_id=order_id, record_type="NS")) == 2
    assert gw.dns_records(order_id=order_id) == []
    gw.dns_record_add(order_id=order_id, record_type="MX", value="MX1.Example.net.", host="")
    [mx] = gw.dns_records(order_id=order_id, record_type="MX")
    assert (mx.host, mx.value, mx.time_to_live, mx.priority, mx.status) == ("@", "mx1.example.net", 3600, 10, "Active")
    gw.dns_record_add(order_id=order_id, record_type="A", value="203.0.113.10", host="www")
    gw.dns_record_modify(
        order_id=order_id, record_type="A", current_value="203.0.113.10", new_value="203.0.113.20", host="www", ttl=600
    )
    [a] = gw.dns_records(order_id=order_id, record_type="A")
    assert (a.value, a.time_to_live, a.priority) == ("203.0.113.20", 600, None)
    refusals = [
        (dict(record_type="A", value="203.0.113.20", host="www"), "Duplicate record found"),
        (dict(record_type="A", value="203.0.113.1", host="www", ttl=60), "TTL must be at least 300 seconds"),
        (dict(record_type="CNAME", value="target.example.net", host="@"), None),
        (dict(record_type="CNAME", value="target.example.net", host="www"), None),
        (dict(record_type="A", value="2001:db8::1", host="www"), None),
    ]
    for fields, text in refusals:
        with pytest.raises(ValidationRejected) as refused:
            gw.dns_record_add(order_id=order_id, **fields)
        if text:
            assert refused.value.provider_message == text
    assert gw.dns_record_delete(order_id=order_id, record_type="A", value="203.0.113.20", host="www").message == (
        "Record deleted successfully"
    )
    with pytest.raises(ValidationRejected) as gone:
        gw.dns_record_delete(order_id=order_id, record_type="A", value="203.0.113.20", host="www")
    assert gone.value.provider_message == "Failed to delete the record"
    with pytest.raises(NotFound):
        gw.dns_record_add(order_id=123456789, record_type="A", value="203.0.113.1")


def test_pricing(provider):
    prices = provider.gw.pricing()
    assert prices.currency == "USD"
    assert (prices.tlds["com"].register[1], prices.tlds["com"].renew[1]) == (Decimal("12.99"), Decimal("14.99"))
    assert prices.tlds["com"].register[2] == Decimal("27.98")
    assert prices.tlds["ai"].min_term == 2 and sorted(prices.tlds["ai"].register) == [2, 3, 5, 10]
    assert prices.tlds["shop"].register[1] == Decimal("0.00")
    assert prices.privacy_protection == Decimal("4.99")
    assert list(prices.tlds) == ["com", "net", "org", "io", "co", "dev", "shop", "ai", "app", "xyz"]


# The provider's "coming soon" endpoints (behind RESELLER_CAPABILITIES; all on with the sandbox) ----------------


def test_customer_details_and_their_refusals(provider, customer_id):
    assert Contact(**provider.gw.customer_details(customer_id=customer_id).as_fields()) == GRACE
    moved = replace(GRACE, city="Norfolk", zipcode="23511", email="rear.admiral@example.org", company="US Navy")
    updated = provider.gw.customer_details_update(customer_id=customer_id, details=moved)
    assert (updated.customer_id, Contact(**updated.as_fields())) == (customer_id, moved)
    assert provider.gw.customer_details(customer_id=customer_id) == updated
    with pytest.raises(InvalidDetails) as invalid:
        provider.gw.customer_details_update(customer_id=customer_id, details=replace(moved, city="Zürich"))
    assert invalid.value.provider_message.startswith("Signup Failed")
    provider.gw.customer_signup(**{**CUSTOMER, "email": "ada@example.org"})
    with pytest.raises(CustomerExists):
        provider.gw.customer_details_update(customer_id=customer_id, details=replace(moved, email="Ada@example.org"))
    with pytest.raises(NotFound) as unknown:
        provider.gw.customer_details(customer_id=12345678)
    assert unknown.value.provider_message == "Invalid customer ID"
    assert provider.gw.customer_details(customer_id=customer_id) == updated


def test_contacts_default_to_the_customer_and_change_per_role(provider, customer_id, order_id):
    own = GRACE
    fresh = provider.gw.contacts(order_id=order_id)
    assert (fresh.order_id, fresh.customer_id, fresh.registrant, fresh.billing) == (order_id, customer_id, own, own)
    changed = provider.gw.contacts_set(order_id=order_id, tech=AGENT)
    assert (changed.registrant, changed.admin, changed.tech, changed.billing) == (own, own, AGENT, own)
    defaults = provider.gw.contacts_set(customer_id=customer_id, admin=AGENT, tech=own)
    assert (defaults.order_id, defaults.admin, defaults.tech) == (None, AGENT, own)
    assert provider.gw.contacts(order_id=order_id) == Contacts(customer_id, order_id, own, AGENT, AGENT, own)
    with pytest.raises(InvalidDetails):
        provider.gw.contacts_set(order_id=order_id, billing=replace(AGENT, name="Zoë"))
    provider.control.set_order(order_id, status="Suspended")
    with pytest.raises(ValidationRejected) as frozen:
        provider.gw.contacts_set(order_id=order_id, billing=AGENT)
    assert frozen.value.provider_message == "Failed to update the contacts"
    with pytest.raises(NotFound):
        provider.gw.contacts(order_id=123456789)


def test_privacy_is_charged_at_the_price_list_and_switched(provider, order_id):
    price = provider.gw.pricing().privacy_protection
    before = provider.control.partner_balance()
    with pytest.raises(ValidationRejected) as unpaid:
        provider.gw.privacy_set(order_id=order_id, enabled=True)
    assert unpaid.value.provider_message == "Privacy protection has not been purchased for this domain"
    bought = provider.gw.privacy_purchase(order_id=order_id, duration=2)
    assert (bought.order_id, bought.message, bought.privacy.purchased, bought.privacy.enabled) == (
        order_id,
        "Privacy protection purchased",
        True,
        True,
    )
    assert provider.control.partner_balance() == before - 2 * price
    assert bought.privacy.expires_at == provider.control.order(order_id).privacy_expires_at
    off = provider.gw.privacy_set(order_id=order_id, enabled=False)
    assert (off.message, off.privacy.purchased, off.privacy.enabled) == ("Privacy protection disabled", True, False)
    provider.control.set_balance(price - Decimal("0.01"))
    with pytest.raises(ValidationRejected) as poor:
        provider.gw.privacy_purchase(order_id=order_id, duration=1)
    assert poor.value.provider_message == "Failed to purchase privacy protection"
    assert provider.control.partner_balance() == price - Decimal("0.01")


def test_domain_details_delete_and_transfer_lock(provider, customer_id, order_id):
    details = provider.gw.domain_details(order_id=order_id)
    stored = provider.control.order(order_id)
    assert (details.order_id, details.domain_name, details.customer_id, details.status) == (
        order_id,
        "contract.com",
        customer_id,
        "Active",
    )
    assert (details.expires_at, details.transfer_lock, details.dns_active) == (stored.expires_at, True, False)
    assert (details.privacy.purchased, details.privacy.expires_at) == (False, None)
    unlocked = provider.gw.transfer_lock_set(order_id=order_id, locked=False)
    assert (unlocked.locked, unlocked.message) == (False, "Transfer lock disabled")
    assert provider.gw.domain_details(order_id=order_id).transfer_lock is False
    deleted = provider.gw.domain_delete(order_id=order_id)
    assert (deleted.order_id, deleted.status, deleted.message) == (
        order_id,
        "Pending Delete Restorable",
        "Domain order deleted",
    )
    assert provider.gw.domain_orders(customer_id=customer_id).orders[0].status == "Pending Delete Restorable"
    for change, text in [
        (lambda: provider.gw.domain_delete(order_id=order_id), "Failed to delete the domain order"),
        (lambda: provider.gw.transfer_lock_set(order_id=order_id, locked=True), "Failed to update the transfer lock"),
    ]:
        with pytest.raises(ValidationRejected) as refused:
            change()
        assert refused.value.provider_message == text
    with pytest.raises(NotFound):
        provider.gw.domain_details(order_id=123456789)


def test_a_capability_that_is_off_is_refused_before_the_provider_hears_of_it(provider, order_id):
    with override_settings(RESELLER_CAPABILITIES=["contacts"]), pytest.raises(CapabilityOff) as caught:
        provider.gw.domain_delete(order_id=order_id)
    assert caught.value.capability == "domain_delete"
    assert provider.control.order(order_id).status == "Active"


def test_internationalised_names_as_a_labels(provider, customer_id):
    with pytest.raises(ValidationRejected) as unicode_form:
        provider.gw.domain_availability(search_terms="café")
    assert unicode_form.value.provider_message == "The search term field format is invalid."
    [a_label] = provider.gw.domain_availability(search_terms="xn--caf-dma")
    assert (a_label.domain_name, a_label.available) == ("xn--caf-dma.com", True)
    with pytest.raises(RegistrationRefused):
        provider.gw.domain_register(customer_id=customer_id, domain_name="café.com", duration=1)
    provider.gw.domain_register(customer_id=customer_id, domain_name="xn--caf-dma.com", duration=1)
    found = provider.gw.metasearch(search_term="xn--caf-dma.com", autosuggest=True, aisuggest=True)
    assert (found.hero.domain_name, found.hero.is_searched_exact, found.hero.available) == (
        "xn--caf-dma.com",
        True,
        False,
    )
    coined = [row.sld for row in found.results if row.sld != "xn--caf-dma"]
    assert coined and all("café" in sld.removeprefix("xn--").encode().decode("punycode") for sld in coined)
    assert provider.gw.metasearch(search_term="café.com").meta.search_term == "caf.com"
