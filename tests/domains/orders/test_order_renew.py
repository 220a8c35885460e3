"""Renewing a domain, POST /orders/<order_id>/renew/ (duration, renew_token, expiry_timestamp, then confirm).

The first POST shows the price and the new expiry; the confirmation renews, once per form, from the expiry the
page showed. Every renewal asked for is recorded (domains.Renewal).
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from decimal import Decimal

import pytest
from django.core import mail
from django.core.cache import cache
from django.urls import reverse

from domains.models import Order, Renewal
from domains.orders.services import renew_quote
from pricing.models import Operation, PriceRule
from storefront.models import OutgoingEmail

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


def url(order: Order) -> str:
    return reverse("order_renew", args=[order.order_id])


def open_page(client, order: Order) -> dict[str, str]:
    """Render the domain page, as the customer does before renewing; the renew form's hidden fields."""
    response = client.get(reverse("order_detail", args=[order.order_id]))
    assert response.status_code == 200
    html = response.content.decode()
    form = html[html.index('class="renew-form"') :]
    fields = dict(re.findall(r'name="(renew_token|expiry_timestamp)" value="([^"]*)"', form)[:2])
    assert set(fields) == {"renew_token", "expiry_timestamp"}
    return fields


def offered_terms(client, order: Order) -> list[int]:
    html = client.get(reverse("order_detail", args=[order.order_id])).content.decode()
    select = html[html.index('name="duration"') : html.index("</select>")]
    return [int(years) for years in re.findall(r'<option value="(\d+)"', select)]


def confirm(client, order: Order, form: dict[str, str], duration: int, **kwargs):
    """The confirmation's button, as the browser presses it: with the price the confirmation page showed."""
    return client.post(
        url(order), {**form, "duration": duration, "confirm": "on", **price_shown(order, duration)}, **kwargs
    )


def price_shown(order: Order, duration: int) -> dict[str, str]:
    """The price the confirmation page shows for this term (today's retail price: no provider call)."""
    quote = renew_quote(domain_name=order.domain_name, years=duration)
    return {"price_shown": str(quote.retail.amount)} if quote is not None else {}


def renew_calls(calls: list) -> int:
    return sum(1 for name, _ in calls if name == "domain_renew")


def years_later(moment: dt.datetime, years: int) -> dt.datetime:
    return moment.replace(year=moment.year + years)


def test_the_first_step_shows_the_price_and_the_new_expiry_and_renews_nothing(
    signed_in, customer, provider_orders, provider_calls
):
    order = provider_orders.register(customer, "lookfirst.com")
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)

    response = signed_in.post(url(order), {**form, "duration": 3})

    html = response.content.decode()
    assert response.status_code == 200
    assert "Confirm the renewal of lookfirst.com" in html
    assert "3 years" in html
    assert years_later(before, 3).strftime("%b %-d, %Y") in html  # the new expiry
    assert "Renew now for $49.47" in html  # the price on the button: 3 * 14.99 at cost, plus 1.50 a year
    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == before
    assert not Renewal.objects.exists()


@pytest.mark.django_db(transaction=True)  # the email is sent by a task enqueued on commit
def test_it_renews_records_it_and_emails_the_customer(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "renewme.com")
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)

    response = confirm(signed_in, order, form, 2, follow=True)

    after = provider_orders.at_provider(order).expires_at
    assert after == years_later(before, 2)
    html = response.content.decode()
    assert f"Renewed until {after.strftime('%b %-d, %Y')}." in html
    order.refresh_from_db()
    assert order.expires_at == after
    renewal = Renewal.objects.get()
    assert (renewal.customer, renewal.order, renewal.duration, renewal.status) == (customer, order, 2, "renewed")
    assert (renewal.old_expires_at, renewal.new_expires_at) == (before, after)
    # What the customer owes is the retail price of two years, the store's 1.50 a year on the renewal cost; staff
    # see what it cost us (the demo catalogue's .com renewal, 2 * 14.99) and what we kept.
    assert (renewal.price, renewal.currency) == (Decimal("32.98"), "USD"), "not the retail renewal price"
    assert renewal.cost_price == Decimal("29.98")
    assert renewal.margin == Decimal("3.00")
    assert str(renewal.token) == form["renew_token"]
    # The customer sees it on the order page...
    assert "Renewals" in html and f"{before:%b %-d, %Y} → {after:%b %-d, %Y}" in html
    # ...and by email, sent once.
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [customer.email]
    assert "renewme.com" in mail.outbox[0].subject and after.strftime("%b %-d, %Y") in mail.outbox[0].subject
    assert OutgoingEmail.objects.get(key=f"renewal:{renewal.pk}").sent_at is not None


