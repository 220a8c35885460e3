"""The customer's currency: chosen at signup (by the country unless the customer picks one), changeable on the
account page until the first purchase, then shown as fixed with the reason; prices follow it."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from accounts.models import Activity, Customer
from billing.models import Payment
from pricing.currencies import currency_table_forget
from pricing.models import Currency
from pricing.quotes import display_price_book_forget
from tests.accounts.conftest import VALID

pytestmark = pytest.mark.django_db

GERMAN = {**VALID, "country": "DE", "state": "Bayern", "country_code": "49", "phone": "8912345678", "zipcode": "80331"}


@pytest.fixture(autouse=True)
def eur_jpy():
    currency_table_forget()
    display_price_book_forget()
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"))
    Currency.objects.create(code="JPY", enabled=True, rate=Decimal("151.37"), price_ending=Decimal(0))
    Currency.objects.create(code="GBP", enabled=False, rate=Decimal("0.79"))
    yield
    currency_table_forget()
    display_price_book_forget()


def test_signup_offers_the_enabled_currencies_only(client):
    page = client.get(reverse("signup")).content.decode()
    assert '<select name="currency"' in page
    assert '<option value="EUR">EUR, Euro</option>' in page and '<option value="JPY">' in page
    assert '<option value="USD">' in page and 'value="GBP"' not in page
    assert "You can change it until your first purchase." in page


def test_signup_defaults_the_currency_by_country(client):
    client.post(reverse("signup"), GERMAN)
    assert Customer.objects.get(user__email="ada@example.org").currency == "EUR"


def test_signup_defaults_to_the_store_currency_where_the_country_has_none_offered(client):
    client.post(reverse("signup"), VALID)  # GB: pounds are not enabled
    assert Customer.objects.get(user__email="ada@example.org").currency == "USD"


def test_signup_keeps_the_currency_chosen(client):
    client.post(reverse("signup"), {**GERMAN, "currency": "JPY"})
    assert Customer.objects.get(user__email="ada@example.org").currency == "JPY"


def test_signup_refuses_a_currency_not_offered(client):
    page = client.post(reverse("signup"), {**GERMAN, "currency": "GBP"}).content.decode()
    assert "Please choose a currency from the list." in page
    assert not Customer.objects.filter(user__email="ada@example.org").exists()


def test_the_currency_changes_until_the_first_purchase_then_is_fixed(client, customer):
    client.force_login(customer.user)
    page = client.get(reverse("account")).content.decode()
    assert 'action="/account/currency/"' in page

    response = client.post(reverse("account_currency"), {"currency": "EUR"}, follow=True)
    customer.refresh_from_db()
    assert customer.currency == "EUR"
    assert "Prices are now shown in EUR." in response.content.decode()
    assert Activity.objects.filter(customer=customer, action="currency_changed").exists()

    Payment.objects.create(
        customer=customer, checkout_id=uuid.uuid4(), currency="EUR", rate=Decimal("0.92"), amount=Decimal("11.99"),
        amount_authorised=Decimal("11.99"), status=Payment.Status.CAPTURED, amount_captured=Decimal("11.99"),
    )  # fmt: skip
    page = client.get(reverse("account")).content.decode()
    assert 'action="/account/currency/"' not in page
    assert "Your prices are in EUR." in page and "fixed since your first purchase" in page

    response = client.post(reverse("account_currency"), {"currency": "USD"}, follow=True)
    customer.refresh_from_db()
    assert customer.currency == "EUR"
    assert "fixed since your first purchase" in response.content.decode()


def test_prices_follow_the_customers_currency(client, customer, fake_priced):
    client.force_login(customer.user)
    client.post(reverse("account_currency"), {"currency": "EUR"})
    page = client.get(reverse("search"), {"q": "bluebird"}).content.decode()
    assert "€" in page and "$" not in page.split("<main", 1)[1]


def test_a_visitor_not_signed_in_sees_the_store_currency(client, fake_priced):
    page = client.get(reverse("search"), {"q": "bluebird"}).content.decode()
    assert "$" in page.split("<main", 1)[1] and "€" not in page
