"""The storefront in French and in German (issue 42): the main customer pages show no English string of the
catalogue, dates are written the language's way, the footer offers all four languages, and a signed-in customer's
choice of either is kept (sandbox over HTTP). Spanish has its own, longer file (test_spanish_pages.py)."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import formats, timezone, translation

from accounts.models import Customer
from billing.documents.issuing import receipt_issue
from billing.models import Payment, PaymentLine, SavedCard
from tests.catalogue import english_left

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)

LANGUAGES = ("fr", "de")


@pytest.fixture(params=LANGUAGES)
def language(request) -> str:
    return request.param


@pytest.fixture
def reader(client, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def page_in(client, path: str, language: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    page = response.content.decode()
    assert f'<html lang="{language}">' in page, path
    return page


def test_the_footer_offers_the_four_languages_each_named_in_itself(reader, seeded_partner, language):
    page = page_in(reader, "/", language)
    for code, name in (("en", "English"), ("es", "Español"), ("fr", "Français"), ("de", "Deutsch")):
        assert f'<option value="{code}" lang="{code}"' in page and f">{name}</option>" in page


def test_a_browser_asking_for_the_language_gets_it(client, seeded_partner, language):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE=f"{language};q=0.9,en;q=0.5").content.decode()
    assert f'<html lang="{language}">' in page
    assert english_left(page, language) == []


def test_a_signed_in_customers_choice_is_kept(client, customer, seeded_partner, language):
    client.force_login(customer.user)
    response = client.post("/i18n/setlang/", {"language": language, "next": "/account/"})
    assert response.status_code == 302
    assert Customer.objects.get(pk=customer.pk).language == language
    # A browser that asks for English changes neither the page nor the stored choice.
    page = client.get("/account/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'<html lang="{language}">' in page
    assert Customer.objects.get(pk=customer.pk).language == language


def test_home_search_signup_and_login_have_no_english_left(reader, seeded_partner, language):
    for path in ("/", "/search/?q=bluebird", "/accounts/signup/", "/accounts/login/", "/accounts/password/reset/"):
        page = page_in(reader, path, language)
        assert english_left(page, language) == [], path


def test_the_add_to_cart_buttons_start_with_a_capital_in_german(client, seeded_partner):
    # The domain is hidden text (for screen readers); the German button read "in den Warenkorb" in lower case.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    page = page_in(client, "/search/?q=bluebird.com", "de")
    buttons = re.findall(r"<button[^>]*>\s*(.*?)\s*</button>", page, re.S)
    shown = {re.sub(r'<span class="visually-hidden">.*?</span>', "", button).strip() for button in buttons}
    assert "In den Warenkorb" in shown and "in den Warenkorb" not in shown, shown
    # A name of one's own has a Manage link instead, made the same way.
    with translation.override("de"):
        manage = translation.gettext('Manage <span class="visually-hidden">%(domain)s</span>') % {"domain": "x.de"}
    assert re.sub(r'<span class="visually-hidden">.*?</span>', "", manage) == "Verwalten"


def test_cart_checkout_orders_and_dns_have_no_english_left(reader, customer, provider_orders, language):
    order = provider_orders.register(customer, "monentreprise-exemple.com", duration=2)
    provider_orders.set_expiry_in_days(order, 400)
    reader.force_login(customer.user)
    reader.post("/cart/add/", {"domain_name": "autreexemple.com"})
    for path in ("/cart/", "/checkout/", "/orders/", f"/orders/{order.order_id}/", f"/orders/{order.order_id}/dns/"):
        page = page_in(reader, path, language)
        assert english_left(page, language) == [], path

    # The expiry date, written with Django's format for the language ("27 décembre 2027", "27. Dezember 2027").
    with translation.override(language):
        expiry = formats.date_format(timezone.now() + dt.timedelta(days=400), "DATE_FORMAT")
    assert expiry in page_in(reader, "/orders/", language)


@override_settings(PAYMENTS_DISABLED=False)
def test_account_billing_and_a_receipt_have_no_english_left(reader, customer, provider_orders, language):
    Customer.objects.filter(pk=customer.pk).update(language=language)
    order = provider_orders.register(customer, "monentreprise-exemple.com")
    provider_orders.set_expiry_in_days(order, 200)
    SavedCard.objects.create(
        customer=customer, stripe_customer_id="cus_x", payment_method_id="pm_x", brand="visa", last4="4242"
    )
    payment = Payment.objects.create(
        customer=customer,
        checkout_id=uuid.uuid4(),
        status=Payment.Status.CAPTURED,
        currency="USD",
        amount=Decimal("12.99"),
        amount_authorised=Decimal("12.99"),
        amount_captured=Decimal("12.99"),
    )
    PaymentLine.objects.create(
        payment=payment,
        position=1,
        reference=order.domain_name,
        description=order.domain_name,
        amount=Decimal("12.99"),
        status=PaymentLine.Status.REGISTERED,
    )
    receipt = receipt_issue(payment=payment)
    reader.force_login(customer.user)
    for path in (
        "/account/",
        "/account/billing/",
        f"/payments/receipts/{receipt.number}/",
        f"/orders/{order.order_id}/",
        "/accounts/email/",
        "/accounts/2fa/",
    ):
        page = page_in(reader, path, language)
        assert english_left(page, language) == [], path
