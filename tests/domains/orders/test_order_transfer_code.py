"""The transfer code, POST /orders/<order_id>/transfer-code/: re-authentication first (allauth: the password, and
the two-factor code when on), then shown once, never kept anywhere, and the customer is emailed a notice."""

from __future__ import annotations

import logging
import time

import pytest
import time_machine
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.contrib.sessions.models import Session
from django.core import mail
from django.core.cache import cache
from django.urls import reverse

from domains.models import Order
from tests.limits import TEST_WINDOW

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


def url(order: Order) -> str:
    return reverse("order_transfer_code", args=[order.order_id])


def code_calls(calls: list) -> int:
    return sum(1 for name, _ in calls if name == "transfer_auth_code")


@pytest.fixture
def confirmed(signed_in, customer, password):
    """`signed_in`, having just typed the password (allauth's re-authentication), as after signing in."""
    response = signed_in.post("/accounts/reauthenticate/", {"password": password})
    assert response.status_code == 302
    return signed_in


def test_an_htmx_request_after_the_session_ended_sends_the_page_to_sign_in(client, customer, provider_orders):
    order = provider_orders.register(customer, "signedout.com")
    page = reverse("order_detail", args=[order.order_id])

    response = client.post(
        url(order), {"password": "x"}, headers={"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}"}
    )

    assert response["HX-Redirect"] == f"{reverse('login')}?next={page}"


def test_without_a_recent_password_it_asks_for_it_then_shows_the_code(signed_in, customer, provider_orders, password):
    order = provider_orders.register(customer, "rightpw.com")
    code = provider_orders.at_provider(order).transfer_code

    asked = signed_in.post(url(order))
    assert asked.status_code == 302 and asked["Location"].startswith("/accounts/reauthenticate/")
    wrong = signed_in.post(asked["Location"], {"password": "not-my-password"})
    assert wrong.status_code == 200 and code not in wrong.content.decode()
    resumed = signed_in.post(asked["Location"], {"password": password}, follow=True)
    assert f'<code id="transfer-code" class="transfer-code">{code}</code>' in resumed.content.decode()


def test_after_the_password_the_code_is_a_get_so_a_reload_posts_nothing(signed_in, customer, provider_orders, password):
    order = provider_orders.register(customer, "reload.com")
    code = provider_orders.at_provider(order).transfer_code
    asked = signed_in.post(url(order))["Location"]

    confirmed = signed_in.post(asked, {"password": password})

    # Not the code at the password page's address, but a redirect (303: the browser follows with a GET) to a page
    # of its own; a reload of that page finds its one-time ticket spent and goes back to the domain.
    assert confirmed.status_code == 303 and code not in confirmed.content.decode()
    shown_at = confirmed["Location"]
    assert shown_at.startswith(url(order) + "?shown=") and "reauthenticate" not in shown_at
    page = signed_in.get(shown_at)
    assert page.status_code == 200 and f'<code id="transfer-code" class="transfer-code">{code}</code>' in page.text
    assert "no-store" in page["Cache-Control"]
    reload = signed_in.get(shown_at)
    back = reverse("order_detail", args=[order.order_id]) + "#transfer"
    assert reload.status_code == 302 and reload["Location"] == back
    assert code not in signed_in.get(reload["Location"]).text


def test_the_code_page_needs_the_ticket_of_this_domain(confirmed, customer, provider_orders, provider_calls):
    mine = provider_orders.register(customer, "ticketone.com")
    other = provider_orders.register(customer, "tickettwo.com")
    ticket_for_mine = confirmed.post(url(mine))["Location"].split("?", 1)[1]

    for guessed in (f"{url(other)}?{ticket_for_mine}", f"{url(mine)}?shown=guess", url(mine)):
        response = confirmed.get(guessed)
        assert response.status_code == 302 and "/transfer-code/" not in response["Location"]
    assert code_calls(provider_calls) == 0


