"""Signup stores the contact locally and sends a confirmation link; the provider customer is created only when
the address is confirmed (idempotent, unknown outcomes kept for staff); an unconfirmed account cannot buy."""

from __future__ import annotations

import datetime as dt
import re
from typing import cast

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import override_settings

from accounts.models import Customer
from accounts.signup import services
from storefront.gateway import Unauthorized, Unavailable, gateway
from storefront.queues import QUEUES
from tests.fakes.gateway import FakeGateway

from .conftest import VALID

User = get_user_model()
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
URL = "/accounts/signup/"


def _signup(client, **changes):
    return client.post(URL, {**VALID, **changes})


def _link() -> str:
    (message,) = [m for m in mail.outbox if "confirm" in m.subject.lower()]
    found = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", str(message.body))
    assert found, message.body
    return found.group(1)


def _confirm(client):
    return client.post(_link())


def _provider_customers(email: str) -> list[dict]:
    provider = cast(FakeGateway, gateway())  # the in-memory provider these tests run on
    return [{"customer_id": c.customer_id, "email": c.email} for c in provider.customers(email)]


@pytest.mark.django_db
def test_signup_signs_in_keeps_the_cart_and_sends_a_link_without_calling_the_provider(client, seeded, provider_calls):
    session = client.session
    session["cart"] = {"ada-lovelace.com": {"duration": 1}}
    session.save()
    response = _signup(client, email="Ada@Example.org", next="/checkout/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/confirm-email/"
    customer = Customer.objects.get()
    assert customer.customer_id is None and customer.user.is_active
    assert (customer.user.username, customer.user.email) == ("ada@example.org", "Ada@example.org")
    assert int(client.session["_auth_user_id"]) == customer.user.pk
    assert client.session["cart"] == {"ada-lovelace.com": {"duration": 1}}
    assert mail.outbox[0].to == ["Ada@example.org"]
    assert "customer_signup" not in provider_calls
    assert _provider_customers("ada@example.org") == []


@pytest.mark.django_db
def test_the_link_creates_the_provider_customer_and_goes_back_to_checkout(client, seeded):
    _signup(client, next="/checkout/")
    response = _confirm(client)
    assert response.status_code == 302 and response["Location"] == "/checkout/"
    (provider,) = _provider_customers("ada@example.org")
    assert Customer.objects.get().customer_id == provider["customer_id"]
    assert "ready to buy" in client.get("/checkout/").content.decode()


@pytest.mark.django_db
def test_confirming_twice_creates_one_provider_customer(client, seeded, provider_calls):
    _signup(client)
    link = _link()
    client.post(link)
    client.post(link)
    services.customer_provider_signup(customer=Customer.objects.get())
    assert provider_calls.count("customer_signup") == 1
    assert len(_provider_customers("ada@example.org")) == 1


@pytest.mark.django_db
def test_an_unconfirmed_account_cannot_buy_and_the_provider_never_hears_of_it(client, seeded, provider_calls):
    from tests.domains.conftest import line, put_in_cart

    _signup(client)
    put_in_cart(client, line("ada-lovelace.com"))
    page = client.get("/checkout/").content.decode()
    assert "Please confirm your email address to buy" in page
    assert 'name="checkout_id"' not in page
    response = client.post("/checkout/", {"checkout_id": "8a4f1c1e-1a2b-4c3d-9e8f-000000000001"}, follow=True)
    assert "Please confirm your email address to buy" in response.content.decode()
    assert "customer_signup" not in provider_calls and "domain_register" not in provider_calls
    assert _provider_customers("ada@example.org") == []


@pytest.mark.django_db
def test_an_email_the_provider_already_has_is_told_and_left_for_staff(client, seeded, caplog):
    gateway().customer_signup(**{k: v for k, v in VALID.items() if k != "password2"})
    _signup(client)
    page = client.post(_link(), follow=True).content.decode()
    assert "An account with this email already exists" in page
    customer = Customer.objects.get()
    assert customer.customer_id is None
    assert f"customer pk {customer.pk} needs reconciliation" in caplog.text


@pytest.mark.django_db
def test_a_refused_key_shows_the_message_and_a_later_confirmation_tries_again(client, seeded):
    _signup(client)
    with seeded.outage(error=Unauthorized("Unauthorized", status=401)):  # the provider refuses our key
        page = client.post(_link(), follow=True).content.decode()
    assert str(Unauthorized.default_message) in page
    customer = Customer.objects.get()
    assert customer.customer_id is None and customer.signup_sent_at is None
    assert services.customer_provider_signup(customer=customer).customer_id is not None


def _answer_lost():
    """The provider creates the customer but its answer never arrives."""
    return gateway().fault(hang_seconds=3, hang_after_commit=True, scope="customers")


def _server_error():
    """The provider fails with a 500 before creating anything; for a POST the gateway cannot know that."""
    return gateway().fault(error_rate=1.0, scope="customers")


def _long_ago(customer: Customer) -> Customer:
    assert customer.signup_sent_at is not None
    Customer.objects.filter(pk=customer.pk).update(signup_sent_at=customer.signup_sent_at - services.IN_FLIGHT * 2)
    return Customer.objects.get(pk=customer.pk)


@pytest.mark.django_db
def test_an_unknown_outcome_is_sent_again_and_a_duplicate_goes_to_staff_never_a_second_customer(
    client, seeded, caplog, mailoutbox
):
    _signup(client)
    with _answer_lost():
        page = client.post(_link(), follow=True).content.decode()
    assert "We are finishing your account with the domain registry" in page
    customer = Customer.objects.get()
    assert customer.customer_id is None and customer.signup_sent_at is not None
    # A retry at once is taken as the same attempt still in flight: nothing is sent.
    assert services.customer_provider_signup(customer=customer).customer_id is None
    with override_settings(ADMINS=[("Ops", "ops@example.org")]), pytest.raises(services.SignupUnconfirmed):
        services.customer_provider_signup(customer=_long_ago(customer))
    assert len(_provider_customers("ada@example.org")) == 1
    assert f"customer pk {customer.pk} needs reconciliation" in caplog.text
    assert [m.to for m in mailoutbox if "needs linking by hand" in m.subject] == [["ops@example.org"]]
    # Marked for staff: the worker stops sending it.
    assert Customer.objects.get().signup_conflict_at is not None
    assert services.customers_awaiting_provider() == []


@pytest.mark.django_db
def test_a_retry_completes_the_account_when_the_first_attempt_never_landed(client, seeded):
    _signup(client)
    with _server_error():
        client.post(_link())
    customer = Customer.objects.get()
    assert customer.customer_id is None and _provider_customers("ada@example.org") == []
    linked = services.customer_provider_signup(customer=_long_ago(customer))
    (provider,) = _provider_customers("ada@example.org")
    assert linked.customer_id == provider["customer_id"]


@pytest.mark.django_db
def test_a_provider_outage_at_confirmation_is_retried_by_the_worker(client, seeded):
    from django_tasks_db.models import DBTaskResult

    from accounts.tasks import provider_signup_retry

    _signup(client)
    unreachable = seeded.outage(error=Unavailable("ConnectionError"))  # never sent: a definite outage
    with (
        override_settings(TASKS=DATABASE_TASKS),
        unreachable,
    ):
        page = client.post(_link(), follow=True).content.decode()
        assert "could not finish your account" in page
        queued = DBTaskResult.objects.get(task_path__endswith="provider_signup_retry")
        assert queued.args_kwargs["kwargs"] == {"customer_pk": Customer.objects.get().pk}
    provider_signup_retry.call(customer_pk=Customer.objects.get().pk)  # what the worker does, later
    assert Customer.objects.get().customer_id is not None


@pytest.mark.django_db
def test_a_provider_500_at_confirmation_is_sent_again_by_the_worker_until_linked(client, seeded):
    """The provider fails the signup with a 500 (for a POST the gateway cannot know whether it acted): the account
    is not left unlinked for good, the worker sends it again once it can no longer be in flight."""
    from django_tasks_db.models import DBTaskResult

    from accounts.tasks import provider_signup_retry

    _signup(client)
    with (
        override_settings(TASKS=DATABASE_TASKS),
        _server_error(),
    ):
        page = client.post(_link(), follow=True).content.decode()
        assert "We are finishing your account with the domain registry" in page
        queued = DBTaskResult.objects.get(task_path__endswith="provider_signup_retry")
        assert queued.run_after >= Customer.objects.get().signup_sent_at + services.IN_FLIGHT
    _long_ago(Customer.objects.get())  # the worker runs it once its time has come
    assert provider_signup_retry.call(customer_pk=Customer.objects.get().pk) is True
    (provider,) = _provider_customers("ada@example.org")
    assert Customer.objects.get().customer_id == provider["customer_id"]


@pytest.mark.django_db
def test_the_periodic_job_links_every_confirmed_customer_after_a_long_outage(client, seeded):
    from accounts.tasks import link_provider_customers
    from domains.alerts import staff_alerts

    _signup(client)
    with seeded.outage(error=Unavailable("ConnectionError")):
        client.post(_link())
        assert link_provider_customers.call() == {"linked": 0, "waiting": 1}
    with time_machine.travel(dt.timedelta(hours=1)):
        assert [alert.key for alert in staff_alerts()] == ["signups"]  # staff hear of it while it lasts
    assert link_provider_customers.call() == {"linked": 1, "waiting": 0}
    assert Customer.objects.get().customer_id is not None
    assert link_provider_customers.call() == {"linked": 0, "waiting": 0}
