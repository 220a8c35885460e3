"""The provider key, passwords, auto-login tokens and transfer codes never leak.

Every customer flow runs with a canary key; the test fails if the canary, the customer's password, an
auto-login token or a transfer code shows up in any captured log line, in any response (other than the one
page that is meant to show the transfer code, and the redirect that carries the token to the panel), or in
an error report.
"""

import logging
import re
import sys
import uuid

import pytest
from django.test import Client, RequestFactory, override_settings
from django.views.debug import ExceptionReporter

from storefront.gateway import ResellerGateway, gateway

CANARY = "test_canary" + uuid.uuid4().hex
PASSWORD = "Canary*Pass7"
HIDDEN = re.compile(r'name="(checkout_id|review_digest|renew_token|expiry_timestamp)" value="([^"]+)"')


@pytest.fixture
def canary_key(priced, sandbox_partner, sandbox_control):
    sandbox_control.issue_key(partner=sandbox_partner, label="canary", plaintext=CANARY)
    with override_settings(RESELLER_API_KEY=CANARY):
        gateway.cache_clear()
        yield CANARY
    gateway.cache_clear()


@pytest.fixture
def secrets_seen(monkeypatch):
    """Auto-login tokens and transfer codes the provider handed out during the test."""
    seen: dict[str, list[str]] = {"token": [], "transfer_code": []}
    auto_login, transfer = ResellerGateway.customer_auto_login, ResellerGateway.transfer_auth_code

    def spy_auto_login(self, **kwargs):
        result = auto_login(self, **kwargs)
        seen["token"].append(result.token)
        return result

    def spy_transfer(self, **kwargs):
        result = transfer(self, **kwargs)
        seen["transfer_code"].append(result.transfer_code)
        return result

    monkeypatch.setattr(ResellerGateway, "customer_auto_login", spy_auto_login)
    monkeypatch.setattr(ResellerGateway, "transfer_auth_code", spy_transfer)
    return seen


def _hidden(page: str, name: str) -> str:
    return dict(HIDDEN.findall(page))[name]


@pytest.mark.django_db(transaction=True)
def test_no_secret_appears_in_logs_or_responses(canary_key, secrets_seen, caplog):
    caplog.set_level(logging.DEBUG)
    client = Client()
    responses = []

    def visit(method, path, data=None, **extra):
        response = getattr(client, method)(path, data or {}, **extra)
        responses.append((path, response))
        return response

    email = f"canary-{uuid.uuid4().hex[:8]}@example.com"
    label = f"canary{uuid.uuid4().hex[:6]}"
    visit("get", "/")
    visit("get", "/search/", {"q": label})
    visit("get", "/search/", {"q": label}, HTTP_HX_REQUEST="true")
    visit("post", "/cart/add/", {"domain_name": f"{label}.com"})
    visit("get", "/cart/")
    visit("get", "/accounts/signup/")
    signup = visit(
        "post",
        "/accounts/signup/?next=/checkout/",
        {
            "name": "Grace Hopper",
            "company": "",
            "address": "1 Navy Way",
            "city": "Arlington",
            "state": "Virginia",
            "country": "US",
            "zipcode": "22201",
            "country_code": "1",
            "phone": "7035550100",
            "email": email,
            "password": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert signup.status_code == 302, "signup should succeed"
    from django.core import mail

    confirm = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", mail.outbox[-1].body).group(1)
    visit("post", confirm)
    review = visit("get", "/checkout/")
    reviewed = review.content.decode()
    placed = visit(
        "post",
        "/checkout/",
        {
            "checkout_id": _hidden(reviewed, "checkout_id"),
            "review_digest": _hidden(reviewed, "review_digest"),
            "accept_terms": "on",
        },
    )
    assert placed.status_code == 302
    visit("get", placed["Location"])
    visit("get", "/orders/")
    from domains.models import Order

    order = Order.objects.get(domain_name=f"{label}.com")
    detail = visit("get", f"/orders/{order.order_id}/")
    renew_form = {
        "duration": "1",
        "renew_token": _hidden(detail.content.decode(), "renew_token"),
        "expiry_timestamp": _hidden(detail.content.decode(), "expiry_timestamp"),
    }
    confirmation = visit("post", f"/orders/{order.order_id}/renew/", renew_form)  # the confirmation step
    shown = dict(HIDDEN.findall(confirmation.content.decode())).get("price_shown", "")  # none without prices
    visit("post", f"/orders/{order.order_id}/renew/", {**renew_form, "confirm": "on", "price_shown": shown})
    asked = visit("post", f"/orders/{order.order_id}/transfer-code/")  # re-authentication first
    visit("post", asked["Location"], {"password": "Wrong*Pass1"})
    code_page = visit("post", asked["Location"], {"password": PASSWORD}, follow=True)
    visit("post", f"/orders/{order.order_id}/dns/activate/")
    visit("get", f"/orders/{order.order_id}/dns/", {"type": "A"})
    visit("post", f"/orders/{order.order_id}/dns/add/", {"type": "A", "host": "@", "value": "203.0.113.10", "ttl": ""})
    panel = visit("post", "/accounts/panel/")
    visit("get", "/readyz")

    [token] = secrets_seen["token"]
    [transfer_code] = secrets_seen["transfer_code"]
    assert panel.status_code == 302 and token in panel["Location"]  # the hand-off itself carries the token
    assert transfer_code in code_page.content.decode()  # shown once, on the page that was asked for it
    assert code_page["Cache-Control"] and "no-store" in code_page["Cache-Control"]

    log_text = caplog.text
    for secret in (CANARY, PASSWORD, token, transfer_code):
        assert secret not in log_text
    for path, response in responses:
        body = response.content.decode(errors="replace")
        headers = str(response.headers)
        assert CANARY not in body and CANARY not in headers, path
        assert PASSWORD not in body, path
        assert token not in body, path
        if response is not code_page:
            assert transfer_code not in body, path
    assert "Bearer" not in log_text


@pytest.mark.django_db
def test_error_reports_never_carry_the_key(settings):
    settings.RESELLER_API_KEY = CANARY
    gateway.cache_clear()
    dead = ResellerGateway(
        base_url="http://127.0.0.1:9",
        metasearch_url="http://127.0.0.1:9",
        api_key=CANARY,
        connect_timeout=0.2,
        read_timeout=0.2,
        get_retries=0,
    )
    try:
        dead.domain_register(customer_id=1, domain_name="example.com", duration=1)
    except Exception:
        exc_info = sys.exc_info()
    request = RequestFactory().get("/checkout/")
    reporter = ExceptionReporter(request, *exc_info)
    # The chained requests exception's frames hold the prepared request, Authorization header included.
    text, html = reporter.get_traceback_text(), reporter.get_traceback_html()
    assert "domain_register" in text
    assert CANARY not in text
    assert CANARY not in html