def test_with_two_factor_the_code_is_asked_too(signed_in, customer, provider_orders, password):
    secret = generate_totp_secret()
    TOTP.activate(customer.user, secret)
    order = provider_orders.register(customer, "twofactor.com")
    code = provider_orders.at_provider(order).transfer_code

    # A code is good for its 30-second window only: start the steps just after a window opens (clock moved
    # forward, still ticking), so a slow machine cannot see the window close between the code and its use.
    with time_machine.travel((int(time.time()) // 30 + 1) * 30 + 1, tick=True):
        asked = signed_in.post(url(order))["Location"]
        assert 'name="code"' in signed_in.get(asked).content.decode()
        totp = format_hotp_value(hotp_value(secret, int(time.time()) // 30))
        password_only = signed_in.post(asked, {"password": password})
        assert password_only.status_code == 200 and code not in password_only.content.decode()
        code_only = signed_in.post(asked, {"code": totp})
        assert code_only.status_code == 200 and code not in code_only.content.decode()
        # The code alone is not offered as another way in.
        assert signed_in.get("/accounts/2fa/reauthenticate/")["Location"].startswith("/accounts/reauthenticate/")
        resumed = signed_in.post(asked, {"password": password, "code": totp}, follow=True)
        assert "reauthenticate" not in resumed.request["PATH_INFO"]
        assert code in resumed.content.decode()


def test_the_customer_is_emailed_when_a_code_is_shown(confirmed, customer, provider_orders):
    order = provider_orders.register(customer, "noticed.com")
    mail.outbox.clear()
    confirmed.post(url(order), REMOTE_ADDR="203.0.113.5", follow=True)
    (notice,) = mail.outbox
    assert notice.to == [customer.user.email]
    assert "The transfer code of noticed.com was shown" in notice.subject
    assert "203.0.113.5" in notice.body
    assert provider_orders.at_provider(order).transfer_code not in notice.body


def test_the_right_password_shows_the_code_once_with_a_copy_button(confirmed, customer, provider_orders, password):
    order = provider_orders.register(customer, "rightpw2.com")
    code = provider_orders.at_provider(order).transfer_code

    response = confirmed.post(url(order), follow=True)

    body = response.content.decode()
    assert response.status_code == 200
    assert f'<code id="transfer-code" class="transfer-code">{code}</code>' in body
    assert 'data-copy-target="transfer-code"' in body
    assert "js/orders.js" in body
    assert "no-store" in response["Cache-Control"]

    # Shown once: the page itself never shows it again.
    assert code not in confirmed.get(reverse("order_detail", args=[order.order_id])).content.decode()


def test_htmx_gets_only_the_transfer_section(confirmed, customer, provider_orders):
    order = provider_orders.register(customer, "fragmentcode.com")
    code = provider_orders.at_provider(order).transfer_code

    response = confirmed.post(url(order), headers={"HX-Request": "true"})

    body = response.content.decode()
    assert "<html" not in body
    assert body.lstrip().startswith('<section class="card" id="transfer"')
    assert code in body
    assert 'hx-history="false"' in body
    assert "no-store" in response["Cache-Control"]


def test_the_code_is_never_logged_cached_or_kept_in_the_session(confirmed, customer, provider_orders, caplog):
    order = provider_orders.register(customer, "secretcode.com")
    code = provider_orders.at_provider(order).transfer_code
    caplog.set_level(logging.DEBUG)

    confirmed.get(reverse("order_detail", args=[order.order_id]))
    response = confirmed.post(url(order), follow=True)
    htmx = confirmed.post(url(order), headers={"HX-Request": "true"})

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
    for message in mail.outbox:
        assert code not in message.body


def test_wrong_passwords_are_throttled(signed_in, customer, provider_orders, provider_calls, password):
    order = provider_orders.register(customer, "guessing.com")
    asked = signed_in.post(url(order))["Location"]
    for _ in range(10):
        signed_in.post(asked, {"password": "Guess#12345"})

    response = signed_in.post(asked, {"password": password})

    assert response.status_code == 429 or "Too many" in response.content.decode()
    assert code_calls(provider_calls) == 0


def test_a_provider_failure_shows_its_message(confirmed, customer, provider_orders, fake_gateway):
    order = provider_orders.register(customer, "codedown.com")

    with fake_gateway.fault(error_rate=1.0, scope="transfers"):
        response = confirmed.post(url(order), headers={"HX-Request": "true"})

    assert response.status_code == 200
    body = response.content.decode()
    assert 'class="notice notice-error"' in body
    assert "Show transfer code" in body
    assert mail.outbox == [] or all("transfer code" not in m.subject for m in mail.outbox)


def test_reveals_are_rate_limited_per_customer(confirmed, customer, provider_orders, provider_calls, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "transfer_code": (1, TEST_WINDOW)}
    order = provider_orders.register(customer, "ratelimited.com")
    assert confirmed.post(url(order), follow=True).status_code == 200
    response = confirmed.post(url(order))
    assert response.status_code == 429
    assert "Please wait" in response.content.decode()
    assert code_calls(provider_calls) == 1
