"""Staff acting as a customer (django-hijack, accounts/staff/acting.py): only staff with the permission and two-factor
sign-in, a banner on every page while acting, every change logged as "staff as customer", and no transfer code,
control panel, password, email, two-factor or payment while acting (a sentence instead, and no provider or payment
call)."""

from __future__ import annotations

import pytest
from allauth.mfa.models import Authenticator
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import ActingAs, acting
from domains.models import Order
from domains.orders.auto_renew import order_auto_renew_set
from domains.orders.services import order_transfer_code

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db
Actor = Activity.Actor
REFUSED = "This is not available while our staff act as a customer"


def staff_member(name: str = "support@example.com", *, may_act: bool = True) -> User:
    user = User.objects.create_user(username=name, email=name, password="x-staff-password-1", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_customer"))
    if may_act:
        user.user_permissions.add(Permission.objects.get(codename="act_as_customer"))
    return user


def start_acting(client: Client, staff: User, customer, next_url: str = "/orders/"):
    client.force_login(staff)
    return client.post(reverse("act_as_start"), {"user_pk": customer.user.pk, "next": next_url})


@pytest.fixture
def order(provider_orders, customer) -> Order:
    return provider_orders.register(customer, "acting-as.com")


@pytest.fixture
def acting_client(client, customer, order) -> Client:
    response = start_acting(client, staff_member(), customer, reverse("order_detail", args=[order.order_id]))
    assert response.status_code == 302 and response["Location"] == reverse("order_detail", args=[order.order_id])
    return client


def test_staff_see_the_customers_domain_page_with_a_banner_and_the_start_is_logged(acting_client, order, customer):
    page = acting_client.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert "acting-as.com" in page
    assert 'class="acting-banner" role="alert"' in page and "Stop acting as this customer" in page
    started = Activity.objects.get(action="acting_started")
    assert (started.actor, started.actor_name, started.customer_id) == (
        Actor.STAFF_AS_CUSTOMER, "support@example.com", customer.pk,
    )  # fmt: skip
    assert mail.outbox == []  # not a sign-in of the customer from a new browser


def test_a_change_made_while_acting_is_logged_as_staff_as_customer(acting_client, order):
    acting_client.post(reverse("dns_activate", args=[order.order_id]))
    row = Activity.objects.get(action="dns_activated")
    assert (row.actor, row.actor_name) == (Actor.STAFF_AS_CUSTOMER, "support@example.com")


@pytest.mark.parametrize(("before", "asked"), [(False, "on"), (True, "off")])
def test_auto_renew_cannot_be_switched_while_acting(acting_client, order, before, asked):
    """Switching it on commits the customer's saved card to a future charge: the customer's decision, as paying is."""
    Order.objects.filter(pk=order.pk).update(auto_renew=before)
    response = acting_client.post(reverse("order_auto_renew", args=[order.order_id]), {"auto_renew": asked})
    assert response.status_code == 403 and REFUSED in response.content.decode()
    assert Order.objects.get(pk=order.pk).auto_renew is before
    assert not Activity.objects.filter(action__startswith="auto_renew").exists()


def test_the_auto_renew_service_itself_refuses_switching_on_for_staff_acting(order):
    with acting(ActingAs(Actor.STAFF_AS_CUSTOMER, None, "support@example.com")), pytest.raises(ActingRefused):
        order_auto_renew_set(order=order, on=True)
    assert Order.objects.get(pk=order.pk).auto_renew is False


def test_acting_cannot_reveal_a_transfer_code(acting_client, order, provider_orders, provider_calls):
    code = provider_orders.at_provider(order).transfer_code
    response = acting_client.post(reverse("order_transfer_code", args=[order.order_id]), {"password": "anything"})
    assert response.status_code == 403
    html = response.content.decode()
    assert REFUSED in html and code not in html
    assert not any(name == "transfer_auth_code" for name, _ in provider_calls)
    assert not Activity.objects.filter(action="transfer_code_shown").exists()
    # Nor the page that shows it after the post/redirect/get.
    shown = acting_client.get(reverse("order_transfer_code", args=[order.order_id]), {"shown": "any"})
    assert shown.status_code == 403 and code not in shown.content.decode()
    assert not any(name == "transfer_auth_code" for name, _ in provider_calls)


def test_the_service_itself_refuses_staff_acting_as_the_customer(order, provider_calls):
    with acting(ActingAs(Actor.STAFF_AS_CUSTOMER, None, "support@example.com")), pytest.raises(ActingRefused):
        order_transfer_code(order=order)
    assert provider_calls == []


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("post", "/accounts/panel/"),
        ("get", "/accounts/password/change/"),
        ("post", "/accounts/password/change/"),
        ("get", "/accounts/email/"),
        ("get", "/accounts/2fa/"),
        ("get", "/accounts/2fa/totp/activate/"),
        ("get", "/accounts/2fa/recovery-codes/generate/"),
        ("get", "/accounts/delete/"),
        ("post", "/checkout/"),
        ("post", "/payments/card/remove/"),
        ("get", "/payments/pay/8f8d2a3c-9a4e-4a5c-8f7e-3b0d4c1e2f10/"),
    ],
)
def test_password_two_factor_and_paying_are_refused_with_a_sentence(acting_client, method, url):
    response = getattr(acting_client, method)(url)
    assert response.status_code == 403
    assert REFUSED in response.content.decode()


