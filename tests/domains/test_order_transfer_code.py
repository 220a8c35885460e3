"""The transfer code, POST /orders/<order_id>/transfer-code/ (password): shown once, never kept anywhere."""

from __future__ import annotations

import logging

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.urls import reverse

from domains.models import Order

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def url(order: Order) -> str:
    return reverse("order_transfer_code", args=[order.order_id])


def code_calls(calls: list) -> int:
    return sum(1 for name, _ in calls if name == "transfer_auth_code")


def test_it_checks_ownership(client, customer, other_customer, sandbox_orders, provider_calls, password):
    order = sandbox_orders.register(customer, "notyourcode.com")
    other_customer.user.set_password(password)
    other_customer.user.save()
    client.force_login(other_customer.user)
    provider_calls.clear()

    response = client.post(url(order), {"password": password})

    assert response.status_code == 404
    assert provider_calls == []


def test_it_only_accepts_post(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "getcode.com")

    assert signed_in.get(url(order)).status_code == 405


def test_it_requires_login(client, customer, sandbox_orders, password):
    order = sandbox_orders.register(customer, "anoncode.com")

    response = client.post(url(order), {"password": password})

    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_an_htmx_request_after_the_session_ended_sends_the_page_to_sign_in(client, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "signedout.com")
    page = reverse("order_detail", args=[order.order_id])

    response = client.post(
        url(order), {"password": "x"}, headers={"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}"}
    )

    assert response["HX-Redirect"] == f"{reverse('login')}?next={page}"


def test_a_wrong_password_shows_an_error_and_no_code(signed_in, customer, sandbox_orders, provider_calls):
    order = sandbox_orders.register(customer, "wrongpw.com")
    code = sandbox_orders.at_sandbox(order).transfer_code

    response = signed_in.post(url(order), {"password": "not-my-password"})

    body = response.content.decode()
    assert response.status_code == 200
    assert "That password is not correct" in body
    assert code not in body
    assert "not-my-password" not in body
    assert code_calls(provider_calls) == 0


def test_the_right_password_shows_the_code_once_with_a_copy_button(signed_in, customer, sandbox_orders, password):
    order = sandbox_orders.register(customer, "rightpw.com")
    code = sandbox_orders.at_sandbox(order).transfer_code

    response = signed_in.post(url(order), {"password": password})

    body = response.content.decode()
    assert response.status_code == 200
    assert f'<code id="transfer-code" class="transfer-code">{code}</code>' in body
    assert 'data-copy-target="transfer-code"' in body
    assert "js/orders.js" in body
    assert "no-store" in response["Cache-Control"]
    assert password not in body

    # Shown once: the page itself never shows it again.
    assert code not in signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()


def test_htmx_gets_only_the_transfer_section(signed_in, customer, sandbox_orders, password):
    order = sandbox_orders.register(customer, "fragmentcode.com")
    code = sandbox_orders.at_sandbox(order).transfer_code

    response = signed_in.post(url(order), {"password": password}, headers={"HX-Request": "true"})

    body = response.content.decode()
    assert "<html" not in body
    assert body.lstrip().startswith('<section class="card" id="transfer"')
    assert code in body
    assert 'hx-history="false"' in body
    assert "no-store" in response["Cache-Control"]


def test_htmx_gets_the_password_error_in_place(signed_in, customer, sandbox_orders):
    order = sandbox_orders.register(customer, "fragmentpw.com")

    response = signed_in.post(url(order), {"password": "nope"}, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert "That password is not correct" in response.content.decode()


def test_the_code_is_never_logged_cached_or_kept_in_the_session(signed_in, customer, sandbox_orders, caplog, password):
    order = sandbox_orders.register(customer, "secretcode.com")
    code = sandbox_orders.at_sandbox(order).transfer_code
    caplog.set_level(logging.DEBUG)

    signed_in.get(reverse("order_detail", args=[order.order_id]))
    response = signed_in.post(url(order), {"password": password})
    htmx = signed_in.post(url(order), {"password": password}, headers={"HX-Request": "true"})

    assert code in response.content.decode() and code in htmx.content.decode()
    assert caplog.records, "the gateway logs its calls, so the log was captured"
    for record in caplog.records:
        assert code not in record.getMessage()
    for key, value in cache._cache.items():
        assert code not in key
        assert code.encode() not in value
    for session in Session.objects.all():
        assert code not in str(session.get_decoded())
    assert code not in str(response.cookies)


def test_wrong_passwords_are_throttled(signed_in, customer, sandbox_orders, provider_calls, password):
    order = sandbox_orders.register(customer, "guessing.com")
    for _ in range(5):
        signed_in.post(url(order), {"password": "guess"})

    response = signed_in.post(url(order), {"password": password})

    assert "Too many wrong passwords" in response.content.decode()
    assert code_calls(provider_calls) == 0


def test_a_provider_failure_shows_its_message(signed_in, customer, sandbox_orders, password, sandbox_control):
    order = sandbox_orders.register(customer, "codedown.com")

    with sandbox_control.fault(error_rate=1.0, scope="transfers"):
        response = signed_in.post(url(order), {"password": password}, headers={"HX-Request": "true"})

    assert response.status_code == 200
    body = response.content.decode()
    assert 'class="notice notice-error"' in body
    assert 'name="password"' in body


def test_reveals_are_rate_limited_per_customer(signed_in, customer, sandbox_orders, provider_calls, password, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "transfer_code": (1, 900)}
    order = sandbox_orders.register(customer, "ratelimited.com")
    assert signed_in.post(url(order), {"password": password}).status_code == 200
    response = signed_in.post(url(order), {"password": password})
    assert response.status_code == 429
    assert "Please wait" in response.content.decode()
    assert code_calls(provider_calls) == 1
