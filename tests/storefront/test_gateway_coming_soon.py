"""The gateway's methods for the provider's "coming soon" endpoints, against the sandbox over real HTTP.

Customer details, contacts, privacy, domain details, delete and the transfer lock: each answer typed, each
refusal in the one exception family, and a change whose answer was lost (or that answers like a bare
placeholder) an unknown outcome, never a success and never retried.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal

import pytest
from django.test import override_settings

from storefront.gateway import (
    Contact,
    CustomerExists,
    InvalidDetails,
    NotFound,
    OutcomeUnknown,
    ResellerGateway,
    Unavailable,
    ValidationRejected,
    gateway,
)
from tests.storefront.scripted_server import Answer, ScriptedServer
from tests.storefront.test_gateway_contract import CUSTOMER, HANG, TIMEOUT, wait_out

pytestmark = pytest.mark.django_db(transaction=True)

# The contract tests' customer as the provider holds their details (no company given), and another person.
GRACE = Contact(company="", **{name: value for name, value in CUSTOMER.items() if name != "password"})
AGENT = Contact(
    name="Charles Babbage",
    company="Difference Engines",
    address="1 Dorset Street",
    city="London",
    state="England",
    country="GB",
    zipcode="W1U 4EG",
    country_code="44",
    phone="2079460001",
    email="charles@example.org",
)


@pytest.fixture
def customer_id(gw) -> int:
    return gw.customer_signup(**CUSTOMER).customer_id


@pytest.fixture
def order_id(gw, customer_id) -> int:
    return gw.domain_register(customer_id=customer_id, domain_name="soon.com", duration=1).order_id


# Customer details -------------------------------------------------------------------------------------------


def test_customer_details_read_and_replaced(gw, customer_id):
    details = gw.customer_details(customer_id=customer_id)
    assert details.customer_id == customer_id
    assert Contact(**details.as_fields()) == GRACE
    moved = replace(GRACE, city="Norfolk", zipcode="23511", email="rear.admiral@example.org", company="US Navy")
    updated = gw.customer_details_update(customer_id=customer_id, details=moved)
    assert (updated.customer_id, Contact(**updated.as_fields())) == (customer_id, moved)
    assert gw.customer_details(customer_id=customer_id) == updated
    # The new email is the customer's login at the provider: the panel hand-off finds them by it.
    assert gw.customer_auto_login(email="rear.admiral@example.org").email == "rear.admiral@example.org"


def test_customer_details_refusals(gw, customer_id):
    with pytest.raises(InvalidDetails) as invalid:
        gw.customer_details_update(customer_id=customer_id, details=replace(GRACE, name="Grâce Hopper"))
    assert invalid.value.provider_message.startswith("Signup Failed")
    gw.customer_signup(**{**CUSTOMER, "email": "ada@example.org"})
    with pytest.raises(CustomerExists):
        gw.customer_details_update(customer_id=customer_id, details=replace(GRACE, email="ADA@example.org"))
    for call in (
        lambda: gw.customer_details(customer_id=12345678),
        lambda: gw.customer_details_update(customer_id=12345678, details=GRACE),
    ):
        with pytest.raises(NotFound) as unknown:
            call()
        assert unknown.value.provider_message == "Invalid customer ID"
    assert gw.customer_details(customer_id=customer_id).name == "Grace Hopper"


# Contacts ---------------------------------------------------------------------------------------------------


def test_contacts_of_a_domain_default_to_the_customer_and_change_per_role(gw, customer_id, order_id):
    own = GRACE
    fresh = gw.contacts(order_id=order_id)
    assert (fresh.order_id, fresh.customer_id) == (order_id, customer_id)
    assert fresh.registrant == fresh.admin == fresh.tech == fresh.billing == own
    changed = gw.contacts_set(order_id=order_id, tech=AGENT, billing=AGENT)
    assert (changed.registrant, changed.admin, changed.tech, changed.billing) == (own, own, AGENT, AGENT)
    assert gw.contacts(order_id=order_id) == changed
    defaults = gw.contacts_set(customer_id=customer_id, admin=AGENT)
    assert defaults.order_id is None and defaults.admin == AGENT
    assert gw.contacts(order_id=order_id).admin == AGENT  # the domain had no admin of its own


def test_contacts_refusals(gw, customer_id, order_id):
    with pytest.raises(InvalidDetails):
        gw.contacts_set(order_id=order_id, admin=replace(AGENT, city="Zürich"))
    with pytest.raises(NotFound) as unknown:
        gw.contacts(order_id=123456789)
    assert unknown.value.provider_message == "Invalid order ID"
    with pytest.raises(NotFound):
        gw.contacts_set(customer_id=12345678, admin=AGENT)
    with pytest.raises(ValueError):
        gw.contacts(order_id=order_id, customer_id=customer_id)  # one owner, never two
    with pytest.raises(ValueError):
        gw.contacts_set(order_id=order_id)  # nothing to set


# Privacy ----------------------------------------------------------------------------------------------------


def test_privacy_purchase_charges_the_price_list_and_switches(gw, order_id, sandbox_control):
    price = gw.pricing().privacy_protection
    before = sandbox_control.partner_balance()
    bought = gw.privacy_purchase(order_id=order_id, duration=2)
    assert bought.order_id == order_id and bought.message == "Privacy protection purchased"
    assert (bought.privacy.purchased, bought.privacy.enabled) == (True, True)
    assert sandbox_control.partner_balance() == before - 2 * price
    assert bought.privacy.expires_at == sandbox_control.order(order_id).privacy_expires_at
    off = gw.privacy_set(order_id=order_id, enabled=False)
    assert (off.privacy.purchased, off.privacy.enabled) == (True, False)
    assert gw.domain_details(order_id=order_id).privacy == off.privacy
    assert gw.privacy_set(order_id=order_id, enabled=True).privacy.enabled is True


def test_privacy_refusals(gw, order_id, sandbox_control):
    with pytest.raises(ValidationRejected) as unpaid:
        gw.privacy_set(order_id=order_id, enabled=True)
    assert unpaid.value.provider_message == "Privacy protection has not been purchased for this domain"
    sandbox_control.set_balance(Decimal("1.00"))
    with pytest.raises(ValidationRejected) as poor:
        gw.privacy_purchase(order_id=order_id, duration=1)
    assert poor.value.provider_message == "Failed to purchase privacy protection"
    assert sandbox_control.partner_balance() == Decimal("1.00")
    with pytest.raises(NotFound):
        gw.privacy_purchase(order_id=123456789, duration=1)


# Domain details and delete ----------------------------------------------------------------------------------


def test_domain_details(gw, customer_id, order_id, sandbox_control):
    details = gw.domain_details(order_id=order_id)
    stored = sandbox_control.order(order_id)
    assert (details.order_id, details.domain_name, details.customer_id, details.status) == (
        order_id,
        "soon.com",
        customer_id,
        "Active",
    )
    assert details.expires_at == stored.expires_at
    assert details.expiry == f"{stored.expires_at:%b} {stored.expires_at.day}, {stored.expires_at.year}"
    assert (details.transfer_lock, details.dns_active) == (True, False)
    assert (details.privacy.purchased, details.privacy.enabled, details.privacy.expires_at) == (False, False, None)
    with pytest.raises(NotFound):
        gw.domain_details(order_id=123456789)


def test_domain_delete(gw, customer_id, order_id):
    deleted = gw.domain_delete(order_id=order_id)
    assert (deleted.order_id, deleted.status) == (order_id, "Pending Delete Restorable")
    [listed] = gw.domain_orders(customer_id=customer_id).orders
    assert listed.status == "Pending Delete Restorable"
    with pytest.raises(ValidationRejected) as again:
        gw.domain_delete(order_id=order_id)
    assert again.value.provider_message == "Failed to delete the domain order"
    with pytest.raises(NotFound):
        gw.domain_delete(order_id=123456789)


# Transfer lock ----------------------------------------------------------------------------------------------


def test_transfer_lock(gw, order_id, sandbox_control):
    unlocked = gw.transfer_lock_set(order_id=order_id, locked=False)
    assert (unlocked.order_id, unlocked.locked, unlocked.message) == (order_id, False, "Transfer lock disabled")
    assert sandbox_control.order(order_id).transfer_lock is False
    assert gw.domain_details(order_id=order_id).transfer_lock is False
    assert gw.transfer_lock_set(order_id=order_id, locked=True).locked is True
    sandbox_control.set_order(order_id, status="Suspended")
    with pytest.raises(ValidationRejected) as frozen:
        gw.transfer_lock_set(order_id=order_id, locked=False)
    assert frozen.value.provider_message == "Failed to update the transfer lock"


# Faults: lost answers, outages ------------------------------------------------------------------------------


def test_a_privacy_purchase_whose_answer_is_lost_is_an_unknown_outcome_and_was_charged(gw, order_id, sandbox_control):
    before = sandbox_control.partner_balance()
    started = time.perf_counter()
    with (
        override_settings(RESELLER_READ_TIMEOUT=TIMEOUT),
        sandbox_control.fault(hang_seconds=HANG, hang_after_commit=True, scope="privacy"),
        pytest.raises(OutcomeUnknown),
    ):
        gateway().privacy_purchase(order_id=order_id, duration=1)
    # Bought once (never retried): reading the domain back is how the store reconciles it.
    assert gw.domain_details(order_id=order_id).privacy.purchased
    assert sandbox_control.partner_balance() == before - gw.pricing().privacy_protection
    wait_out(started, HANG)


@pytest.mark.parametrize(
    ("scope", "change"),
    [
        ("domains", lambda gw, order_id, customer_id: gw.domain_delete(order_id=order_id)),
        ("transfers", lambda gw, order_id, customer_id: gw.transfer_lock_set(order_id=order_id, locked=False)),
        ("contacts", lambda gw, order_id, customer_id: gw.contacts_set(order_id=order_id, tech=AGENT)),
        ("privacy", lambda gw, order_id, customer_id: gw.privacy_purchase(order_id=order_id, duration=1)),
        (
            "customers",
            lambda gw, order_id, customer_id: gw.customer_details_update(customer_id=customer_id, details=GRACE),
        ),
    ],
)
def test_a_change_answered_with_a_server_error_is_an_unknown_outcome(
    gw, customer_id, order_id, sandbox_control, scope, change
):
    with sandbox_control.fault(error_rate=1.0, scope=scope), pytest.raises(OutcomeUnknown):
        change(gw, order_id, customer_id)


@pytest.mark.parametrize(
    ("scope", "read"),
    [
        ("orders", lambda gw, order_id, customer_id: gw.domain_details(order_id=order_id)),
        ("contacts", lambda gw, order_id, customer_id: gw.contacts(order_id=order_id)),
        ("customers", lambda gw, order_id, customer_id: gw.customer_details(customer_id=customer_id)),
    ],
)
def test_a_read_of_a_malformed_answer_is_unavailable(gw, customer_id, order_id, sandbox_control, scope, read):
    with sandbox_control.fault(malformed=True, scope=scope), pytest.raises(Unavailable) as caught:
        read(gw, order_id, customer_id)
    assert not isinstance(caught.value, OutcomeUnknown)


def test_a_refusal_answered_with_200_is_a_refusal(gw, order_id, sandbox_control):
    with sandbox_control.fault(error_200_message="Request could not be processed", scope="domains"):
        with pytest.raises(ValidationRejected) as caught:
            gw.domain_delete(order_id=order_id)
    assert caught.value.status == 200
    assert sandbox_control.order(order_id).status == "Active"


# A provider that has not shipped them: its placeholders answer 200 and do nothing -----------------------------


@pytest.fixture
def placeholder_provider() -> Iterator[tuple[ScriptedServer, ResellerGateway]]:
    with ScriptedServer().running() as server:
        # What the provider's placeholders answer today: 200, a body that says nothing about the change.
        server.default = Answer(body={"status": "SUCCESS", "message": "Coming soon."})
        client = ResellerGateway(
            base_url=server.url,
            metasearch_url=server.url + "/ms",
            api_key="test_placeholder",
            connect_timeout=0.5,
            read_timeout=1.0,
            get_retries=0,
        )
        yield server, client


@pytest.mark.parametrize(
    "change",
    [
        lambda gw: gw.domain_delete(order_id=123456789),
        lambda gw: gw.transfer_lock_set(order_id=123456789, locked=False),
        lambda gw: gw.privacy_purchase(order_id=123456789, duration=1),
        lambda gw: gw.privacy_set(order_id=123456789, enabled=True),
        lambda gw: gw.contacts_set(order_id=123456789, admin=AGENT),
        lambda gw: gw.customer_details_update(customer_id=12345678, details=GRACE),
    ],
)
def test_a_placeholders_bare_200_to_a_change_is_never_taken_for_success(placeholder_provider, change):
    server, client = placeholder_provider
    with pytest.raises(OutcomeUnknown):
        change(client)
    assert len(server.seen) == 1  # sent once, never retried


def test_an_answer_naming_another_order_or_state_is_an_unknown_outcome(placeholder_provider):
    server, client = placeholder_provider
    other_order = {"status": "SUCCESS", "order_id": 987654321, "order_status": "Pending Delete Restorable"}
    server.script(Answer(body=other_order))
    with pytest.raises(OutcomeUnknown):
        client.domain_delete(order_id=123456789)
    still_locked = {"status": "SUCCESS", "order_id": 123456789, "transfer_lock": True}
    server.script(Answer(body=still_locked))
    with pytest.raises(OutcomeUnknown):
        client.transfer_lock_set(order_id=123456789, locked=False)


@pytest.mark.parametrize(
    "read",
    [
        lambda gw: gw.domain_details(order_id=123456789),
        lambda gw: gw.contacts(order_id=123456789),
        lambda gw: gw.customer_details(customer_id=12345678),
    ],
)
def test_a_placeholders_bare_200_to_a_read_is_unavailable(placeholder_provider, read):
    _, client = placeholder_provider
    with pytest.raises(Unavailable) as caught:
        read(client)
    assert not isinstance(caught.value, OutcomeUnknown)
