"""`manage.py golive_check`: is this deployment ready to take real money? One line per check; exit 1 when any fails.

The provider (its key, both services, the price list), Stripe (keys of the provider key's kind, a webhook endpoint
for this store, its secret), email, ADMINS, a markup, and `check --deploy` (its warnings listed, not failed on).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlparse

from django.conf import settings
from django.core import checks
from django.core.mail import send_mail
from django.core.management.base import BaseCommand, CommandError, CommandParser

from billing.errors import PaymentError
from billing.payments.webhook_endpoints import store_endpoint_find
from pricing.margin import default_markup_is_zero, markup_rules_exist
from storefront.gateway import GatewayError, gateway, key_environment


class Failed(Exception):
    """A check that did not pass; its message says what is wrong and what to do."""


# The provider's own sandbox (README, "Connecting the real provider"): test keys only.
PROVIDER_SANDBOX_HOST = "dev.namify.host"
# Mail backends that send nothing anyone receives.
_NOT_SENDING = ("console", "locmem", "filebased", "dummy", "mailbox")


class Command(BaseCommand):
    help = "Checks everything a store needs before it takes real money; exit status 1 when any check fails."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--send-to", metavar="ADDRESS", help="Also send a test email to this address.")

    def handle(self, *args: Any, **options: Any) -> None:
        self.send_to = options.get("send_to") or ""
        failed = 0
        for name, check in self.checks():
            try:
                said = check()
            except Failed as err:
                failed += 1
                self.stdout.write(self.style.ERROR(f"FAIL  {name}: {err}"))
            else:
                self.stdout.write(self.style.SUCCESS(f"ok    {name}: {said}"))
        if failed:
            raise CommandError(f"{failed} check{'s' if failed > 1 else ''} failed: not ready to take real money.")
        if _provider_kind() == "live":
            self.stdout.write(self.style.SUCCESS("Ready to take real money."))
        else:
            self.stdout.write(self.style.SUCCESS("Every check passed, with test keys: no real money is taken yet."))

    def checks(self) -> Iterator[tuple[str, Callable[[], str]]]:
        yield "Provider key", provider_key
        yield "MetaSearch", metasearch
        yield "Price list", price_list
        yield "Stripe keys", stripe_keys
        yield "Stripe webhook endpoint", webhook_endpoint
        yield "Stripe webhook secret", webhook_secret
        yield "Email", self.email
        yield "ADMINS", admins
        yield "Markup", markup
        yield "check --deploy", self.deploy_checks

    def email(self) -> str:
        backend = settings.EMAIL_BACKEND.rsplit(".", 2)[-2]
        if backend in _NOT_SENDING:
            raise Failed(f"EMAIL_URL sends mail nowhere (the {backend} backend): set it to a real SMTP server.")
        if not settings.DEFAULT_FROM_EMAIL or settings.DEFAULT_FROM_EMAIL.endswith("@localhost"):
            raise Failed("DEFAULT_FROM_EMAIL is not an address customers can answer: set it.")
        if not self.send_to:
            return f"{backend} backend, from {settings.DEFAULT_FROM_EMAIL} (--send-to ADDRESS sends a test)"
        try:
            send_mail(
                f"{settings.STORE_NAME}: test email",
                "This is the test email of manage.py golive_check: the store's email works.",
                settings.DEFAULT_FROM_EMAIL,
                [self.send_to],
            )
        except OSError as err:
            raise Failed(f"the test email to {self.send_to} could not be sent: {type(err).__name__}: {err}") from err
        return f"a test email was sent to {self.send_to} from {settings.DEFAULT_FROM_EMAIL}"

    def deploy_checks(self) -> str:
        found = checks.run_checks(include_deployment_checks=True)
        shown = [message for message in found if not message.is_silenced()]
        errors = [message for message in shown if message.level >= checks.ERROR]
        for message in shown:
            if message.level < checks.ERROR and message.level >= checks.WARNING:
                self.stdout.write(f"      warning {message.id}: {message.msg}")
        if errors:
            raise Failed("; ".join(f"{message.id}: {message.msg}" for message in errors))
        warned = sum(1 for message in shown if checks.WARNING <= message.level < checks.ERROR)
        return f"no errors ({warned} warning{'' if warned == 1 else 's'} listed above)" if warned else "no errors"


def _provider_failed(what: str, err: GatewayError) -> Failed:
    return Failed(f"{what} did not answer: {type(err).__name__}: {err.provider_message or err.message}")


def provider_key() -> str:
    if not settings.RESELLER_API_KEY:
        raise Failed("RESELLER_API_KEY is not set.")
    if not settings.RESELLER_SANDBOX:
        key_kind = key_environment(settings.RESELLER_API_KEY)
        url_kind = "test" if urlparse(settings.RESELLER_BASE_URL).hostname == PROVIDER_SANDBOX_HOST else "live"
        if key_kind in ("test", "live") and key_kind != url_kind:
            raise Failed(
                f"RESELLER_API_KEY is a {key_kind} key but RESELLER_BASE_URL ({settings.RESELLER_BASE_URL}) is the "
                f"provider's {'sandbox' if url_kind == 'test' else 'production'} address: use the key and address of "
                "one environment."
            )
    try:
        hello = gateway().hello()
    except GatewayError as err:
        raise _provider_failed(f"the provider at {settings.RESELLER_BASE_URL}", err) from err
    return f"{_provider_kind()} key, the provider at {settings.RESELLER_BASE_URL} answered {hello.message!r}"


def metasearch() -> str:
    try:
        gateway().metasearch(search_term="example", autosuggest=False, aisuggest=False)
    except GatewayError as err:
        raise _provider_failed(f"MetaSearch at {settings.RESELLER_METASEARCH_URL}", err) from err
    return f"answered at {settings.RESELLER_METASEARCH_URL}"


def price_list() -> str:
    try:
        prices = gateway().pricing()
    except GatewayError as err:
        raise _provider_failed("the provider's price list", err) from err
    if not prices.tlds:
        raise Failed("the provider's price list names no TLD: nothing could be sold.")
    return f"{len(prices.tlds)} TLDs for sale, costs in {prices.currency}"


def _provider_kind() -> str:
    """`live` or `test`: the sandbox provider, and a provider key of the test environment, are test."""
    if settings.RESELLER_SANDBOX:
        return "test"
    return key_environment(settings.RESELLER_API_KEY)


def _stripe_kind(key: str) -> str:
    if key.startswith(("sk_live_", "rk_live_")):
        return "live"
    if key.startswith(("sk_test_", "rk_test_")):
        return "test"
    return "unknown"


def stripe_keys() -> str:
    if settings.PAYMENTS_DISABLED:
        raise Failed("PAYMENTS_DISABLED is on: the store takes no payments.")
    stripe_kind, provider_kind = _stripe_kind(settings.STRIPE_SECRET_KEY), _provider_kind()
    if stripe_kind == "unknown":
        raise Failed("STRIPE_SECRET_KEY is not a Stripe secret key (sk_live_… or sk_test_…).")
    if stripe_kind != provider_kind:
        raise Failed(
            f"STRIPE_SECRET_KEY is a {stripe_kind} key but the provider key is {provider_kind}: customers would "
            + ("pay real money for test registrations." if stripe_kind == "live" else "get real domains unpaid.")
        )
    where = "the payment sandbox" if settings.STRIPE_API_BASE != "https://api.stripe.com" else "Stripe"
    return f"{stripe_kind} keys on both sides ({where} at {settings.STRIPE_API_BASE})"


def webhook_endpoint() -> str:
    try:
        found = store_endpoint_find()
    except PaymentError as err:
        raise Failed(f"Stripe could not be asked for its webhook endpoints: {err.detail}") from err
    if not found.endpoint_id:
        raise Failed(
            f"Stripe has no webhook endpoint for {found.url}: payments would not be confirmed when a customer closes "
            "the tab. Add one in Stripe's Dashboard (Developers → Webhooks) with the events the store handles, or "
            "run manage.py stripe_webhook_register."
        )
    if found.missing:
        raise Failed(
            f"the webhook endpoint {found.endpoint_id} for {found.url} does not send {', '.join(found.missing)}: add "
            "them to it in Stripe's Dashboard, or run manage.py stripe_webhook_register."
        )
    return f"{found.endpoint_id} sends {found.url} every event type the store handles"


def webhook_secret() -> str:
    secret = settings.STRIPE_WEBHOOK_SECRET
    if not secret:
        raise Failed("STRIPE_WEBHOOK_SECRET is not set: every webhook would be refused. Copy it from the endpoint.")
    if not secret.startswith("whsec_"):
        raise Failed("STRIPE_WEBHOOK_SECRET is not a signing secret (whsec_…).")
    return "set"


def admins() -> str:
    if not settings.ADMINS:
        raise Failed("ADMINS is empty: errors would reach no one. Set ADMINS (e.g. ADMINS='Ops <ops@example.com>').")
    return f"{len(settings.ADMINS)} address{'es' if len(settings.ADMINS) > 1 else ''}"


def markup() -> str:
    if not default_markup_is_zero():
        return f"cost + {settings.PRICE_MARKUP_PERCENT}% + {settings.PRICE_MARKUP_FIXED} {settings.STORE_CURRENCY}/yr"
    if markup_rules_exist():
        return "price rules add a markup"
    raise Failed("no markup: every domain would sell at cost. Set PRICE_MARKUP_PERCENT or add a price rule.")