def test_a_stale_tab_shows_the_new_expiry_and_renews_nothing(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "twotabs.com")
    before = provider_orders.at_provider(order).expires_at
    first_tab = open_page(signed_in, order)
    second_tab = open_page(signed_in, order)
    assert "Renewed until" in confirm(signed_in, order, second_tab, 1, follow=True).content.decode()
    provider_calls.clear()

    # The first tab still shows the old expiry: the customer is shown the new one and confirms again.
    response = confirm(signed_in, order, first_tab, 1)

    html = response.content.decode()
    assert "expiry date changed since this page was opened, so nothing was renewed" in html
    assert years_later(before, 1).strftime("%b %-d, %Y") in html  # the current expiry
    assert "Renewed until" not in html
    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    # The page carries the new expiry: confirming from it renews.
    fresh = open_page(signed_in, order)
    assert int(fresh["expiry_timestamp"]) == int(years_later(before, 1).timestamp())
    assert confirm(signed_in, order, fresh, 1).status_code == 302
    assert provider_orders.at_provider(order).expires_at == years_later(before, 2)


def test_a_stale_tab_is_caught_at_the_first_step_too(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "staleearly.com")
    form = open_page(signed_in, order)
    provider_orders.set_expiry_in_days(order, 700)  # renewed elsewhere (staff, the panel)

    response = signed_in.post(url(order), {**form, "duration": 1})

    assert "expiry date changed" in response.content.decode()
    assert "Confirm the renewal" not in response.content.decode()


def test_a_double_submit_renews_once_whatever_the_cache(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "doubleclick.com")
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)

    confirm(signed_in, order, form, 1)
    cache.clear()  # as another worker process with its own cache would see it
    response = confirm(signed_in, order, form, 1, follow=True)

    assert "Already renewed" in response.content.decode()
    assert renew_calls(provider_calls) == 1
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    assert Renewal.objects.count() == 1


def test_back_and_confirm_again_renews_once(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "backbutton.com")
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)
    signed_in.post(url(order), {**form, "duration": 2})  # the confirmation page
    confirm(signed_in, order, form, 2)

    # Back to the confirmation page (the browser's copy) and its button pressed again.
    response = confirm(signed_in, order, form, 2, follow=True)

    assert "Already renewed" in response.content.decode()
    assert renew_calls(provider_calls) == 1
    assert provider_orders.at_provider(order).expires_at == years_later(before, 2)


def test_a_claim_in_progress_refuses_a_second_submit(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "inflight.com")
    form = open_page(signed_in, order)
    # The first submit, in another process, is still with the provider.
    Renewal.objects.create(
        customer=customer,
        order=order,
        provider_order_id=order.order_id,
        domain_name=order.domain_name,
        duration=1,
        token=form["renew_token"],
    )
    provider_calls.clear()

    response = confirm(signed_in, order, form, 1, follow=True)

    assert "already being processed" in response.content.decode()
    assert renew_calls(provider_calls) == 0


def test_only_terms_within_ten_years_of_today_are_offered(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "farahead.com")
    provider_orders.set_expiry_in_days(order, 365 * 7 + 30)  # a little over seven years left

    assert offered_terms(signed_in, order) == [1, 2]
    form = open_page(signed_in, order)
    provider_calls.clear()

    response = confirm(signed_in, order, form, 3)

    assert "Choose a renewal term between 1 and 2 years." in response.content.decode()
    assert renew_calls(provider_calls) == 0


def test_a_domain_renewed_to_the_limit_offers_no_term(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "atthelimit.com")
    provider_orders.set_expiry_in_days(order, 365 * 9 + 300)

    html = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()

    assert "already renewed as far as the registry allows" in html
    assert 'name="duration"' not in html


def test_the_tld_minimum_renewal_term_is_respected(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "smartthing.ai", duration=2)

    assert offered_terms(signed_in, order)[0] == 2


def test_an_expired_domain_is_renewed_from_its_expiry(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "lapsedrenew.com")
    provider_orders.set_expiry_in_days(order, -5)
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)

    response = confirm(signed_in, order, form, 1, follow=True)

    assert "Renewed until" in response.content.decode()
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)


