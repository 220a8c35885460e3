"""A registration refused for the TLD's registry requirements: the customer reads which details are needed, the line
is marked restricted, and the payment hold is released (nothing charged)."""

from __future__ import annotations

import uuid

import pytest
from django.utils import translation

from billing.models import Payment
from domains.models import Registration
from domains.presentation import registration_outcome
from storefront.gateway import TldRestricted
from tests.billing.conftest import GOOD_CARD
from tests.domains.checkout.test_checkout_payment import start_paying
from tests.domains.conftest import cart_of, line, put_in_cart
from tests.factories import RegistrationFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def buyer(client, customer, stripe_sandbox):
    client.force_login(customer.user)
    return customer


def test_a_restricted_tld_names_what_it_needs_and_charges_nothing(client, buyer, stripe_sandbox, fake_gateway):
    name = f"us{uuid.uuid4().hex[:10]}.io"
    put_in_cart(client, line(name))
    payment, *_ = start_paying(client)
    fake_gateway.fail(
        "domain_register",
        TldRestricted("The registration requirements of .io are not met", missing=["nexus_category"], status=422),
    )
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    done = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}").content.decode()

    registration = Registration.objects.get(checkout_id=payment.checkout_id)
    assert (registration.status, registration.failure_kind, registration.requirements) == (
        Registration.Status.FAILED,
        Registration.FailureKind.RESTRICTED,
        "nexus category",
    )
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CANCELLED, 0)
    assert "Extra details needed" in done
    assert "The registry of .io needs details from the registrant that cannot be given through this store" in done
    assert "(nexus category)" in done
    assert "You have not been charged: the amount held on your card was released." in done
    assert name in cart_of(client)  # it stays, as other refused lines do


def test_the_sentence_is_worded_in_the_readers_language_when_shown(customer):
    registration = RegistrationFactory(
        customer=customer,
        domain_name="shop.us",
        status=Registration.Status.FAILED,
        failure_kind=Registration.FailureKind.RESTRICTED,
        requirements="nexus category",
    )
    outcome = registration_outcome(registration)  # built first, as the confirmation email's context is
    with translation.override("es"):
        assert str(outcome.label) == "Faltan datos"
        assert str(outcome.detail).startswith("El registro de .us pide datos del titular")
        assert "(nexus category)" in str(outcome.detail)
