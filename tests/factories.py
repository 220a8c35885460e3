"""factory_boy factories for the storefront's own models (users, customers, orders, registrations, renewals).

They build local rows, and call the provider only when asked to: `CustomerFactory.create(at_provider=True)` signs
the customer up at the provider `gateway()` reaches (the in-memory fake under `fake_gateway`, the sandbox under
`sandbox_url`), as the signup form does; without it, a customer's provider id is one no provider knows. The
`customer` fixture (tests/conftest.py) is the first. Statuses are written as their stored values so the factories
read the same whether the models spell them as constants or as `TextChoices`.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Customer
from accounts.signup.spelling import SPELLED_FIELDS, ascii_form
from domains.models import Order, Registration, Renewal
from storefront.gateway import gateway

PASSWORD = "Factory#Pass9"
# Contact details the provider accepts (English letters only), named as its signup names them.
CONTACT = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines",
    "address": "12 St James's Square",
    "city": "London",
    "state": "England",
    "country": "GB",
    "zipcode": "SW1Y 4JH",
    "country_code": "44",
    "phone": "2079460000",
}


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.org")
    username = factory.LazyAttribute(lambda user: user.email.lower())
    password = factory.django.Password(PASSWORD)


def _signed_up_at_provider(customer: Any) -> int:
    """The provider customer id of a signup sent now, with the customer's email, password and contact details."""
    # As the store sends it: the ASCII form of each field written in two forms.
    details = {field: getattr(customer, f"{field}_ascii" if field in SPELLED_FIELDS else field) for field in CONTACT}
    return gateway().customer_signup(email=customer.user.email, password=customer.password, **details).customer_id


class CustomerFactory(factory.django.DjangoModelFactory[Customer]):
    """A storefront customer (User + Customer): `email` and `password` are its sign-in; `at_provider=True` signs it
    up at the provider first (pass `password` with your own `user`, so the provider gets the same one)."""

    class Meta:
        model = Customer

    class Params:
        email = factory.Sequence(lambda n: f"customer{n}@example.org")
        password = PASSWORD
        at_provider = factory.Trait(customer_id=factory.LazyAttribute(_signed_up_at_provider))

    user = factory.SubFactory(
        UserFactory, email=factory.SelfAttribute("..email"), password=factory.SelfAttribute("..password")
    )
    customer_id = factory.Sequence(lambda n: 20_000_000 + n)
    name = CONTACT["name"]
    company = CONTACT["company"]
    address = CONTACT["address"]
    city = CONTACT["city"]
    state = CONTACT["state"]
    country = CONTACT["country"]
    zipcode = CONTACT["zipcode"]
    country_code = CONTACT["country_code"]
    phone = CONTACT["phone"]
    name_ascii = factory.LazyAttribute(lambda customer: ascii_form(customer.name))
    company_ascii = factory.LazyAttribute(lambda customer: ascii_form(customer.company))
    address_ascii = factory.LazyAttribute(lambda customer: ascii_form(customer.address))
    city_ascii = factory.LazyAttribute(lambda customer: ascii_form(customer.city))


class OrderFactory(factory.django.DjangoModelFactory):
    """Our copy of a provider order (what checkout keeps)."""

    class Meta:
        model = Order

    customer = factory.SubFactory(CustomerFactory)
    order_id = factory.Sequence(lambda n: 200_000_000 + n)
    domain_name = factory.Sequence(lambda n: f"owned{n}.com")
    status = "Active"
    expires_at = factory.LazyFunction(lambda: timezone.now().replace(microsecond=0) + dt.timedelta(days=365))
    expiry_timestamp = factory.LazyAttribute(lambda order: int(order.expires_at.timestamp()))


class RegistrationFactory(factory.django.DjangoModelFactory):
    """One cart line bought (registered by default)."""

    class Meta:
        model = Registration

    customer = factory.SubFactory(CustomerFactory)
    domain_name = factory.Sequence(lambda n: f"bought{n}.com")
    duration = 1
    currency = "USD"
    # The demo catalogue's .com at the tests' default markup (tests/settings.py): what a customer pays, not its cost.
    register_price = Decimal("14.49")
    renew_price = Decimal("16.49")
    total_price = Decimal("14.49")
    status = "registered"
    checkout_id = factory.LazyFunction(uuid.uuid4)


class RenewalFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Renewal

    order = factory.SubFactory(OrderFactory)
    customer = factory.SelfAttribute("order.customer")
    provider_order_id = factory.SelfAttribute("order.order_id")
    domain_name = factory.SelfAttribute("order.domain_name")
    duration = 1
    price = Decimal("16.49")  # .com's retail renewal price, as RegistrationFactory's
    currency = "USD"
    status = "renewed"
    token = factory.LazyFunction(uuid.uuid4)
