"""The storefront in Spanish: the main customer pages show no English string of the catalogue, money and dates are
written the Spanish way, and the footer's switcher changes the language (sandbox over HTTP)."""

from __future__ import annotations

import datetime as dt
import html
import uuid
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import formats, timezone, translation

from accounts.models import Customer
from billing.documents.issuing import receipt_issue
from billing.models import Payment, PaymentLine, SavedCard
from domains.models import Order
from domains.orders.emails import auto_renew_failure_queue
from tests.catalogue import english_left, visible_text

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def spanish_page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    page = response.content.decode()
    assert '<html lang="es">' in page
    return page


@pytest.fixture
def in_spanish(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    return client


def test_the_catalogue_check_reads_english_on_an_english_page(client, seeded_partner):
    # The comparison itself must find English where there is English, or the Spanish tests below prove nothing.
    page = client.get("/").content.decode()
    assert '<html lang="en">' in page
    assert "Find the domain for your idea" in english_left(page)


def test_the_footer_switcher_changes_the_language_and_stays_on_the_page(client, seeded_partner):
    page = client.get("/cart/").content.decode()
    assert 'action="/i18n/setlang/"' in page and 'name="language"' in page
    response = client.post("/i18n/setlang/", {"language": "es", "next": "/cart/"})
    assert response.status_code == 302 and response["Location"] == "/cart/"
    page = client.get("/cart/").content.decode()
    assert "<h1>Tu carrito</h1>" in page and "Tu carrito está vacío." in page
    client.post("/i18n/setlang/", {"language": "en", "next": "/cart/"})
    assert "<h1>Your cart</h1>" in client.get("/cart/").content.decode()


def test_a_browser_asking_for_spanish_gets_spanish(client, seeded_partner):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="es-ES,es;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="es">' in page and "Encuentra el dominio para tu idea" in page


def test_home_search_signup_and_login_have_no_english_left(in_spanish, seeded_partner):
    for path in ("/", "/search/?q=bluebird", "/accounts/signup/", "/accounts/login/"):
        page = spanish_page(in_spanish, path)
        assert english_left(page) == [], path
    results = spanish_page(in_spanish, "/search/?q=bluebird")
    assert "Añadir bluebird.com al carrito" in visible_text(results).replace("  ", " ")


def test_signup_shows_the_english_spelling_in_spanish_and_lists_countries_in_spanish(in_spanish, seeded_partner):
    page = spanish_page(in_spanish, "/accounts/signup/")
    assert ">España</option>" in page and ">Reino Unido</option>" in page
    response = in_spanish.post("/accounts/signup/", {"name": "José Müller", "country": "ES", "name_ascii": "José"})
    page = response.content.decode()
    assert "En los registros de tus dominios:" in page and "José" in page
    # The spelling the customer corrects keeps the provider's rule, explained in Spanish with the spelling it takes.
    assert "Usa solo caracteres del alfabeto inglés (ASCII) en Nombre en letras del alfabeto inglés" in page
    assert "Puedes escribirlo como «Jose»." in page
    assert english_left(page) == []


def test_cart_shows_spanish_words_and_money(in_spanish, seeded_partner):
    response = in_spanish.post("/cart/add/", {"domain_name": "bluebird.com"})
    assert response.status_code in (302, 303)
    page = spanish_page(in_spanish, "/cart/")
    assert "bluebird.com" in page
    # .com's retail price (12.99 + 1.50), written the Spanish way.
    assert "14,49\xa0US$" in html.unescape(page) and "$14.49" not in page
    assert english_left(page) == []


def test_checkout_review_and_orders_have_no_english_left(in_spanish, customer, provider_orders):
    order = provider_orders.register(customer, "miempresa-ejemplo.com", duration=2)
    provider_orders.set_expiry_in_days(order, 400)
    in_spanish.force_login(customer.user)
    in_spanish.post("/cart/add/", {"domain_name": "otroejemplo.com"})
    review = spanish_page(in_spanish, "/checkout/")
    assert "Total" in review and "US$" in review
    assert english_left(review) == []

    orders = spanish_page(in_spanish, "/orders/")
    assert "miempresa-ejemplo.com" in orders and "Activo" in orders
    with translation.override("es"):
        expiry = formats.date_format(timezone.now() + dt.timedelta(days=400), "DATE_FORMAT")
    assert " de " in expiry and expiry in orders  # "27 de diciembre de 2027"
    assert english_left(orders) == []

    detail = spanish_page(in_spanish, f"/orders/{order.order_id}/")
    assert "Vencimiento" in detail and expiry in detail and "Renovar por" in detail
    assert english_left(detail) == []
    dns = spanish_page(in_spanish, f"/orders/{order.order_id}/dns/")
    assert "Registros DNS" in dns and "Configuraciones rápidas" in dns
    assert english_left(dns) == []


def _paid_with_receipt(customer, domain_name: str):
    """A captured payment for one registered domain and one that failed (not charged), with its receipt."""
    payment = Payment.objects.create(
        customer=customer,
        checkout_id=uuid.uuid4(),
        status=Payment.Status.CAPTURED,
        currency="USD",
        amount=Decimal("22.49"),
        amount_authorised=Decimal("22.49"),
        amount_captured=Decimal("12.99"),
    )
    PaymentLine.objects.create(
        payment=payment,
        position=1,
        reference=domain_name,
        description=domain_name,
        amount=Decimal("12.99"),
        status=PaymentLine.Status.REGISTERED,
    )
    PaymentLine.objects.create(
        payment=payment,
        position=2,
        reference="otroejemplo.net",
        description="otroejemplo.net",
        amount=Decimal("9.50"),
        status=PaymentLine.Status.FAILED,
    )
    return receipt_issue(payment=payment)


@override_settings(PAYMENTS_DISABLED=False)
def test_billing_receipt_and_auto_renew_panel_have_no_english_left(in_spanish, customer, provider_orders, mailoutbox):
    Customer.objects.filter(pk=customer.pk).update(language="es")
    customer.refresh_from_db()
    order = provider_orders.register(customer, "miempresa-ejemplo.com")
    provider_orders.set_expiry_in_days(order, 200)
    in_spanish.force_login(customer.user)

    empty = spanish_page(in_spanish, "/account/billing/")
    assert "Facturación" in empty and "Todavía no hay recibos." in empty
    assert english_left(empty) == []

    receipt = _paid_with_receipt(customer, "miempresa-ejemplo.com")
    billing = spanish_page(in_spanish, "/account/billing/")
    assert f"Recibo {receipt.number}" in billing and "12,99\xa0US$" in html.unescape(billing)
    assert english_left(billing) == []

    page = spanish_page(in_spanish, f"/payments/receipts/{receipt.number}/")
    text = visible_text(page)
    assert f"Recibo {receipt.number}" in text and "Total pagado (USD)" in text and "No cobrado" in text
    assert english_left(page) == []

    # The receipt's email, sent by the worker, is in the customer's language too.
    [email] = [m for m in mailoutbox if f"/payments/receipts/{receipt.number}/" in m.body]
    assert email.subject.startswith(f"Tu recibo {receipt.number} de ")
    assert "Gracias por tu pago." in email.body and "Total pagado (USD): 12,99\xa0US$" in email.body

    SavedCard.objects.create(
        customer=customer, stripe_customer_id="cus_es", payment_method_id="pm_es", brand="visa", last4="4242"
    )
    off = spanish_page(in_spanish, f"/orders/{order.order_id}/")
    assert "Renovación automática" in off and "Activar la renovación automática" in off
    assert english_left(off) == []

    switched = in_spanish.post(f"/orders/{order.order_id}/auto-renew/", {"auto_renew": "on"}, follow=True)
    on = switched.content.decode()
    assert "La renovación automática está activada: miempresa-ejemplo.com se renovará" in html.unescape(on)
    assert "Desactivar la renovación automática" in on
    assert english_left(on) == []

    # A failed auto-renewal: the panel says why, and the customer's email is in Spanish.
    mailoutbox.clear()
    Order.objects.filter(pk=order.pk).update(
        auto_renew=False, auto_renew_failed_at=timezone.now(), auto_renew_failure="card_declined"
    )
    auto_renew_failure_queue(order=Order.objects.get(pk=order.pk))
    failed = spanish_page(in_spanish, f"/orders/{order.order_id}/")
    assert "porque tu tarjeta guardada ha sido rechazada" in html.unescape(failed)
    assert english_left(failed) == []
    [told] = [m for m in mailoutbox if m.to == [customer.email]]
    assert told.subject == "La renovación automática de miempresa-ejemplo.com no se ha completado: renuévalo tú mismo"
    assert "no ha sido posible: tu tarjeta guardada ha sido rechazada. No se te ha cobrado nada." in told.body
