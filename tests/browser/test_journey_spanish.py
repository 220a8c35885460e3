"""Journey: a visitor switches the shop to Spanish in the footer, searches, fills the cart, signs up from the
checkout and buys, reading Spanish on every page (no English string of the catalogue left on any of them)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.steps import check_accessibility, new_person, unique_label
from tests.catalogue import english_left

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# .com's retail prices as Spanish writes money, "14,49 US$" (Babel's es locale): the sandbox's cost, 12.99 then
# 14.99 a year, plus the tests' markup of 1.50 a year.
COM_PRICE_TEXT = re.compile(r"^14,49\sUS\$ el primer año, después 16,49\sUS\$/año$")
COM_FIRST_YEAR = re.compile(r"^14,49\sUS\$$")


def spanish_only(page: Page, where: str) -> None:
    expect(page.locator("html")).to_have_attribute("lang", "es")
    assert english_left(page.content()) == [], f"English left on {where} ({page.url})"
    check_accessibility(page, where=f"({where})")


def test_a_visitor_switches_to_spanish_searches_signs_up_and_buys_in_spanish(page: Page, shots):
    word = unique_label("azulejo")
    name = f"{word}.com"
    page.goto("/")
    check_accessibility(page)

    # The footer's switcher: a plain form (no script), back on the same page in the chosen language.
    footer = page.locator("footer")
    footer.get_by_label("Language").select_option(label="Español")
    footer.get_by_role("button", name="Change").click()
    expect(page.get_by_role("heading", name="Encuentra el dominio para tu idea")).to_be_visible()
    expect(page.locator("footer").get_by_label("Idioma")).to_have_value("es")
    spanish_only(page, "home")
    shots("i18n-home-es")

    page.get_by_label("Busca un dominio").press_sequentially(word, delay=40)
    featured = page.get_by_role("region", name="Resultado destacado")
    expect(featured.locator(".result-domain")).to_have_text(name)
    expect(featured.get_by_text("Disponible")).to_be_visible()
    expect(featured.locator(".price")).to_have_text(COM_PRICE_TEXT)
    # The AI ideas arrive a second later: settled first, so their rows are checked too and runs' screenshots agree.
    expect(page.locator("[data-ai-suggestions]")).to_have_count(0)
    spanish_only(page, "search results")
    shots("i18n-search-es")

    page.get_by_role("button", name=f"Añadir {name} al carrito").click()
    row = page.locator(".result-row", has=page.get_by_role("button", name=f"Añadir {name} al carrito"))
    expect(row.get_by_text("En tu carrito")).to_be_visible()
    page.get_by_role("navigation", name="Cuenta").get_by_role("link", name=re.compile("^Carrito")).click()
    expect(page.get_by_role("heading", name="Tu carrito")).to_be_visible()
    expect(page.locator(".cart-line-total dd")).to_have_text(COM_FIRST_YEAR)
    spanish_only(page, "cart")
    shots("i18n-cart-es")

    page.get_by_role("link", name="Ir a la caja").click()
    expect(page.get_by_role("heading", name="Inicia sesión para comprar")).to_be_visible()
    spanish_only(page, "checkout, signed out")
    page.get_by_role("link", name="Crear una cuenta").click()
    expect(page.get_by_role("heading", name="Crea tu cuenta")).to_be_visible()
    spanish_only(page, "signup")

    # A name with accents is taken as written; the page shows, in Spanish, how the domains' records will read it.
    person = new_person(name="Grace Hopper")
    page.get_by_label("Nombre completo").fill("José Núñez")
    page.get_by_label("Correo electrónico").fill(person.email)
    page.get_by_label("País").select_option(label="Estados Unidos")
    states = page.get_by_label("Estado o provincia")
    expect(states.locator("option", has_text=re.compile(r"^Virginia$"))).to_have_count(1)
    states.select_option(label="Virginia")
    page.get_by_label("Dirección", exact=True).fill(person.address)
    page.get_by_label("Ciudad", exact=True).fill(person.city)
    page.get_by_label("Código postal").fill(person.zipcode)
    expect(page.get_by_label("Prefijo", exact=True)).to_have_value("1")
    page.get_by_label("Teléfono").fill(person.phone)
    page.get_by_label("Contraseña", exact=True).fill(person.password)
    page.get_by_label("Repite la contraseña").fill(person.password)
    expect(page.locator("#records-preview")).to_contain_text("En los registros de tus dominios: Jose Nunez")
    spanish_only(page, "signup")
    shots("i18n-signup-es")
    page.get_by_role("button", name="Crear cuenta").click()

    expect(page.get_by_role("heading", name="Confirma tu dirección de correo electrónico")).to_be_visible()
    spanish_only(page, "confirm your email")
    page.get_by_role("link", name="Correos enviados").click()
    message = page.locator(".mailbox-message", has_text=person.email).first
    expect(message).to_be_visible()
    check_accessibility(page, where="(mailbox)")
    message.locator('a[href*="/accounts/confirm-email/"]').first.click()
    check_accessibility(page, where="(confirm email)")
    page.get_by_role("button", name="Confirmar").click()
    confirmed = "Tu correo electrónico está confirmado y tu cuenta ya puede comprar dominios."
    expect(page.get_by_text(confirmed)).to_be_visible()

    expect(page.get_by_role("heading", name="Revisa tu pedido")).to_be_visible()
    expect(page.locator("address")).to_contain_text("Estados Unidos")
    spanish_only(page, "checkout review")
    shots("i18n-checkout-es")
    page.get_by_label(re.compile("^Acepto las condiciones del servicio")).check()
    page.get_by_role("button", name=re.compile(r"^Comprar ahora")).click()

    expect(page.get_by_role("heading", name="Tu pedido")).to_be_visible()
    expect(page.get_by_text("Listo: 1 dominio registrado.")).to_be_visible()
    line = page.locator(".outcome-line", has_text=name)
    expect(line.locator(".badge")).to_have_text("Registrado")
    spanish_only(page, "order outcome")
    shots("i18n-order-es")

    page.get_by_role("navigation", name="Cuenta").get_by_role("link", name="Mis dominios").click()
    expect(page.get_by_role("heading", name="Mis dominios")).to_be_visible()
    expect(page.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(page.locator(".order-date").first).to_have_text(re.compile(r"^\d{1,2} de [a-z]+ de \d{4}$"))
    spanish_only(page, "my domains")
    shots("i18n-orders-es")
