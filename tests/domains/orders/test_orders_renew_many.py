"""Renewing several domains in one payment from the order list (POST /orders/renew/): tick them, one confirmation,
one payment (the saved card in one click, or the payment page), each line renewed once; a line that cannot be
renewed is not charged (its part of the hold released); the outcome page says what became of each."""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Activity
from billing.models import Payment, PaymentLine
from domains.models import Order, Renewal
from tests.domains.orders.test_acting import REFUSED, staff_member, start_acting
from tests.domains.orders.test_order_renew import renew_calls, years_later
from tests.domains.orders.test_order_renew_saved_card import intents_created, save_card

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)
GOOD_CARD = "4242 4242 4242 4242"


def tick(client, orders: list[Order]) -> str:
    """The order list's "Renew selected domains" with these ticked: the confirmation page."""
    listing = client.get(reverse("orders")).content.decode()
    for order in orders:
        assert f'name="order" value="{order.order_id}"' in listing
    response = client.post(reverse("orders_renew"), {"order": [order.order_id for order in orders]})
    assert response.status_code == 200, response.content
    return response.content.decode()


def confirmation(html: str) -> dict[str, object]:
    form = html[html.index('class="renew-form"') :]
    token = re.search(r'name="token" value="([^"]+)"', form)
    assert token is not None
    return {"token": token.group(1), "confirm": "on", "line": re.findall(r'name="line" value="([^"]+)"', form)}


def test_three_domains_one_click_one_payment_each_renewed(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox, mailoutbox
):
    save_card(signed_in, stripe_sandbox)
    orders = [provider_orders.register(customer, f"many{n}.com") for n in range(3)]
    before = {order.pk: provider_orders.at_provider(order).expires_at for order in orders}

    html = tick(signed_in, orders)
    assert all(order.domain_name in html for order in orders)
    assert "Charge $49.47 to Visa •••• 4242 and renew 3 domains" in html  # 3 times $16.49
    assert renew_calls(provider_calls) == 0
    response = signed_in.post(reverse("orders_renew"), {**confirmation(html), "pay_with": "card"})

    assert response.status_code == 303
    page = signed_in.get(response["Location"]).content.decode()
    for order in orders:
        after = provider_orders.at_provider(order).expires_at
        assert after == years_later(before[order.pk], 1)
        assert f"<strong>{order.domain_name}</strong>:" in page
        assert f"renewed until {after.strftime('%b %-d, %Y')}." in page
    assert "Your card was charged $49.47." in page
    payment = Payment.objects.get()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("49.47"))
    assert len(intents_created(stripe_sandbox)) == 1 and len(stripe_sandbox.captures()) == 1
    assert Renewal.objects.filter(status=Renewal.RENEWED).count() == 3
    assert len({renewal.token for renewal in Renewal.objects.all()}) == 3  # a renewal per line, none shared
    [receipt] = [m for m in mailoutbox if m.subject.startswith("Your receipt")]
    assert all(f"{order.domain_name}, renewal for 1 year: $16.49" in receipt.body for order in orders)
    assert Activity.objects.filter(action="renewal_card_charged").count() == 3


def test_a_double_click_pays_and_renews_each_once(signed_in, customer, provider_orders, provider_calls, stripe_sandbox):
    save_card(signed_in, stripe_sandbox)
    orders = [provider_orders.register(customer, f"twice{n}.com") for n in range(2)]
    form = {**confirmation(tick(signed_in, orders)), "pay_with": "card"}

    first = signed_in.post(reverse("orders_renew"), form)
    second = signed_in.post(reverse("orders_renew"), form)

    assert first.status_code == second.status_code == 303
    assert first["Location"] == second["Location"]
    assert len(intents_created(stripe_sandbox)) == 1
    assert renew_calls(provider_calls) == 2
    assert Payment.objects.count() == 1 and Renewal.objects.count() == 2


