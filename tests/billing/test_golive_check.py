"""`manage.py golive_check` against the sandboxes: each check passes when its part is ready, and fails with a
sentence saying what is wrong (the webhook endpoint named), making the command exit non-zero."""

from __future__ import annotations

import io

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from billing.management.commands import golive_check
from billing.payments import stripe_client
from billing.payments.webhook_endpoints import store_endpoint_register, store_webhook_url
from billing.payments.webhooks import HANDLED_EVENTS
from pricing.models import PriceRule, RuleKind

pytestmark = pytest.mark.django_db
SMTP = "django.core.mail.backends.smtp.EmailBackend"
READY = {
    "ADMINS": [("Ops", "ops@example.com")],
    "EMAIL_BACKEND": SMTP,
    "DEFAULT_FROM_EMAIL": "shop@example.com",
    "PRICE_MARKUP_PERCENT": 20,
    "SITE_URL": "https://shop.example.com",
    # The tests' cache lives in their one process, which check --deploy rightly calls an error in production.
    "SILENCED_SYSTEM_CHECKS": ["storefront.E001"],
}


def run(**options) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("golive_check", stdout=out, **options)
    except CommandError as err:
        return 1, out.getvalue() + str(err)
    return 0, out.getvalue()


def line(output: str, name: str) -> str:
    [found] = [text for text in output.splitlines() if f"  {name}:" in text]
    return found


@pytest.fixture
def ready(priced, stripe_sandbox):
    with override_settings(**READY):
        store_endpoint_register()
        yield stripe_sandbox


def test_a_ready_store_passes_every_check(ready):
    status, output = run()
    assert status == 0, output
    for name in (
        "Provider key",
        "MetaSearch",
        "Price list",
        "Stripe keys",
        "Stripe webhook endpoint",
        "Stripe webhook secret",
        "Email",
        "ADMINS",
        "Markup",
        "check --deploy",
    ):
        assert line(output, name).startswith("ok"), output
    assert "Every check passed, with test keys" in output


def test_without_a_webhook_endpoint_for_the_store_it_fails_naming_the_webhook(priced, stripe_sandbox):
    with override_settings(**READY):
        status, output = run()
    assert status == 1
    assert line(output, "Stripe webhook endpoint").startswith("FAIL")
    assert "Stripe has no webhook endpoint for https://shop.example.com/payments/stripe/webhook/" in output
    assert "1 check failed" in output


def test_an_endpoint_missing_an_event_type_fails(priced, stripe_sandbox):
    with override_settings(**READY):
        stripe_client.call(
            "webhook endpoint create",
            lambda client: client.v1.webhook_endpoints.create(
                params={"url": store_webhook_url(), "enabled_events": list(HANDLED_EVENTS[1:])},
                options={"idempotency_key": "partial-endpoint"},
            ),
        )
        status, output = run()
    assert status == 1 and f"does not send {HANDLED_EVENTS[0]}" in line(output, "Stripe webhook endpoint")


def test_registering_twice_keeps_one_endpoint(ready):
    with override_settings(**READY):
        store_endpoint_register()
    listed = stripe_client.call("list", lambda client: client.v1.webhook_endpoints.list())
    assert len(listed.data) == 1


@pytest.mark.parametrize(
    ("changed", "name", "said"),
    [
        ({"ADMINS": []}, "ADMINS", "ADMINS is empty"),
        ({"EMAIL_BACKEND": "storefront.background.mailbox.MailboxBackend"}, "Email", "sends mail nowhere"),
        ({"STRIPE_WEBHOOK_SECRET": ""}, "Stripe webhook secret", "STRIPE_WEBHOOK_SECRET is not set"),
        ({"STRIPE_SECRET_KEY": "sk_live_x"}, "Stripe keys", "a live key but the provider key is test"),
        ({"PRICE_MARKUP_PERCENT": 0, "PRICE_MARKUP_FIXED": 0}, "Markup", "no markup"),
        ({"RESELLER_API_KEY": "wrong_key"}, "Provider key", "did not answer"),
        ({"RESELLER_METASEARCH_URL": "http://127.0.0.1:9/metasearch"}, "MetaSearch", "did not answer"),
    ],
)
def test_each_check_fails_with_its_sentence(ready, changed, name, said):
    with override_settings(**changed):
        golive_check.gateway.cache_clear()
        status, output = run()
    golive_check.gateway.cache_clear()
    assert status == 1
    assert line(output, name).startswith("FAIL") and said in line(output, name), output


def test_a_markup_rule_counts_as_a_markup(ready):
    PriceRule.objects.create(kind=RuleKind.PERCENT, percent=15)
    with override_settings(PRICE_MARKUP_PERCENT=0, PRICE_MARKUP_FIXED=0):
        status, output = run()
    assert status == 0 and line(output, "Markup").startswith("ok")


def test_deploy_check_warnings_are_listed_and_errors_fail(ready):
    status, output = run()
    assert status == 0 and line(output, "check --deploy").startswith("ok")
    # Not served over HTTPS-only settings here: warnings of check --deploy, listed, not failed on.
    assert "warning security.W004" in output
    with override_settings(SILENCED_SYSTEM_CHECKS=[]):
        status, output = run()
    assert status == 1
    assert "storefront.E001: The default cache lives inside one process" in line(output, "check --deploy")


def test_send_to_sends_a_test_email(ready, monkeypatch):
    monkeypatch.setattr(golive_check, "_NOT_SENDING", ("console",))
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        status, output = run(send_to="me@example.org")
    assert status == 0, output
    assert "a test email was sent to me@example.org" in line(output, "Email")
    assert [message.to for message in mail.outbox] == [["me@example.org"]]


@pytest.mark.parametrize(
    ("key", "url", "said"),
    [
        ("nk_live_abc", "https://dev.namify.host", "a live key but RESELLER_BASE_URL (https://dev.namify.host)"),
        ("nk_test_abc", "https://namify.host", "a test key but RESELLER_BASE_URL (https://namify.host)"),
    ],
)
def test_a_provider_key_of_the_other_environment_than_its_address_fails(key, url, said):
    # The check alone: refused before any call, so nothing is sent to the provider's real addresses.
    with override_settings(RESELLER_SANDBOX=False, RESELLER_API_KEY=key, RESELLER_BASE_URL=url):
        with pytest.raises(golive_check.Failed) as failed:
            golive_check.provider_key()
    assert said in str(failed.value)