def test_pending_delete_is_not_renewed(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "restoreme.com")
    form = open_page(signed_in, order)
    # It went into pending delete while the page was open.
    provider_orders.set_status(order, "Pending Delete Restorable")
    before = provider_orders.at_provider(order).expires_at

    response = confirm(signed_in, order, form, 1)

    assert response.status_code == 200
    assert "must be restored, not renewed" in response.content.decode()
    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == before


def test_a_refused_renewal_is_said_honestly_and_the_form_can_be_sent_again(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "nofunds.com")
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)
    provider_orders.control.set_balance(Decimal("0.00"), partner=provider_orders.at_provider(order).partner)

    response = confirm(signed_in, order, form, 1)

    assert response.status_code == 200
    html = response.content.decode()
    assert "refused this renewal; you have not been charged" in html
    assert "Renewed until" not in html
    assert "Failed to renew the domain order" not in html  # the provider's text is for staff
    assert provider_orders.at_provider(order).expires_at == before
    assert Renewal.objects.get().status == Renewal.FAILED

    # Nothing was renewed, so the same form goes through once the balance is back.
    provider_orders.control.set_balance(Decimal("1000.00"), partner=provider_orders.at_provider(order).partner)
    response = confirm(signed_in, order, form, 1, follow=True)
    assert "Renewed until" in response.content.decode()
    assert Renewal.objects.get().status == Renewal.RENEWED


def test_a_minimum_term_below_the_tld_is_refused_before_anything_is_sent(
    signed_in, customer, provider_orders, provider_calls
):
    order = provider_orders.register(customer, "smartthing.ai", duration=2)
    form = open_page(signed_in, order)
    provider_calls.clear()

    response = confirm(signed_in, order, form, 1, follow=True)

    assert "Choose a renewal term between 2 and" in response.content.decode()
    assert "Renewed until" not in response.content.decode()
    assert renew_calls(provider_calls) == 0


def test_a_lost_answer_is_never_sent_again_by_the_same_form(
    signed_in, customer, provider_orders, provider_calls, fake_gateway
):
    order = provider_orders.register(customer, "lostanswer.com")
    before = provider_orders.at_provider(order).expires_at
    form = open_page(signed_in, order)

    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="renew"):
        response = confirm(signed_in, order, form, 1)
    assert "could not confirm the renewal" in response.content.decode()

    again = confirm(signed_in, order, form, 1, follow=True)

    assert "could not be confirmed" in again.content.decode()
    assert renew_calls(provider_calls) == 1
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    assert Renewal.objects.get().status == Renewal.UNKNOWN


def test_a_bad_duration_is_refused_on_the_form(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "toolong.com")
    form = open_page(signed_in, order)

    response = confirm(signed_in, order, form, 12)

    assert response.status_code == 200
    assert "Choose a renewal term between 1 and 9 years." in response.content.decode()
    assert renew_calls(provider_calls) == 0


def test_a_form_we_did_not_issue_is_refused(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "forged.com")
    form = open_page(signed_in, order)

    response = confirm(signed_in, order, {**form, "renew_token": str(uuid.uuid4())}, 1)

    assert "This form has expired" in response.content.decode()
    assert renew_calls(provider_calls) == 0


def test_staff_see_renewals_in_the_admin(signed_in, customer, provider_orders, admin_client):
    order = provider_orders.register(customer, "adminsees.com")
    confirm(signed_in, order, open_page(signed_in, order), 1)

    html = admin_client.get(reverse("admin:domains_renewal_changelist")).content.decode()

    assert "adminsees.com" in html and customer.email in html and "Renewed" in html


def test_a_price_that_moved_between_the_two_steps_renews_nothing_and_shows_the_new_one(
    signed_in, customer, provider_orders, provider_calls
):
    order = provider_orders.register(customer, "movedprice.com")
    form = open_page(signed_in, order)
    shown = price_shown(order, 1)  # the confirmation page's price
    PriceRule.objects.create(tld="com", operation=Operation.RENEW, kind="fixed_price", amount=Decimal("40.00"))

    response = signed_in.post(url(order), {**form, "duration": 1, "confirm": "on", **shown})

    html = response.content.decode()
    assert f"changed from ${shown['price_shown']} to $40.00" in html
    assert "nothing was renewed or charged" in html
    assert renew_calls(provider_calls) == 0
    assert not Renewal.objects.filter(order=order).exists()
