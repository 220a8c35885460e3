"""`/checkout/<checkout_id>/`: each line's outcome in plain words, for the customer who placed it only."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Customer
from domains.models import Order, Registration
from storefront.gateway import gateway
from tests.domains.conftest import cart_of, line, put_in_cart
from tests.factories import CustomerFactory


def local_customer(email: str) -> Customer:
    """A customer that never reaches the provider (the pages below make no provider call for settled lines)."""
    return CustomerFactory.create(email=email)


def record(customer, checkout_id, domain_name, status, kind="", message="", **fields) -> Registration:
    return Registration.objects.create(
        customer=customer,
        checkout_id=checkout_id,
        domain_name=domain_name,
        duration=fields.pop("duration", 1),
        status=status,
        failure_kind=kind,
        provider_message=message,
        **fields,
    )


@pytest.mark.django_db
def test_it_checks_ownership(client, provider_calls):
    owner, intruder = local_customer("owner@example.org"), local_customer("intruder@example.org")
    checkout_id = uuid.uuid4()
    record(owner, checkout_id, "mine.com", Registration.Status.UNKNOWN)
    client.force_login(intruder.user)
    assert client.get(f"/checkout/{checkout_id}/").status_code == 404
    assert provider_calls == []


@pytest.mark.django_db
def test_an_unknown_checkout_is_not_found(client):
    client.force_login(local_customer("ada@example.org").user)
    assert client.get(f"/checkout/{uuid.uuid4()}/").status_code == 404


@pytest.mark.django_db
def test_visitors_are_asked_to_sign_in(client):
    checkout_id = uuid.uuid4()
    response = client.get(f"/checkout/{checkout_id}/")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/?next=")


@pytest.mark.django_db
def test_a_sign_in_without_a_customer_gets_not_found(client):
    user = get_user_model().objects.create_user(username="staff@example.org", password="Pass#word12")
    client.force_login(user)
    assert client.get(f"/checkout/{uuid.uuid4()}/").status_code == 404


@pytest.mark.django_db
def test_every_outcome_is_said_in_plain_words(client, provider_calls):
    customer = local_customer("ada@example.org")
    checkout_id = uuid.uuid4()
    order = Order.objects.create(order_id=123456789, customer=customer, domain_name="won.com")
    record(customer, checkout_id, "won.com", Registration.Status.REGISTERED, order=order, provider_order_id=123456789)
    record(
        customer,
        checkout_id,
        "gone.com",
        Registration.Status.FAILED,
        Registration.FailureKind.UNAVAILABLE,
        "Unable to register domain",
    )
    record(
        customer,
        checkout_id,
        "cars.com",
        Registration.Status.FAILED,
        Registration.FailureKind.PREMIUM,
        "Unable to register domain",
    )
    record(
        customer,
        checkout_id,
        "broke.com",
        Registration.Status.FAILED,
        Registration.FailureKind.BILLING,
        "Billing settlement failed: insufficient balance",
    )
    record(
        customer,
        checkout_id,
        "short.ai",
        Registration.Status.FAILED,
        Registration.FailureKind.MINIMUM_TERM,
        "Minimum registration term for .ai is 2 years",
    )
    client.force_login(customer.user)
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    for words in (
        "Registered",
        "Not available any more",
        "Premium name",
        "Billing failed",
        "Minimum term",
        "1 of 5 domains registered",
    ):
        assert words in html
    assert "Billing settlement failed" not in html  # what the provider said is shown to staff only
    assert 'href="/orders/123456789/"' in html
    assert "hx-trigger" not in html  # nothing left to wait for
    assert provider_calls == []


@pytest.mark.django_db(transaction=True)
def test_an_unconfirmed_line_does_not_claim_the_provider_was_slow(client, customer):
    # UNKNOWN also follows an answer that was an error we could not read as a yes or a no, not only a timeout.
    checkout_id = uuid.uuid4()
    name = f"maybe{uuid.uuid4().hex[:10]}.com"
    record(customer, checkout_id, name, Registration.Status.UNKNOWN, message="Unexpected registrar response")
    client.force_login(customer.user)
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "Could not confirm" in html
    assert "did not answer in time" not in html
    assert "We could not confirm the result with the domain service yet." in html


@pytest.mark.django_db
def test_staff_see_our_recorded_reason_without_it_being_called_the_providers(client):
    customer = local_customer("staff@example.org")
    customer.user.is_staff = True
    customer.user.save()
    checkout_id = uuid.uuid4()
    services_text = "This domain is being registered by someone else."
    record(
        customer,
        checkout_id,
        "race.com",
        Registration.Status.FAILED,
        Registration.FailureKind.UNAVAILABLE,
        services_text,
    )
    client.force_login(customer.user)
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert f"Recorded reason (only staff see this): “{services_text}”" in html
    assert "The domain service said" not in html


@pytest.mark.django_db
def test_registered_lines_leave_the_cart_and_failed_ones_stay(client):
    customer = local_customer("ada@example.org")
    checkout_id = uuid.uuid4()
    record(customer, checkout_id, "won.com", Registration.Status.REGISTERED)
    record(customer, checkout_id, "gone.com", Registration.Status.FAILED, Registration.FailureKind.UNAVAILABLE)
    client.force_login(customer.user)
    put_in_cart(client, line("won.com"), line("gone.com"))
    client.get(f"/checkout/{checkout_id}/")
    assert list(cart_of(client)) == ["gone.com"]


@pytest.mark.django_db
def test_htmx_gets_only_the_outcomes_fragment(client):
    customer = local_customer("ada@example.org")
    checkout_id = uuid.uuid4()
    record(customer, checkout_id, "won.com", Registration.Status.REGISTERED)
    client.force_login(customer.user)
    response = client.get(f"/checkout/{checkout_id}/", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert '<section id="checkout-outcomes"' in html
    assert "<html" not in html


@pytest.mark.django_db(transaction=True)
def test_an_unconfirmed_line_is_settled_from_the_listing_when_the_page_is_viewed(client, customer):
    name = f"done{uuid.uuid4().hex[:10]}.com"
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=name, duration=1)
    checkout_id = uuid.uuid4()
    record(customer, checkout_id, name, Registration.Status.UNKNOWN)
    client.force_login(customer.user)
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "Registered" in html
    assert "Could not confirm" not in html
    settled = Registration.objects.get(checkout_id=checkout_id)
    assert settled.provider_order_id == registered.order_id


@pytest.mark.django_db(transaction=True)
def test_a_line_still_unconfirmed_keeps_the_page_refreshing(client, customer):
    checkout_id = uuid.uuid4()
    record(customer, checkout_id, f"wait{uuid.uuid4().hex[:10]}.com", Registration.Status.UNKNOWN)
    client.force_login(customer.user)
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "Could not confirm" in html
    assert "We are still confirming some domains" in html
    assert f'hx-get="/checkout/{checkout_id}/"' in html
