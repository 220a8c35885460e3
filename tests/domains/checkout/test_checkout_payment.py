"""Checkout with payments on: POST answers 303 to Stripe's page; the return and the webhook register, then capture."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from billing.models import Payment
from billing.tasks import process_stripe_event, settle_payment
from domains.checkout.tasks import reconcile_registrations
from domains.models import Registration
from storefront.gateway import Unavailable, gateway
from storefront.queues import QUEUES
from tests.billing.conftest import DECLINED_CARD, GOOD_CARD, post_event
from tests.domains.conftest import cart_of, line, put_in_cart
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db


def fresh(tld: str = "com") -> str:
    return f"pay{uuid.uuid4().hex[:10]}.{tld}"


@pytest.fixture
def buyer(client, customer, stripe_sandbox):
    client.force_login(customer.user)
    return customer


def review(client) -> tuple[uuid.UUID, str]:
    """Open the review page: its checkout id and the digest its Buy button posts."""
    response = client.get("/checkout/")
    assert response.status_code == 200, response.content
    assert response.context["checkout_id"] is not None
    return response.context["checkout_id"], response.context["review_digest"]


def buy(client, checkout_id, digest, **kwargs):
    """Press Buy on a review page that showed this checkout with this digest."""
    return client.post(
        "/checkout/", {"checkout_id": str(checkout_id), "review_digest": digest, "accept_terms": "on"}, **kwargs
    )


def start_paying(client) -> tuple[Payment, str, str]:
    """Review and press Buy: the payment started and Stripe's page it sends to, and the review's digest."""
    checkout_id, digest = review(client)
    response = buy(client, checkout_id, digest)
    assert response.status_code == 303
    payment = Payment.objects.get(checkout_id=checkout_id)
    return payment, response["Location"], digest


def test_paying_registers_every_line_and_captures_their_quoted_total(client, buyer, stripe_sandbox):
    names = [fresh(), fresh()]
    put_in_cart(client, line(names[0], duration=2, price=Decimal("30.98")), line(names[1]))
    payment, url, _ = start_paying(client)
    assert url.startswith(stripe_sandbox.api_base + "/pay/")
    assert not Registration.objects.filter(checkout_id=payment.checkout_id).exists()  # nothing before paying
    assert payment.amount == Decimal("30.98") + Decimal("14.49")  # the retail prices quoted, not their cost

    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    done = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    assert done.status_code == 200
    html = done.content.decode()
    assert "2 domains registered" in html
    receipt = Payment.objects.get(pk=payment.pk).receipt
    assert "Charged $45.47." in html
    assert f'<a href="/payments/receipts/{receipt.number}/">Receipt {receipt.number}</a>' in html
    for name in names:
        assert Registration.objects.get(checkout_id=payment.checkout_id, domain_name=name).status == "registered"
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("45.47"))
    assert cart_of(client) == {}

    for event in stripe_sandbox.events(type="checkout.session.completed") * 3:
        assert post_event(Client(), event).status_code == 200
    assert len(stripe_sandbox.captures()) == 1


def test_a_name_taken_before_the_payment_settles_is_not_charged(client, buyer, other_customer, stripe_sandbox):
    good, lost = fresh(), fresh()
    put_in_cart(client, line(good), line(lost, duration=3, price=Decimal("47.47")))
    payment, *_ = start_paying(client)
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=lost, duration=1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    done = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}").content.decode()
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.PARTIALLY_CAPTURED, Decimal("14.49"))
    assert list(cart_of(client)) == [lost]
    assert "Charged $14.49 for what was registered; the rest held on your card was released." in done
    receipt = client.get(f"/payments/receipts/{payment.receipt.number}/").content.decode()
    charged, not_charged = receipt.split("Not charged")
    assert good in charged and lost not in charged
    assert f"{lost}, registration for 3 years" in not_charged


def test_nothing_registered_releases_the_authorisation_and_the_page_says_so(
    client, buyer, other_customer, stripe_sandbox
):
    lost = fresh()
    put_in_cart(client, line(lost))
    payment, *_ = start_paying(client)
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=lost, duration=1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    done = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}").content.decode()
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CANCELLED, 0)
    assert "You have not been charged: the amount held on your card was released." in done
    assert "Receipt" not in done


def test_the_webhook_alone_registers_the_lines_when_the_customer_never_returns(client, buyer, stripe_sandbox):
    name = fresh()
    put_in_cart(client, line(name))
    payment, *_ = start_paying(client)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    for event in stripe_sandbox.events(type="checkout.session.completed"):
        assert post_event(Client(), event).status_code == 200
    assert Registration.objects.get(checkout_id=payment.checkout_id, domain_name=name).status == "registered"
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    # The customer's later visit settles nothing twice.
    assert client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}").status_code == 200
    assert len(stripe_sandbox.captures()) == 1


def test_a_declined_card_registers_nothing_and_the_order_page_waits(client, buyer, stripe_sandbox):
    put_in_cart(client, line(fresh()))
    payment, *_ = start_paying(client)
    assert stripe_sandbox.pay(payment.stripe_session_id, DECLINED_CARD) == "declined"
    page = client.get(f"/checkout/{payment.checkout_id}/")
    assert page.status_code == 200
    assert not Registration.objects.filter(checkout_id=payment.checkout_id).exists()
    assert stripe_sandbox.captures() == []


def test_posting_the_checkout_again_returns_to_the_same_payment_page(client, buyer, stripe_sandbox):
    put_in_cart(client, line(fresh()))
    payment, url, digest = start_paying(client)
    again = buy(client, payment.checkout_id, digest)
    assert (again.status_code, again["Location"]) == (303, url)
    assert Payment.objects.count() == 1


def test_a_lost_registration_answer_holds_its_part_until_the_reconciler_settles_it(
    client, buyer, stripe_sandbox, fake_gateway
):
    name = fresh()
    put_in_cart(client, line(name))
    payment, *_ = start_paying(client)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="register"):
        for event in stripe_sandbox.events(type="checkout.session.completed"):
            assert post_event(Client(), event).status_code == 200
    payment.refresh_from_db()
    assert (payment.status, payment.needs_attention) == (Payment.Status.AUTHORISED, True)
    assert stripe_sandbox.captures() == []
    reconcile_registrations.enqueue()
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("14.49"))
    assert not payment.needs_attention
    assert len(stripe_sandbox.captures()) == 1


def test_the_watched_confirmation_page_settles_a_lost_answer_and_its_payment_at_once(
    client, buyer, stripe_sandbox, fake_gateway, django_capture_on_commit_callbacks
):
    name = fresh()
    put_in_cart(client, line(name))
    payment, *_ = start_paying(client)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="register"):
        for event in stripe_sandbox.events(type="checkout.session.completed"):
            assert post_event(Client(), event).status_code == 200
    assert Payment.objects.get(pk=payment.pk).status == Payment.Status.AUTHORISED

    with django_capture_on_commit_callbacks(execute=True):  # the page hands the worker its lost answer
        page = client.get(f"/checkout/{payment.checkout_id}/")

    assert page.status_code == 200
    payment.refresh_from_db()
    # Registered, so charged now, not at the reconcile job's next run.
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("14.49"))
    assert len(stripe_sandbox.captures()) == 1


def test_an_expired_payment_page_sends_the_customer_back_to_review_with_a_new_checkout(client, buyer, stripe_sandbox):
    put_in_cart(client, line(fresh()))
    payment, _, digest = start_paying(client)
    stripe_sandbox.advance_clock(25 * 3600)  # past the session's day: it expires, as Stripe's do
    again = buy(client, payment.checkout_id, digest, follow=True)
    assert "Your payment page expired" in again.content.decode()
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CANCELLED
    assert again.context["checkout_id"] not in (None, payment.checkout_id)


@markup(percent="10")  # a rule that passes .shop's free first year on (a fixed amount per year would not)
def test_a_cart_with_nothing_to_pay_registers_without_a_payment_page(
    client, buyer, stripe_sandbox, django_capture_on_commit_callbacks
):
    name = fresh("shop")
    put_in_cart(client, line(name, price=Decimal("0.00")))  # .shop's first year is free
    checkout_id, digest = review(client)
    # Unpaid checkouts are registered by the worker, enqueued when the request's transaction commits.
    with django_capture_on_commit_callbacks(execute=True):
        response = buy(client, checkout_id, digest)
    assert response.status_code == 302
    assert Registration.objects.get(checkout_id=checkout_id, domain_name=name).status == "registered"
    assert not Payment.objects.exists()


def test_the_return_page_only_asks_the_worker_so_a_slow_provider_holds_no_request(
    client, buyer, stripe_sandbox, fake_gateway, settings
):
    # The production task queue (rows in our database), not the tests' immediate one: nothing runs in the request.
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
    names = [fresh() for _ in range(20)]
    put_in_cart(client, *(line(name) for name in names))
    payment, *_ = start_paying(client)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    fake_gateway.slow("domain_register", 4)  # 20 lines at 4 s each would be far past any router's deadline
    fake_gateway.calls.clear()

    done = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
    assert done.status_code == 200
    assert "This page updates by itself." in done.content.decode()  # it polls while the worker works
    assert not [name for name, _ in fake_gateway.calls if name == "domain_register"]
    queued = DBTaskResult.objects.filter(task_path="billing.tasks.settle_payment")
    assert queued.count() == 1
    # A second poll within seconds asks nothing more; the webhook's event is queued for the worker too.
    client.get(f"/checkout/{payment.checkout_id}/")
    assert queued.count() == 1
    for event in stripe_sandbox.events(type="checkout.session.completed"):
        assert post_event(Client(), event).status_code == 200
    assert DBTaskResult.objects.filter(task_path="billing.tasks.process_stripe_event").count() == 1
    assert not [name for name, _ in fake_gateway.calls if name == "domain_register"]

    # The worker does the work (here without the delay), once, whichever task runs first.
    fake_gateway.slow("domain_register", 0)
    assert settle_payment.call(payment_id=payment.pk) == Payment.Status.CAPTURED
    process_stripe_event.call(event_id=stripe_sandbox.events(type="checkout.session.completed")[0].id)
    assert len([name for name, _ in fake_gateway.calls if name == "domain_register"]) == 20
    assert len(stripe_sandbox.captures()) == 1


def test_a_paid_line_waiting_for_the_provider_is_settled_again_within_seconds(
    client, buyer, stripe_sandbox, fake_gateway, settings
):
    # The provider is away when the worker settles: the line waits (held, not failed) and the settle task comes back
    # on the paid queue's short retry, not at the reconciler's next pass minutes later.
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
    name = fresh()
    put_in_cart(client, line(name))
    payment, *_ = start_paying(client)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    with fake_gateway.outage("domain_register", error=Unavailable("ConnectionError")):  # certainly not sent
        assert settle_payment.call(payment_id=payment.pk) == Payment.Status.AUTHORISED
    retry = DBTaskResult.objects.get(task_path="billing.tasks.settle_payment")
    assert retry.queue_name == "paid"
    assert retry.args_kwargs["kwargs"] == {"payment_id": payment.pk, "attempt": 2}
    assert dt.timedelta(seconds=5) <= retry.run_after - timezone.now() + dt.timedelta(seconds=1)
    assert retry.run_after - timezone.now() <= dt.timedelta(seconds=15)
    # The provider is back: the retry registers and captures.
    assert settle_payment.call(payment_id=payment.pk, attempt=2) == Payment.Status.CAPTURED
