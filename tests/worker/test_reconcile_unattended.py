"""Lost registration answers are settled by the worker, with nobody looking, and never declared early."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from domains.checkout import registrations
from domains.checkout.tasks import reconcile_registrations
from domains.models import Registration
from storefront.background.scheduler import scheduler_tick
from storefront.gateway import gateway
from tests.domains.conftest import line

pytestmark = pytest.mark.django_db(transaction=True)

ONLY_RECONCILE = ["reconcile-registrations", "checkout-emails"]


def fresh() -> str:
    return f"wrk{uuid.uuid4().hex[:10]}.com"


def unknown_line(customer, name: str) -> Registration:
    return Registration.objects.create(
        customer=customer, domain_name=name, duration=1, status=Registration.Status.UNKNOWN, checkout_id=uuid.uuid4()
    )


@override_settings(SCHEDULED_JOBS=ONLY_RECONCILE)
def test_a_lost_answer_is_reconciled_with_nobody_looking(customer):
    name = fresh()
    with gateway().fault(hang_seconds=3, hang_after_commit=True, scope="register"):
        registration = registrations.registration_place(customer=customer, line=line(name), checkout_id=uuid.uuid4())
    assert registration.status == Registration.Status.UNKNOWN

    scheduler_tick()  # no page is opened, no staff button pressed: the scheduler's period comes round

    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED
    assert gateway().listed_orders(name) == 1
    [message] = mail.outbox
    assert message.to == [customer.email]
    assert f"- {name} (1 year, $14.49): Registered." in message.body


def test_an_unknown_line_is_held_for_hours_then_declared_and_flips_back_when_the_listing_shows_it(customer):
    name = fresh()
    registration = unknown_line(customer, name)
    start = timezone.now()

    with time_machine.travel(start + dt.timedelta(hours=2)):
        reconcile_registrations.enqueue()
        registration.refresh_from_db()
        # Far past the old 30-second grace, still within the limit: still held, and nothing said to the customer.
        assert registration.status == Registration.Status.UNKNOWN
        assert mail.outbox == []

    with time_machine.travel(start + registrations.unknown_limit() + dt.timedelta(minutes=5)):
        reconcile_registrations.enqueue()
        registration.refresh_from_db()
        assert (registration.status, registration.failure_kind) == (
            Registration.Status.FAILED,
            Registration.FailureKind.NOT_REGISTERED,
        )
        assert len(mail.outbox) == 1
        assert f"- {name} (1 year): Not registered." in mail.outbox[0].body

    # The provider did register it after all (its listing now has it): the line flips and the customer is told.
    order = gateway().domain_register(customer_id=customer.customer_id, domain_name=name, duration=1)
    with time_machine.travel(start + registrations.unknown_limit() + dt.timedelta(hours=3)):
        reconcile_registrations.enqueue()
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED
    assert registration.provider_order_id == order.order_id
    assert len(mail.outbox) == 2
    assert mail.outbox[1].subject.startswith("Update on your order")
    assert f"- {name} (1 year): Registered." in mail.outbox[1].body


def test_while_unknown_the_name_is_not_sold_again(customer, other_customer):
    name = fresh()
    unknown_line(customer, name)
    with time_machine.travel(timezone.now() + dt.timedelta(hours=1)):
        again = registrations.registration_place(customer=other_customer, line=line(name), checkout_id=uuid.uuid4())
    assert again.status == Registration.Status.FAILED
    assert gateway().listed_orders(name) == 0