def test_renewing_is_refused_while_acting_but_reading_is_not(acting_client, order):
    assert acting_client.get(reverse("account")).status_code == 200
    assert acting_client.get("/checkout/").status_code == 200
    renew = acting_client.post(reverse("order_renew", args=[order.order_id]), {"duration": 1})
    assert renew.status_code == 403


def test_stopping_returns_to_the_admin_as_staff_and_is_logged(acting_client, customer):
    response = acting_client.post(
        reverse("act_as_stop"), {"next": reverse("admin:accounts_customer_change", args=[customer.pk])}
    )
    assert response.status_code == 302
    assert acting_client.get(response["Location"]).status_code == 200  # the admin again: staff once more
    ended = Activity.objects.get(action="acting_ended")
    assert (ended.actor, ended.actor_name) == (Actor.STAFF, "support@example.com")
    assert mail.outbox == []


def test_staff_without_the_permission_cannot_act(client, customer):
    response = start_acting(client, staff_member(may_act=False), customer)
    assert response.status_code == 403
    assert not Activity.objects.filter(action="acting_started").exists()


def test_staff_without_two_factor_cannot_act(client, customer):
    staff = staff_member()
    Authenticator.objects.filter(user=staff).delete()
    assert start_acting(client, staff, customer).status_code == 403


def test_nobody_acts_as_another_staff_member(client):
    other = staff_member("other@example.com")
    response = start_acting(client, staff_member(), type("C", (), {"user": other})())
    assert response.status_code == 403


def test_the_customer_page_in_the_admin_offers_the_button_to_those_who_may(client, customer):
    page_url = reverse("admin:accounts_customer_change", args=[customer.pk])
    client.force_login(staff_member())
    page = client.get(page_url).content.decode()
    assert f'action="{reverse("act_as_start")}"' in page and "Act as this customer" in page
    client.force_login(staff_member("viewer@example.com", may_act=False))
    page = client.get(page_url).content.decode()
    assert "Act as this customer" not in page
    assert "does not have the permission to act as customers" in page  # said, not hidden


@pytest.mark.staff_without_two_factor
def test_staff_without_two_factor_are_told_why_they_cannot_act(client, customer, settings):
    # bin/run's demo staff login opens the admin without two-factor on a development machine
    # (accounts/security/middleware.py).
    settings.DEBUG, settings.STAFF_TWO_FACTOR_EXEMPT = True, "demo-staff@example.com"
    client.force_login(staff_member("demo-staff@example.com"))
    page = client.get(reverse("admin:accounts_customer_change", args=[customer.pk])).content.decode()
    assert "Act as this customer" not in page
    assert "Acting as a customer needs two-factor sign-in on your staff login" in page


def test_a_language_chosen_while_acting_is_not_the_customers(acting_client, customer):
    customer.language = "en"
    customer.save(update_fields=["language"])
    acting_client.post("/i18n/setlang/", {"language": "es", "next": "/orders/"})
    customer.refresh_from_db()
    assert customer.language == "en"
    assert acting_client.get("/orders/")["Content-Language"] == "es"  # staff read in the language they picked
