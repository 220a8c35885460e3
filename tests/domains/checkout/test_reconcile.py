"""Reconciling lines whose answer was lost: from the order listing, in the service, the command and the admin."""

from __future__ import annotations

import uuid
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from domains.checkout import registrations
from domains.models import Registration
from domains.presentation import registration_outcome
from storefront.gateway import Unavailable, gateway
from tests.domains.conftest import line, register_calls

pytestmark = pytest.mark.django_db


def fresh() -> str:
    return f"rec{uuid.uuid4().hex[:10]}.com"


def unknown_line(customer, name: str, *, age=None) -> Registration:
    registration = Registration.objects.create(
        customer=customer, domain_name=name, duration=1, status=Registration.Status.UNKNOWN, checkout_id=uuid.uuid4()
    )
    if age is not None:
        Registration.objects.filter(pk=registration.pk).update(
            created_at=timezone.now() - age, updated_at=timezone.now() - age
        )
        registration.refresh_from_db()
    return registration


def test_a_provider_that_registers_then_drops_the_answer_leaves_one_order_and_a_reconciled_line(
    fake_gateway, customer, provider_calls
):
    name = fresh()
    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="register"):
        registration = registrations.registration_place(customer=customer, line=line(name), checkout_id=uuid.uuid4())
    assert registration.status == Registration.Status.UNKNOWN

    reconciled = registrations.registration_reconcile(registration=registration)

    assert fake_gateway.listed_orders(name) == 1
    (sandbox_order,) = fake_gateway.orders(domain_name=name, status="Active")
    assert reconciled.status == Registration.Status.REGISTERED
    assert reconciled.provider_order_id == sandbox_order.order_id
    assert reconciled.order.order_id == sandbox_order.order_id
    assert register_calls(provider_calls) == 1


def test_a_line_missing_from_the_listing_fails_once_the_grace_period_is_over(customer):
    registration = unknown_line(customer, fresh(), age=registrations.unknown_limit() * 2)
    reconciled = registrations.registration_reconcile(registration=registration)
    assert reconciled.status == Registration.Status.FAILED
    assert reconciled.failure_kind == Registration.FailureKind.NOT_REGISTERED
    assert registration_outcome(reconciled).label == "Not registered"


def test_a_recent_line_missing_from_the_listing_stays_unconfirmed(customer):
    registration = unknown_line(customer, fresh())
    assert registrations.registration_reconcile(registration=registration).status == Registration.Status.UNKNOWN


def test_a_listing_failure_leaves_the_line_unconfirmed(customer, fake_gateway):
    registration = unknown_line(customer, fresh(), age=registrations.unknown_limit() * 2)
    with fake_gateway.outage(error=Unavailable("ConnectionError")):  # the provider cannot be reached
        reconciled = registrations.registration_reconcile(registration=registration)
    assert reconciled.status == Registration.Status.UNKNOWN


def test_settled_and_fresh_pending_lines_are_left_alone(customer, provider_calls):
    pending = Registration.objects.create(
        customer=customer, domain_name=fresh(), duration=1, status=Registration.Status.PENDING, checkout_id=uuid.uuid4()
    )
    failed = Registration.objects.create(
        customer=customer, domain_name=fresh(), duration=1, status=Registration.Status.FAILED, checkout_id=uuid.uuid4()
    )
    assert registrations.registration_reconcile(registration=pending).status == Registration.Status.PENDING
    assert registrations.registration_reconcile(registration=failed).status == Registration.Status.FAILED
    assert provider_calls == []


def test_an_abandoned_pending_line_is_reconciled(customer):
    name = fresh()
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=name, duration=1)
    pending = Registration.objects.create(
        customer=customer, domain_name=name, duration=1, status=Registration.Status.PENDING, checkout_id=uuid.uuid4()
    )
    Registration.objects.filter(pk=pending.pk).update(updated_at=timezone.now() - registrations.STALE_PENDING * 2)
    reconciled = registrations.registration_reconcile(registration=pending)
    assert reconciled.status == Registration.Status.REGISTERED
    assert reconciled.provider_order_id == registered.order_id


def test_the_command_reconciles_every_unconfirmed_line(customer):
    present = fresh()
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=present, duration=1)
    found = unknown_line(customer, present)
    missing = unknown_line(customer, fresh(), age=registrations.unknown_limit() * 2)
    out = StringIO()
    call_command("reconcile_registrations", stdout=out)
    found.refresh_from_db()
    missing.refresh_from_db()
    assert (found.status, found.provider_order_id) == (Registration.Status.REGISTERED, registered.order_id)
    assert (missing.status, missing.failure_kind) == (
        Registration.Status.FAILED,
        Registration.FailureKind.NOT_REGISTERED,
    )
    assert "1 registered, 1 not registered, 0 still unconfirmed." in out.getvalue()


def test_the_admin_action_rechecks_the_selected_lines(client, customer):
    present = fresh()
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=present, duration=1)
    found = unknown_line(customer, present)
    staff = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#Pass99")
    client.force_login(staff)
    response = client.post(
        "/admin/domains/registration/",
        {"action": "recheck_unconfirmed", "_selected_action": [found.pk]},
        follow=True,
    )
    found.refresh_from_db()
    assert found.status == Registration.Status.REGISTERED
    assert found.provider_order_id == registered.order_id
    assert "Re-checked: 1 registered, 0 not registered, 0 still unconfirmed" in response.content.decode()


def test_the_admin_lists_filters_and_searches_registrations(client, customer):
    unknown_line(customer, "visible-one.com")
    Registration.objects.create(
        customer=customer,
        domain_name="refused-one.com",
        duration=1,
        status=Registration.Status.FAILED,
        failure_kind=Registration.FailureKind.BILLING,
        provider_message="Billing settlement failed: insufficient balance",
        checkout_id=uuid.uuid4(),
    )
    staff = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#Pass99")
    client.force_login(staff)
    html = client.get("/admin/domains/registration/", {"failure_kind": "billing"}).content.decode()
    assert "refused-one.com" in html
    assert "visible-one.com" not in html
    assert "Billing settlement failed: insufficient balance" in html
    html = client.get("/admin/domains/registration/", {"status__exact": "unknown"}).content.decode()
    assert "visible-one.com" in html
    html = client.get("/admin/domains/registration/", {"q": customer.email}).content.decode()
    assert "visible-one.com" in html and "refused-one.com" in html