def test_a_line_that_cannot_be_renewed_is_released_and_the_others_captured(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    orders = [provider_orders.register(customer, name) for name in ("stays.com", "moves.com")]
    html = tick(signed_in, orders)
    assert "Charge $" not in html  # no saved card: the payment page
    response = signed_in.post(reverse("orders_renew"), {**confirmation(html), "pay_with": "page"})
    assert response["Location"].startswith(stripe_sandbox.api_base + "/pay/")
    payment = Payment.objects.get()
    # Renewed elsewhere while the customer was paying (another tab, staff): this line is not renewed again.
    provider_orders.set_expiry_in_days(orders[1], 700)
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"

    page = signed_in.get(reverse("orders_renewed", args=[payment.checkout_id])).content.decode()

    payment.refresh_from_db()
    assert (payment.status, payment.amount_authorised, payment.amount_captured) == (
        Payment.Status.PARTIALLY_CAPTURED,
        Decimal("32.98"),
        Decimal("16.49"),
    )
    lines = dict(payment.lines.values_list("reference", "status"))
    assert lines == {"stays.com": PaymentLine.Status.REGISTERED, "moves.com": PaymentLine.Status.FAILED}
    assert "<strong>stays.com</strong>:" in page and "renewed until" in page
    assert "not renewed, so its $16.49 was not charged (the hold on it is released)." in page
    assert "Your card was charged $16.49." in page
    assert renew_calls(provider_calls) == 1


def test_a_declined_saved_card_renews_nothing_and_offers_the_payment_page(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    save_card(signed_in, stripe_sandbox)
    orders = [provider_orders.register(customer, f"declinedmany{n}.com") for n in range(2)]
    form = confirmation(tick(signed_in, orders))
    stripe_sandbox.setup(decline_all_cards=True)

    html = signed_in.post(reverse("orders_renew"), {**form, "pay_with": "card"}).content.decode()

    assert "Your Visa •••• 4242 was declined, so nothing was charged and nothing was renewed." in html
    assert "Charge $" not in html and "Pay $32.98 and renew" in html
    assert confirmation(html)["token"] != form["token"]
    assert renew_calls(provider_calls) == 0 and stripe_sandbox.captures() == []


def test_another_customers_domain_is_not_found_before_any_call(
    signed_in, customer, other_customer, provider_orders, provider_calls, stripe_sandbox
):
    mine = provider_orders.register(customer, "minemany.com")
    theirs = provider_orders.register(other_customer, "theirsmany.com")
    provider_calls.clear()

    response = signed_in.post(reverse("orders_renew"), {"order": [mine.order_id, theirs.order_id]})
    outcome = signed_in.get(reverse("orders_renewed", args=[uuid.uuid4()]))

    assert response.status_code == outcome.status_code == 404
    assert provider_calls == []


def test_nothing_ticked_or_a_forged_line_says_so_and_charges_nothing(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "forged.com")
    empty = signed_in.post(reverse("orders_renew"), {}, follow=True).content.decode()
    forged = signed_in.post(
        reverse("orders_renew"),
        {"token": str(uuid.uuid4()), "confirm": "on", "line": f"{order.order_id}:1:1:0.01", "pay_with": "card"},
        follow=True,
    ).content.decode()

    assert "Tick the domains you want to renew." in empty
    assert "This form has expired. Please tick the domains again." in forged  # a token this browser was not given
    assert not Payment.objects.exists()


@pytest.mark.parametrize(
    "lines",
    [["{id}:1:1:0.01", "{id}:1:1:0.01"], ["{id}:1:1:sNaN"], ["{id}:1:1:Infinity"]],
    ids=["the same domain twice", "a signalling NaN price", "an infinite price"],
)
def test_a_crafted_confirmation_says_the_form_expired_never_a_500(
    signed_in, customer, provider_orders, stripe_sandbox, lines
):
    order = provider_orders.register(customer, "crafted.com")
    posted = confirmation(tick(signed_in, [order]))  # this browser's own token, from its own first step
    crafted = {**posted, "pay_with": "card", "line": [line.format(id=order.order_id) for line in lines]}
    response = signed_in.post(reverse("orders_renew"), crafted, follow=True)
    assert response.status_code == 200
    assert "This form has expired. Please tick the domains again." in response.content.decode()
    assert not Payment.objects.exists()


def test_staff_acting_as_the_customer_cannot_renew_several(client, customer, provider_orders):
    order = provider_orders.register(customer, "actingmany.com")
    start_acting(client, staff_member(), customer)

    response = client.post(reverse("orders_renew"), {"order": [order.order_id]})

    assert response.status_code == 403 and REFUSED in response.content.decode()
    assert Client().get(reverse("orders")).status_code == 302


def test_a_payment_page_left_unpaid_is_said_so_after_a_while_not_waited_for_forever(
    signed_in, customer, provider_orders, stripe_sandbox
):
    orders = [provider_orders.register(customer, f"leftunpaid{n}.com") for n in range(2)]
    response = signed_in.post(reverse("orders_renew"), {**confirmation(tick(signed_in, orders)), "pay_with": "page"})
    assert response.status_code == 303
    checkout_id = Payment.objects.get().checkout_id
    url = reverse("orders_renewed", args=[checkout_id])

    waiting = signed_in.get(url).content.decode()
    given_up = signed_in.get(url + "?polls=15").content.decode()

    assert "this page updates by itself" in waiting and 'hx-trigger="every 2s"' in waiting
    assert "Your payment is not confirmed yet." in given_up and "hx-trigger" not in given_up
    assert "waiting to be renewed" in given_up
