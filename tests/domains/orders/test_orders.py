"""The order dashboard, /orders/: the customer's domains from the provider's listing."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from domains.models import Order, Registration
from domains.orders.services import orders_cache_invalidate

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db

URL = reverse("orders")


def test_an_htmx_request_after_the_session_ended_sends_the_page_to_sign_in(client):
    response = client.get(
        URL, {"page": 2}, headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/orders/?page=2"}
    )

    assert response.status_code == 200
    assert response["HX-Redirect"].startswith(reverse("login"))
    assert "next=/orders/%3Fpage%3D2" in response["HX-Redirect"]


def test_it_lists_the_customers_domains(signed_in, customer, other_customer, provider_orders):
    mine = provider_orders.register(customer, "gracefulcode.com", duration=2)
    provider_orders.register(other_customer, "alansmachine.com")

    response = signed_in.get(URL)

    assert response.status_code == 200
    body = response.content.decode()
    assert "gracefulcode.com" in body
    assert reverse("order_detail", args=[mine.order_id]) in body
    assert "Active" in body
    assert "Registered and working." in body
    assert "alansmachine.com" not in body
    assert 'id="orders-q"' in body
    # Expiry date and what is left, two years out.
    assert "in 2 years" in body


def test_it_shows_an_empty_state_with_a_way_to_search(signed_in):
    response = signed_in.get(URL)

    assert response.status_code == 200
    body = response.content.decode()
    assert "You don't have any domains yet" in body
    assert reverse("home") in body
    assert 'id="orders-q"' not in body  # nothing to search yet


def test_it_tells_a_customer_without_provider_account_that_it_is_being_confirmed(client, customer, provider_calls):
    customer.customer_id = None
    customer.save()
    client.force_login(customer.user)

    response = client.get(URL)

    assert response.status_code == 200
    assert "Your account is being confirmed" in response.content.decode()
    assert provider_calls == []


def test_it_paginates_like_the_provider(signed_in, customer, provider_orders):
    for n in range(12):
        provider_orders.register(customer, f"pagetest{n:02d}.com")

    first = signed_in.get(URL).content.decode()
    second = signed_in.get(URL, {"page": 2}).content.decode()

    assert first.count('class="order-domain"') == 10
    assert "page 1 of 2" in first
    assert "?page=2" in first
    assert second.count('class="order-domain"') == 2
    assert "page 2 of 2" in second
    assert "?page=1" in second
    assert "?page=3" not in second


def test_the_page_count_follows_the_providers_total(signed_in, customer, provider_orders):
    for n in range(21):
        provider_orders.register(customer, f"counted{n:02d}.net")

    first = signed_in.get(URL).content.decode()
    last = signed_in.get(URL, {"page": 3}).content.decode()

    assert "21 domains" in first
    assert "page 1 of 3" in first
    assert last.count('class="order-domain"') == 1
    assert "Next" not in last


def test_pagination_and_search_answer_htmx_with_the_table_only(signed_in, customer, provider_orders):
    for n in range(11):
        provider_orders.register(customer, f"fragment{n:02d}.org")

    response = signed_in.get(URL, {"page": 2}, headers={"HX-Request": "true"})

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert body.count('class="order-domain"') == 1
    assert 'hx-push-url="true"' in body
    assert response["Vary"] and "HX-Request" in response["Vary"]


def test_a_history_restore_gets_the_full_page(signed_in, customer):
    response = signed_in.get(URL, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})

    assert "<html" in response.content.decode()


def test_it_searches_by_domain_name(signed_in, customer, provider_orders):
    provider_orders.register(customer, "bakery-berlin.com")
    provider_orders.register(customer, "florist-paris.com")

    response = signed_in.get(URL, {"q": "bakery"})

    body = response.content.decode()
    assert "bakery-berlin.com" in body
    assert "florist-paris.com" not in body
    assert 'value="bakery"' in body
    assert "matching “bakery”" in body


def test_a_search_without_match_says_so(signed_in, customer, provider_orders):
    provider_orders.register(customer, "bakery-berlin.com")

    response = signed_in.get(URL, {"q": "nothing-like-it"})

    assert "None of your domains match “nothing-like-it”" in response.content.decode()


def test_an_expired_domain_is_shown_as_expired_and_stands_out(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "lapsed.com")
    provider_orders.set_expiry_in_days(order, -3.5)

    response = signed_in.get(URL)

    body = response.content.decode()
    assert "Expired" in body
    assert "expired 3 days ago" in body
    assert "order-row order-expired" in body
    assert "Renew it to keep the domain." in body


def test_a_domain_expiring_within_30_days_stands_out(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "nearly.com")
    provider_orders.set_expiry_in_days(order, 23.5)

    body = signed_in.get(URL).content.decode()

    assert "in 23 days" in body
    assert "order-row order-soon" in body
    assert "Expires soon" in body


def test_each_status_has_its_badge_and_meaning(signed_in, customer, provider_orders):
    provider_orders.set_status(provider_orders.register(customer, "onhold.com"), "Suspended")
    provider_orders.set_status(provider_orders.register(customer, "goingaway.com"), "Pending Delete Restorable")

    body = signed_in.get(URL).content.decode()

    assert '<span class="badge badge-warn">Suspended</span>' in body
    assert '<span class="badge badge-bad">Pending Delete Restorable</span>' in body
    assert "restored (not renewed)" in body
    assert "order-row order-pending" in body  # stands out: it needs support whatever its date


def test_it_refreshes_the_local_copy(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "copied.com", duration=3)

    signed_in.get(URL)

    order.refresh_from_db()
    assert order.status == "Active"
    assert order.expiry_timestamp
    assert order.expires_at is not None
    assert order.last_synced_at is not None


def test_it_adds_orders_missing_from_the_local_copy(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "unseen.com")
    Order.objects.filter(pk=order.pk).delete()

    signed_in.get(URL)

    assert Order.objects.get(order_id=order.order_id).customer == customer


def test_it_calls_the_provider_once_then_serves_from_the_cache(signed_in, customer, provider_calls, provider_orders):
    provider_orders.register(customer, "cached.com")
    provider_calls.clear()

    signed_in.get(URL)
    signed_in.get(URL)

    assert [name for name, _ in provider_calls] == ["domain_orders"]


def test_the_customers_own_actions_invalidate_the_cache(signed_in, customer, provider_calls, provider_orders):
    signed_in.get(URL)
    provider_orders.register(customer, "justbought.com")
    orders_cache_invalidate(customer=customer)

    response = signed_in.get(URL)

    assert "justbought.com" in response.content.decode()


def test_it_explains_in_plain_words_when_the_provider_fails(signed_in, customer, fake_gateway):
    with fake_gateway.fault(error_rate=1.0, scope="orders"):
        response = signed_in.get(URL)

    body = response.content.decode()
    assert response.status_code == 503
    assert "Our domain service is not available right now, so we could not load your domains." in body
    assert "Server Error" not in body
    assert "You don't have any domains yet" not in body


def test_a_refusal_shows_our_sentence_and_staff_also_see_the_providers(signed_in, customer):
    customer.customer_id = 1  # unknown at the provider
    customer.save()

    response = signed_in.get(URL)

    assert "The domain service has no record of this." in response.content.decode()
    assert "Invalid customer ID" not in response.content.decode()
    customer.user.is_staff = True
    customer.user.save()
    assert "Invalid customer ID" in signed_in.get(URL).content.decode()


def test_a_purchase_shows_at_once_even_with_the_listing_cached(signed_in, customer, provider_orders):
    assert "You don't have any domains yet" in signed_in.get(URL).content.decode()

    # What checkout does: a Registration row for the line, then the order at the provider.
    Registration.objects.create(customer=customer, domain_name="justbought.org", duration=1, checkout_id=uuid.uuid4())
    provider_orders.register(customer, "justbought.org")

    assert "justbought.org" in signed_in.get(URL).content.decode()


def test_a_bad_page_number_falls_back_to_the_first_page(signed_in, customer, provider_orders):
    provider_orders.register(customer, "firstpage.com")

    response = signed_in.get(URL, {"page": "abc"})

    assert response.status_code == 200
    assert "firstpage.com" in response.content.decode()


def test_a_page_past_the_end_links_back_to_the_first(signed_in, customer, provider_orders):
    provider_orders.register(customer, "onlyone.com")

    response = signed_in.get(URL, {"page": 5})

    body = response.content.decode()
    assert "There are no domains on this page" in body
    assert "Go to the first page" in body


def test_a_search_longer_than_a_domain_keeps_what_was_typed(signed_in, customer, provider_orders):
    provider_orders.register(customer, "short.com")
    typed = "x" * 100

    response = signed_in.get(URL, {"q": typed})

    assert response.status_code == 200
    assert f'value="{"x" * 80}"' in response.content.decode()


@pytest.mark.parametrize("typed", ["bak\x00ery", "\x00" * 90 + "bakery", "\x07bakery\x1b"])
def test_control_characters_in_the_search_never_reach_the_provider(signed_in, customer, provider_orders, typed):
    provider_orders.register(customer, "bakery.com")

    response = signed_in.get(URL, {"q": typed})

    assert response.status_code == 200
    assert "bakery.com" in response.content.decode()
    calls = provider_orders.control.calls
    searches = [call.kwargs["search"] for call in calls if call.method == "domain_orders"]
    assert searches and all(search.isprintable() for search in searches)
