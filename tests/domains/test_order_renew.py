"""Renewing a domain, POST /orders/<order_id>/renew/ (duration, renew_token)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from domains.models import Order

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def url(order: Order) -> str:
    return reverse("order_renew", args=[order.order_id])


def open_page(client, order: Order) -> str:
    """Render the domain page, as the customer does before renewing; the renew token it carries."""
    assert client.get(reverse("order_detail", args=[order.order_id])).status_code == 200
    return client.session["renew_tokens"][str(order.order_id)][-1]


def renew_calls(calls: list) -> int:
    return sum(1 for name, _ in calls if name == "domain_renew")


def years_later(moment: dt.datetime, years: int) -> dt.datetime:
    return moment.replace(year=moment.year + years)


def test_it_checks_ownership(client, customer, other_customer, sandbox_orders, provider_calls):
    order = sandbox_orders.register(customer, "notyourstorenew.com")
    before = sandbox_orders.at_sandbox(order).expires_at
    client.force_login(other_customer.user)
    provider_calls.clear()

    response = client.post(url(order), {"duration": 1, "renew_token": str(uuid.uuid4())})

    assert response.status_code == 404
    assert provider_calls == []
    assert sandbox_orders.at_sandbox(order).expires_at == before


def test_it_only_accepts_post(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "getrenew.com")

    assert signed_in.get(url(order)).status_code == 405


def test_it_renews_and_says_until_when(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "renewme.com")
    before = sandbox_orders.at_sandbox(order).expires_at
    token = open_page(signed_in, order)

    response = signed_in.post(url(order), {"duration": 2, "renew_token": token}, follow=True)

    after = sandbox_orders.at_sandbox(order).expires_at
    assert after == years_later(before, 2)
    assert f"Renewed until {after.strftime('%b %-d, %Y')}." in response.content.decode()
    order.refresh_from_db()
    assert order.expires_at == after


def test_a_stale_page_renews_with_the_expiry_of_right_now(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "twotabs.com")
    before = sandbox_orders.at_sandbox(order).expires_at
    first_tab = open_page(signed_in, order)
    second_tab = open_page(signed_in, order)
    assert signed_in.post(url(order), {"duration": 1, "renew_token": second_tab}).status_code == 302

    # The first tab still shows the old expiry; a forged expiry in the form is ignored too.
    response = signed_in.post(
        url(order),
        {"duration": 1, "renew_token": first_tab, "expiry_timestamp": int(before.timestamp())},
        follow=True,
    )

    assert "Renewed until" in response.content.decode()
    assert sandbox_orders.at_sandbox(order).expires_at == years_later(before, 2)


def test_a_double_submit_renews_once(signed_in, customer, sandbox_orders, provider_calls):
    order = sandbox_orders.register(customer, "doubleclick.com")
    before = sandbox_orders.at_sandbox(order).expires_at
    token = open_page(signed_in, order)

    signed_in.post(url(order), {"duration": 1, "renew_token": token})
    response = signed_in.post(url(order), {"duration": 1, "renew_token": token}, follow=True)

    assert "Already renewed" in response.content.decode()
    assert renew_calls(provider_calls) == 1
    assert sandbox_orders.at_sandbox(order).expires_at == years_later(before, 1)


def test_an_expired_domain_is_renewed_from_its_expiry(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "lapsedrenew.com")
    sandbox_orders.set_expiry_in_days(order, -5)
    before = sandbox_orders.at_sandbox(order).expires_at
    token = open_page(signed_in, order)

    response = signed_in.post(url(order), {"duration": 1, "renew_token": token}, follow=True)

    assert "Renewed until" in response.content.decode()
    assert sandbox_orders.at_sandbox(order).expires_at == years_later(before, 1)


def test_pending_delete_is_not_renewed(signed_in, customer, sandbox_orders, provider_calls):
    order = sandbox_orders.register(customer, "restoreme.com")
    token = open_page(signed_in, order)
    # It went into pending delete while the page was open.
    sandbox_orders.set_status(order, "Pending Delete Restorable")
    before = sandbox_orders.at_sandbox(order).expires_at

    response = signed_in.post(url(order), {"duration": 1, "renew_token": token})

    assert response.status_code == 200
    assert "must be restored, not renewed" in response.content.decode()
    assert renew_calls(provider_calls) == 0
    assert sandbox_orders.at_sandbox(order).expires_at == before


def test_a_refused_renewal_is_said_honestly_and_the_form_can_be_sent_again(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "nofunds.com")
    before = sandbox_orders.at_sandbox(order).expires_at
    token = open_page(signed_in, order)
    sandbox_orders.control.set_balance(Decimal("0.00"), partner=sandbox_orders.at_sandbox(order).partner)

    response = signed_in.post(url(order), {"duration": 1, "renew_token": token})

    assert response.status_code == 200
    html = response.content.decode()
    assert "refused this renewal; you have not been charged" in html
    assert "Renewed until" not in html
    assert "Failed to renew the domain order" not in html  # the provider's text is for staff
    assert sandbox_orders.at_sandbox(order).expires_at == before

    # Nothing was renewed, so the same form goes through once the balance is back.
    sandbox_orders.control.set_balance(Decimal("1000.00"), partner=sandbox_orders.at_sandbox(order).partner)
    response = signed_in.post(url(order), {"duration": 1, "renew_token": token}, follow=True)
    assert "Renewed until" in response.content.decode()


def test_a_minimum_term_refusal_is_explained(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "smartthing.ai", duration=2)
    token = open_page(signed_in, order)

    response = signed_in.post(url(order), {"duration": 1, "renew_token": token}, follow=True)

    # Known from the price list before anything is sent: the provider's refusal would not say why.
    assert "This extension needs at least 2 years" in response.content.decode()
    assert "Renewed until" not in response.content.decode()


def test_a_lost_answer_is_never_sent_again_by_the_same_form(
    signed_in, customer, sandbox_orders, provider_calls, sandbox_control
):
    order = sandbox_orders.register(customer, "lostanswer.com")
    before = sandbox_orders.at_sandbox(order).expires_at
    token = open_page(signed_in, order)

    with sandbox_control.fault(hang_seconds=3, hang_after_commit=True, scope="renew"):
        response = signed_in.post(url(order), {"duration": 1, "renew_token": token})
    assert "could not confirm the renewal" in response.content.decode()

    again = signed_in.post(url(order), {"duration": 1, "renew_token": token}, follow=True)

    assert "could not be confirmed" in again.content.decode()
    assert renew_calls(provider_calls) == 1
    assert sandbox_orders.at_sandbox(order).expires_at == years_later(before, 1)


def test_a_bad_duration_is_refused_on_the_form(signed_in, customer, sandbox_orders, provider_calls):
    order = sandbox_orders.register(customer, "toolong.com")
    token = open_page(signed_in, order)

    response = signed_in.post(url(order), {"duration": 12, "renew_token": token})

    assert response.status_code == 200
    assert "Choose a renewal term between 1 and 9 years." in response.content.decode()
    assert renew_calls(provider_calls) == 0


def test_a_form_we_did_not_issue_is_refused(signed_in, customer, sandbox_orders, provider_calls):
    order = sandbox_orders.register(customer, "forged.com")
    open_page(signed_in, order)

    response = signed_in.post(url(order), {"duration": 1, "renew_token": str(uuid.uuid4())})

    assert "This form has expired" in response.content.decode()
    assert renew_calls(provider_calls) == 0
