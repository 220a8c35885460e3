"""Back from paying for a renewal while the worker renews it: a page that updates by itself, then the domain's page
with what happened (the worker, not the request, renews: a slow provider never holds the customer's request)."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from billing.models import Payment
from domains.models import Renewal
from tests.factories import OrderFactory, RenewalFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def renewing(client, fake_gateway):
    order = OrderFactory()
    client.force_login(order.customer.user)
    token = uuid.uuid4()
    payment = Payment.objects.create(
        customer=order.customer,
        checkout_id=token,
        status=Payment.Status.AUTHORISED,
        currency="USD",
        amount=Decimal("14.99"),
        amount_authorised=Decimal("14.99"),
    )
    return order, payment, RenewalFactory(order=order, token=token, status=Renewal.PENDING, price=Decimal("14.99"))


def test_the_return_waits_while_the_renewal_is_being_sent(client, renewing):
    order, payment, _ = renewing
    url = f"/orders/{order.order_id}/?renewal={payment.checkout_id}"
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "We are renewing the domain now; this page updates by itself." in html
    again = f"/orders/{order.order_id}/?renewal={payment.checkout_id}&amp;polls=1"
    assert f'hx-get="{again}"' in html and f'content="3; url={again}"' in html
    # The page's own poll gets the fragment alone while it waits.
    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert 'id="renewal-wait"' in fragment
    assert "<html" not in fragment


def test_once_renewed_the_poll_leads_to_the_domain_page_with_what_happened(client, renewing):
    order, payment, renewal = renewing
    Renewal.objects.filter(pk=renewal.pk).update(status=Renewal.RENEWED)
    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.CAPTURED, amount_captured=Decimal("14.99"))
    url = f"/orders/{order.order_id}/?renewal={payment.checkout_id}"
    answer = client.get(url, headers={"HX-Request": "true"})
    assert answer["HX-Redirect"] == f"/orders/{order.order_id}/"
    # The message waits for that page.
    assert "Your card was charged $14.99." in client.get(f"/orders/{order.order_id}/").content.decode()


def test_a_payment_never_confirmed_is_waited_for_a_while_then_said_so(client, renewing):
    order, payment, _ = renewing
    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.CREATED)  # Stripe has not confirmed it
    url = f"/orders/{order.order_id}/?renewal={payment.checkout_id}"
    assert "We are confirming your payment" in client.get(url).content.decode()
    last = client.get(url + "&polls=15", headers={"HX-Request": "true"})
    assert last["HX-Redirect"] == f"/orders/{order.order_id}/"
    assert "Your payment is not confirmed yet" in client.get(f"/orders/{order.order_id}/").content.decode()
