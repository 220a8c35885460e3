"""`domains.checkout.registrations`: each line recorded before the provider is called, then settled once."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.utils import timezone

from domains.checkout import registrations
from domains.models import Order, Registration
from domains.presentation import registration_outcome
from storefront.gateway import RateLimited, Unauthorized, Unavailable, gateway
from tests.domains.conftest import line, register_calls

pytestmark = pytest.mark.django_db


def fresh(tld: str = "com") -> str:
    return f"svc{uuid.uuid4().hex[:10]}.{tld}"


def place(customer, item, checkout_id=None) -> Registration:
    return registrations.registration_place(customer=customer, line=item, checkout_id=checkout_id or uuid.uuid4())


def test_a_successful_registration_records_the_order(customer, provider_calls, fake_gateway):
    name = fresh()
    registration = place(customer, line(name, duration=2, price=Decimal("30.98")))
    assert registration.status == Registration.Status.REGISTERED
    assert registration.provider_order_id
    assert registration.total_price == Decimal("30.98")  # the retail price the customer was quoted
    assert registration.cost_price == Decimal("27.98")  # 12.99 + 14.99 at the time of sale
    assert registration.provider_cost == Decimal("27.98")
    assert registration.price_rule.startswith("default")
    order = registration.order
    assert order == Order.objects.get(order_id=registration.provider_order_id)
    assert order.customer == customer
    assert order.domain_name == name
    assert order.status == Order.Status.ACTIVE
    assert order.expires_at is not None  # filled from one listing page
    assert fake_gateway.listed_orders(name) == 1
    assert register_calls(provider_calls) == 1


def test_the_line_is_recorded_pending_before_the_provider_is_called(customer, monkeypatch):
    seen = []
    real = type(gateway()).domain_register

    def watching(self, **kwargs):
        seen.append(
            list(Registration.objects.filter(domain_name=kwargs["domain_name"]).values_list("status", flat=True))
        )
        return real(self, **kwargs)

    monkeypatch.setattr(type(gateway()), "domain_register", watching)
    place(customer, line(fresh()))
    assert seen == [[Registration.Status.PENDING]]


def test_a_taken_domain_fails_as_not_available(customer):
    registration = place(customer, line("example.com"))
    assert registration.status == Registration.Status.FAILED
    assert registration.failure_kind == Registration.FailureKind.UNAVAILABLE
    assert registration.provider_message == "Unable to register domain"
    assert registration_outcome(registration).label == "Not available any more"


def test_a_premium_domain_fails_as_premium(customer):
    registration = place(customer, line("cars.com"))
    assert registration.status == Registration.Status.FAILED
    assert registration.failure_kind == Registration.FailureKind.PREMIUM
    assert registration_outcome(registration).label == "Premium name"


def test_a_refusal_with_the_name_free_and_the_term_allowed_is_said_honestly(
    customer, seeded_partner, caplog, fake_gateway
):
    # The provider's one text covers a failed billing settlement too: it cannot be told apart, so it is not guessed.
    fake_gateway.set_balance(Decimal("1.00"), partner=seeded_partner)
    name = fresh()
    registration = place(customer, line(name))
    assert registration.failure_kind == Registration.FailureKind.REJECTED
    assert registration.provider_message == "Unable to register domain"
    assert fake_gateway.listed_orders(name) == 0
    assert "you have not been charged and our staff have been told" in registration_outcome(registration).detail
    assert any(record.levelname == "ERROR" and name in record.getMessage() for record in caplog.records)


def test_a_term_below_the_tlds_minimum_fails_as_minimum_term(customer):
    registration = place(customer, line(fresh("ai"), duration=1, price=Decimal("81.49"), renew=Decimal("81.49")))
    assert registration.failure_kind == Registration.FailureKind.MINIMUM_TERM
    assert registration.provider_message == "Unable to register domain"


def test_the_minimum_term_comes_from_the_price_list(customer, seeded_partner, fake_gateway):
    from domains.terms import register_min_term

    fake_gateway.set_min_term("dev", 3, partner=seeded_partner)
    registration = place(customer, line(fresh("dev"), duration=1))
    assert registration.failure_kind == Registration.FailureKind.MINIMUM_TERM
    assert register_min_term("dev") == 3
    assert register_min_term("com") == 1


def test_an_unknown_provider_customer_fails_as_invalid_customer(customer):
    customer.customer_id = 1
    customer.save()
    registration = place(customer, line(fresh()))
    assert registration.failure_kind == Registration.FailureKind.INVALID_CUSTOMER


def test_the_same_checkout_line_is_reused_without_a_provider_call(customer, provider_calls):
    checkout_id = uuid.uuid4()
    name = fresh()
    first = place(customer, line(name), checkout_id)
    again = place(customer, line(name), checkout_id)
    assert again.pk == first.pk
    assert register_calls(provider_calls) == 1
    assert Registration.objects.filter(domain_name=name).count() == 1


def test_a_failed_line_of_the_same_checkout_is_not_retried(customer, provider_calls):
    checkout_id = uuid.uuid4()
    first = place(customer, line("example.com"), checkout_id)
    again = place(customer, line("example.com"), checkout_id)
    assert again.pk == first.pk
    assert register_calls(provider_calls) == 1


def test_a_domain_already_registered_to_the_customer_is_not_bought_again(customer, provider_calls, fake_gateway):
    name = fresh()
    place(customer, line(name))
    second = place(customer, line(name))
    assert second.status == Registration.Status.FAILED
    assert second.failure_kind == Registration.FailureKind.ALREADY_YOURS
    assert register_calls(provider_calls) == 1
    assert fake_gateway.listed_orders(name) == 1


def test_a_domain_someone_else_is_registering_is_refused_without_a_provider_call(
    customer, other_customer, provider_calls
):
    name = fresh()
    Registration.objects.create(
        customer=other_customer,
        domain_name=name,
        duration=1,
        status=Registration.Status.PENDING,
        checkout_id=uuid.uuid4(),
    )
    registration = place(customer, line(name))
    assert registration.status == Registration.Status.FAILED
    assert registration.failure_kind == Registration.FailureKind.UNAVAILABLE
    assert register_calls(provider_calls) == 0


def test_an_unconfirmed_earlier_attempt_is_reconciled_before_trying_again(customer, provider_calls, monkeypatch):
    name = fresh()
    earlier = Registration.objects.create(
        customer=customer, domain_name=name, duration=1, status=Registration.Status.UNKNOWN, checkout_id=uuid.uuid4()
    )
    # The earlier attempt is long past the grace period and the listing has no such order: it did not happen.
    Registration.objects.filter(pk=earlier.pk).update(
        created_at=timezone.now() - registrations.unknown_limit() * 2,
        updated_at=timezone.now() - registrations.unknown_limit() * 2,
    )
    registration = place(customer, line(name))
    earlier.refresh_from_db()
    assert earlier.status == Registration.Status.FAILED
    assert earlier.failure_kind == Registration.FailureKind.NOT_REGISTERED
    assert registration.status == Registration.Status.REGISTERED
    names = [name for name, _ in provider_calls]
    assert names.index("domain_orders") < names.index("domain_register")


@pytest.mark.parametrize("error", [Unavailable("ConnectionError"), RateLimited(), Unauthorized(status=401)])
def test_a_registration_that_was_not_sent_waits_and_is_sent_when_tried_again(customer, fake_gateway, error):
    """The provider unreachable, busy or refusing our key acted on nothing: the line is not failed (a paid line
    would lose its domain), nothing is recorded, and the next attempt sends it."""
    name, checkout_id = fresh(), uuid.uuid4()
    with fake_gateway.outage(error=error), pytest.raises(registrations.RegistrationWaits):
        place(customer, line(name), checkout_id)
    assert not Registration.objects.filter(domain_name=name).exists()
    assert place(customer, line(name), checkout_id).status == Registration.Status.REGISTERED


def test_a_lost_answer_marks_the_line_unknown_and_does_not_retry(customer, provider_calls, fake_gateway):
    name = fresh()
    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="register"):
        registration = place(customer, line(name))
    assert registration.status == Registration.Status.UNKNOWN
    assert registration_outcome(registration).label == "Could not confirm"
    assert register_calls(provider_calls) == 1


def test_premium_names_added_to_the_catalogue_are_reported_as_premium(customer, seeded_partner, fake_gateway):
    name = fresh()
    fake_gateway.reserve(name, kind="premium", premium_price=Decimal("500"), partner=seeded_partner)
    assert place(customer, line(name)).failure_kind == Registration.FailureKind.PREMIUM


def test_a_registration_whose_domain_has_since_gone_stops_holding_the_name(customer, other_customer):
    name = fresh()
    long_ago = timezone.now() - registrations.RELEASE_MIN_AGE * 400
    stale = Registration.objects.create(
        customer=other_customer,
        domain_name=name,
        duration=1,
        status=Registration.Status.REGISTERED,
        checkout_id=uuid.uuid4(),
    )
    Registration.objects.filter(pk=stale.pk).update(updated_at=long_ago)
    registration = place(customer, line(name))
    stale.refresh_from_db()
    assert stale.status == Registration.Status.RELEASED
    assert registration.status == Registration.Status.REGISTERED
    assert registration.customer == customer


def test_a_recent_registration_keeps_its_name_even_if_the_listing_lags(customer, other_customer, provider_calls):
    name = fresh()
    Registration.objects.create(
        customer=other_customer,
        domain_name=name,
        duration=1,
        status=Registration.Status.REGISTERED,
        checkout_id=uuid.uuid4(),
    )
    registration = place(customer, line(name))
    assert registration.failure_kind == Registration.FailureKind.UNAVAILABLE
    assert provider_calls == []


def test_a_registration_still_in_its_owners_listing_keeps_its_name(customer, other_customer, provider_calls):
    name = fresh()
    owned = place(other_customer, line(name))
    Registration.objects.filter(pk=owned.pk).update(updated_at=timezone.now() - registrations.RELEASE_MIN_AGE * 2)
    registration = place(customer, line(name))
    owned.refresh_from_db()
    assert owned.status == Registration.Status.REGISTERED
    assert registration.failure_kind == Registration.FailureKind.UNAVAILABLE
    assert register_calls(provider_calls) == 1
