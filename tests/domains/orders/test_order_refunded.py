"""What the money after a sale means for a domain: refunded (by staff, in Stripe's dashboard, or lost to a dispute)
it says so on the customer's pages, is not renewed or auto-renewed, and is listed for staff; while a dispute is open
the customer's auto-renewals wait; a registered domain whose payment lapsed asks for it on its page. And the emails of
one checkout arrive in the order things happened: never "registered" after the credit note."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from billing.models import Payment, PaymentLine
from billing.tasks import reconcile_payments
from domains.checkout.tasks import send_pending_checkout_emails
from domains.models import Order, Registration
from domains.orders.auto_renew import Outcome, auto_renew_order
from tests.billing.conftest import GOOD_CARD, deliver
from tests.domains.checkout.test_checkout_payment import buyer, fresh, start_paying  # noqa: F401 (a fixture)
from tests.domains.conftest import line, put_in_cart

pytestmark = pytest.mark.django_db


@pytest.fixture
def bought(client, buyer, stripe_sandbox):  # noqa: F811 (the fixture imported above)
    """A domain bought and paid for through checkout: its order (our copy) and its payment."""

    def buy() -> tuple[Order, Payment]:
        name = fresh()
        put_in_cart(client, line(name))
        payment, *_ = start_paying(client)
        assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
        client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}")
        payment.refresh_from_db()
        assert payment.status == Payment.Status.CAPTURED
        order = Registration.objects.get(checkout_id=payment.checkout_id).order
        assert order is not None
        return order, payment

    return buy


@pytest.fixture
def staff() -> Client:
    user = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#Pass9")
    staff = Client()
    staff.force_login(user)
    return staff


def refund_from_the_admin(staff: Client, payment: Payment) -> None:
    confirm = f"/admin/billing/payment/refund/?payments={payment.pk}"
    lines = list(payment.lines.values_list("pk", flat=True))
    assert staff.post(confirm, {"line": lines}).status_code == 302


def test_a_refunded_domain_says_so_and_is_not_renewed(client, bought, staff, mailoutbox):
    order, payment = bought()
    Order.objects.filter(pk=order.pk).update(auto_renew=True)
    refund_from_the_admin(staff, payment)
    order.refresh_from_db()
    assert order.refunded_at is not None and not order.auto_renew

    page = client.get(f"/orders/{order.order_id}/").content.decode()
    assert '<span class="badge badge-bad">Refunded</span>' in page
    assert "The payment for this domain was refunded on" in page
    assert "This domain was refunded, so it cannot be renewed here." in page
    assert f'action="/orders/{order.order_id}/renew/"' not in page
    assert 'id="auto-renew"' not in page
    listing = client.get("/orders/").content.decode()
    assert '<span class="badge badge-bad">Refunded</span>' in listing

    # Asked anyway (an old tab): refused, nothing charged.
    token = client.session["renew_tokens"][str(order.order_id)][-1]
    form = {"renew_token": token, "duration": 1, "expiry_timestamp": order.expiry_timestamp or 0, "confirm": "1"}
    renewing = client.post(f"/orders/{order.order_id}/renew/", form)
    assert "This domain was refunded, so it cannot be renewed here." in renewing.content.decode()
    assert not Payment.objects.exclude(pk=payment.pk).exists()
    refused = client.post(f"/orders/{order.order_id}/auto-renew/", {"auto_renew": "on"}, follow=True)
    assert "This domain was refunded, so it cannot be renewed here." in refused.content.decode()
    assert not Order.objects.get(pk=order.pk).auto_renew

    # Staff see it listed, and the banner counts it.
    listed = staff.get("/admin/domains/order/?refunded_at__isempty=0")
    assert [o.pk for o in listed.context["cl"].result_list] == [order.pk]
    assert (
        "1 domain(s) refunded in the last week, still registered at the provider"
        in staff.get("/admin/").content.decode()
    )

    # The checkout's emails in the order things happened; the sweep sends no "registered" email after the note.
    subjects = [m.subject for m in mailoutbox]
    assert len(subjects) == 3, subjects
    assert subjects[0] == "Your domain is registered"
    assert subjects[1].startswith("Your receipt") and subjects[2].startswith("Your credit note")
    send_pending_checkout_emails.enqueue()
    assert len(mailoutbox) == 3


def test_a_line_refunded_before_it_was_reported_gets_no_registered_email(client, bought, staff, mailoutbox):
    order, payment = bought()
    # As if its confirmation had not gone out yet (a worker behind), and staff refunded it meanwhile.
    Registration.objects.filter(order=order).update(emailed_at=None)
    mailoutbox.clear()
    refund_from_the_admin(staff, payment)
    send_pending_checkout_emails.enqueue()
    assert [m.subject.split(" ")[1] for m in mailoutbox] == ["credit"]


def test_a_dashboard_refund_marks_the_domain_refunded_too(client, bought, stripe_sandbox):
    order, payment = bought()
    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id)
    deliver(stripe_sandbox, "refund.created", "charge.refunded")
    order.refresh_from_db()
    assert order.refunded_at is not None
    assert payment.lines.get().status == PaymentLine.Status.REFUNDED


def test_an_open_dispute_pauses_auto_renew_and_a_lost_one_marks_the_domain_refunded(
    client,
    bought,
    stripe_sandbox,
    buyer,  # noqa: F811
):
    order, payment = bought()
    Order.objects.filter(pk=order.pk).update(auto_renew=True, expires_at=timezone.now() + dt.timedelta(days=5))
    dispute = stripe_sandbox.open_dispute(payment.stripe_payment_intent_id)
    deliver(stripe_sandbox, "charge.dispute.created")
    order.refresh_from_db()
    assert order.disputed_at is not None and order.refunded_at is None
    intents_before = len(stripe_sandbox.calls("/payment_intents"))
    assert auto_renew_order(order=order) == Outcome.PAUSED
    assert len(stripe_sandbox.calls("/payment_intents")) == intents_before  # nothing charged
    order.refresh_from_db()
    assert order.auto_renew  # waits, still on

    stripe_sandbox.close_dispute(dispute["id"], won=False)
    deliver(stripe_sandbox, "charge.dispute.closed")
    order.refresh_from_db()
    assert (order.disputed_at, order.auto_renew) == (None, False)
    assert order.refunded_at is not None  # the money went back to the cardholder


def test_a_domain_whose_hold_lapsed_asks_for_its_payment(client, bought, stripe_sandbox):
    order, payment = bought()
    # As the lapse leaves it when the saved card is refused: registered, not paid.
    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.UNPAID, unpaid_since=timezone.now())
    page = client.get(f"/orders/{order.order_id}/").content.decode()
    assert f"Payment due: ${payment.amount}." in page  # the registration's retail price, whatever the markup
    assert f'href="/payments/pay/{payment.checkout_id}/"' in page
    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.WRITTEN_OFF)
    assert "Payment due" not in client.get(f"/orders/{order.order_id}/").content.decode()


def test_the_reconciler_settles_a_checkout_whose_customer_never_came_back(client, buyer, stripe_sandbox):  # noqa: F811
    name = fresh()
    put_in_cart(client, line(name))
    payment, *_ = start_paying(client)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    reconcile_payments.enqueue()
    registration = Registration.objects.get(checkout_id=payment.checkout_id)
    assert registration.status == Registration.Status.REGISTERED
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, payment.amount)
