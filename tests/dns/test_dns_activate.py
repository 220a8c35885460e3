"""POST /orders/<order_id>/dns/activate/: one button, one provider call, however often it is pressed."""

import pytest

from storefront.gateway import gateway
from tests.dns.conftest import url
from tests.fakes.gateway import DNS_METHODS

pytestmark = pytest.mark.django_db


def test_opening_the_editor_turns_dns_on_once(signed_in, order, fake_gateway, provider_calls):
    response = signed_in.get(url("dns", order))
    assert response.status_code == 200
    page = response.content.decode()
    assert f"DNS is on for {order.domain_name}. You can add records now." in page
    assert "Add a record" in page
    assert "Activate DNS" not in page
    order.refresh_from_db()
    assert order.dns_active
    assert fake_gateway.order(order.order_id).dns_active
    # Opened again (another tab, a reload): no second activation, no notice.
    again = signed_in.get(url("dns", order)).content.decode()
    assert "DNS is on for" not in again
    assert provider_calls.count("dns_activate") == 1


def test_when_turning_dns_on_fails_the_editor_offers_the_button_with_the_reason(
    signed_in, order, fake_gateway, provider_calls
):
    with fake_gateway.outage(*DNS_METHODS):
        response = signed_in.get(url("dns", order))
    page = response.content.decode()
    assert f"We could not turn on DNS for {order.domain_name} just now. Please try the button below" in page
    assert "Activate DNS" in page
    assert "Add a record" not in page
    order.refresh_from_db()
    assert not order.dns_active


def test_it_activates_dns(signed_in, order, fake_gateway, provider_calls):
    response = signed_in.post(url("dns_activate", order), follow=True)
    assert response.redirect_chain[-1][0] == url("dns", order)  # the whole zone, nameservers included
    assert b"DNS is active" in response.content
    assert b"Add a record" in response.content
    order.refresh_from_db()
    assert order.dns_active
    assert fake_gateway.order(order.order_id).dns_active
    assert provider_calls.count("dns_activate") == 1


def test_a_double_submit_calls_the_provider_once(signed_in, order, provider_calls):
    signed_in.post(url("dns_activate", order))
    response = signed_in.post(url("dns_activate", order), follow=True)
    assert b"DNS was already active" in response.content
    assert provider_calls.count("dns_activate") == 1


def test_a_request_that_lost_the_race_makes_no_call(order, provider_calls):
    from dns.services import dns_activate

    # Two submits arrive together: the second reads the row before the first has claimed it.
    first, second = type(order).objects.get(pk=order.pk), type(order).objects.get(pk=order.pk)
    assert dns_activate(order=first) is True
    assert dns_activate(order=second) is False
    assert second.dns_active
    assert provider_calls.count("dns_activate") == 1


@pytest.mark.django_db(transaction=True)  # two requests on two connections
def test_two_submits_at_the_same_time_call_the_provider_once(signed_in, order, provider_calls, fake_gateway):
    import threading

    from django.db import connection
    from django.test import Client

    user = order.customer.user
    answers: list[int] = []

    def submit() -> None:
        client = Client()
        client.force_login(user)
        try:
            answers.append(client.post(url("dns_activate", order)).status_code)
        finally:
            connection.close()

    fake_gateway.slow("dns_activate", 0.4)  # the second submit arrives while the first is at the provider
    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [302, 302]
    assert provider_calls.count("dns_activate") == 1
    order.refresh_from_db()
    assert order.dns_active


def test_dns_already_active_at_the_provider_counts_as_active(signed_in, order, provider_calls):
    gateway().dns_activate(order_id=order.order_id)  # activated elsewhere, our flag still off
    provider_calls.clear()
    response = signed_in.post(url("dns_activate", order), follow=True)
    assert response.status_code == 200
    order.refresh_from_db()
    assert order.dns_active
    assert b"Add a record" in response.content
    assert provider_calls.count("dns_activate") == 1


def test_a_provider_failure_is_shown_and_can_be_retried(signed_in, order, provider_calls, fake_gateway):
    with fake_gateway.outage(*DNS_METHODS):
        response = signed_in.post(url("dns_activate", order))
    assert response.status_code == 503
    assert b"Activate DNS" in response.content
    assert b"notice-error" in response.content
    order.refresh_from_db()
    assert not order.dns_active

    signed_in.post(url("dns_activate", order))
    order.refresh_from_db()
    assert order.dns_active


def test_the_button_comes_back_when_the_provider_says_dns_is_off(signed_in, order, provider_calls):
    order.dns_active = True  # our flag says on; the provider never activated it
    order.save(update_fields=["dns_active"])
    response = signed_in.get(url("dns", order))
    assert response.status_code == 200
    assert b"Activate DNS" in response.content
    order.refresh_from_db()
    assert not order.dns_active

    signed_in.post(url("dns_activate", order))
    order.refresh_from_db()
    assert order.dns_active
