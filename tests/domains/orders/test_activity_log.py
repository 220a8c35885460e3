"""The activity log of a customer's domains: every service that changes one writes one row, with the right actor
(the customer in their own request, staff in the admin, staff acting as the customer, the system in a task), and
nothing secret (a transfer code reveal is logged, never the code)."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from accounts.models import Activity
from accounts.staff.activity import ActingAs, acting, activity_text
from billing.models import SavedCard
from dns import services as dns_services
from dns.services import RecordData
from domains.checkout.registrations import registration_place
from domains.models import Order
from domains.orders import renewals
from domains.orders.auto_renew import _failed, order_auto_renew_set
from domains.orders.services import order_transfer_code
from tests.domains.conftest import line

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db

Actor = Activity.Actor


def rows(**filters) -> list[Activity]:
    return list(Activity.objects.filter(**filters).order_by("pk"))


def only_row(action: str) -> Activity:
    found = rows(action=action)
    assert len(found) == 1, f"{action}: {[r.action for r in rows()]}"
    return found[0]


def as_staff(user) -> ActingAs:
    return ActingAs(Actor.STAFF, user.pk, user.get_username())


@pytest.fixture
def order(provider_orders, customer) -> Order:
    return provider_orders.register(customer, f"log{uuid.uuid4().hex[:8]}.com")


@pytest.fixture
def card(customer) -> SavedCard:
    return SavedCard.objects.create(
        customer=customer, stripe_customer_id=f"cus_{uuid.uuid4().hex[:10]}", payment_method_id="pm_1", brand="visa",
        last4="4242", exp_month=12, exp_year=2040,
    )  # fmt: skip


def test_outside_a_request_the_system_acts(order):
    order_auto_renew_set(order=order, on=False)  # already off: nothing changed, nothing logged
    assert rows() == []
    Order.objects.filter(pk=order.pk).update(auto_renew=True)
    order_auto_renew_set(order=order, on=False)
    row = only_row("auto_renew_off")
    assert (row.actor, row.customer_id, row.order_id, row.domain_name) == (
        Actor.SYSTEM, order.customer_id, order.order_id, order.domain_name,
    )  # fmt: skip


def test_the_customer_switching_auto_renew_on_in_their_page_is_the_actor(signed_in, customer, order, card, settings):
    settings.PAYMENTS_DISABLED = False
    response = signed_in.post(reverse("order_auto_renew", args=[order.order_id]), {"auto_renew": "on"})
    assert response.status_code == 302
    row = only_row("auto_renew_on")
    assert (row.actor, row.actor_user_id, row.actor_name) == (Actor.CUSTOMER, customer.user.pk, customer.user.username)
    assert row.detail == {"last4": "4242"}
    assert activity_text(row) == "Auto-renew switched on (card ending 4242)"


def test_a_failed_auto_renewal_is_the_systems(order, card):
    Order.objects.filter(pk=order.pk).update(auto_renew=True)
    _failed(order, "card_declined")
    _failed(order, "card_declined")  # told once
    row = only_row("auto_renew_failed")
    assert (row.actor, row.detail) == (Actor.SYSTEM, {"reason": "card_declined"})


def test_a_transfer_code_reveal_is_logged_without_the_code(order, provider_orders, admin_user):
    code = provider_orders.at_provider(order).transfer_code
    with acting(as_staff(admin_user)):
        assert order_transfer_code(order=order).transfer_code == code
    row = only_row("transfer_code_shown")
    assert (row.actor, row.actor_user_id) == (Actor.STAFF, admin_user.pk)
    assert code not in str(row.detail) and code not in activity_text(row)


def test_a_renewal_and_a_refused_one_each_write_one_row(order, provider_orders):
    provider_orders.set_expiry_in_days(order, 40)
    expiry = provider_orders.at_provider(order).expiry_timestamp
    request = renewals.RenewRequest(1, expiry, uuid.uuid4(), Decimal("16.49"), "USD")
    renewals.renewal_place(order=order, request=request)
    renewed = only_row("renewed")
    assert (renewed.actor, renewed.order_id, renewed.detail["years"]) == (Actor.SYSTEM, order.order_id, 1)

    stale = renewals.RenewRequest(1, expiry, uuid.uuid4(), Decimal("16.49"), "USD")  # the expiry has moved since
    with pytest.raises(renewals.ExpiryMoved):
        renewals.renewal_place(order=order, request=stale)
    assert only_row("renewal_failed").detail == {"reason": "expiry_changed"}


def test_a_registration_writes_its_outcome_once(customer, admin_user):
    with acting(as_staff(admin_user)):
        registration_place(customer=customer, line=line("fresh-log-name.com"), checkout_id=uuid.uuid4())
        registration_place(customer=customer, line=line("taken-log-name.com"), checkout_id=uuid.uuid4())
    registered = only_row("registered")
    assert (registered.domain_name, registered.order_id is not None) == ("fresh-log-name.com", True)
    failed = only_row("registration_failed")
    assert (failed.domain_name, failed.actor) == ("taken-log-name.com", Actor.STAFF)


def test_dns_changes_write_one_row_each_naming_the_record(order, customer):
    with acting(ActingAs(Actor.CUSTOMER, customer.user.pk, customer.user.username)):
        assert dns_services.dns_activate(order=order) is True
        dns_services.dns_activate(order=order)  # already active: nothing changed
        record = RecordData(type="A", host="www", value="192.0.2.10", ttl=3600)
        dns_services.record_add(order=order, record=record)
        dns_services.record_change(
            order=order,
            record=RecordData(type="A", host="www", value="192.0.2.20", ttl=3600),
            current_value="192.0.2.10",
        )
        dns_services.record_delete(order=order, record_type="A", host="www", value="192.0.2.20")
    assert [r.action for r in rows()] == [
        "dns_activated",
        "dns_record_added",
        "dns_record_changed",
        "dns_record_removed",
    ]
    assert {r.actor for r in rows()} == {Actor.CUSTOMER}
    assert activity_text(only_row("dns_record_changed")) == "DNS A www → 192.0.2.20 changed (was 192.0.2.10)"


def test_a_dns_record_added_in_the_editor_names_the_customer(signed_in, customer, order):
    dns_services.dns_activate(order=order)
    response = signed_in.post(
        reverse("dns_add", args=[order.order_id]), {"type": "TXT", "host": "@", "value": "hello", "ttl": 3600}
    )
    assert response.status_code in (200, 302)
    row = only_row("dns_record_added")
    assert (row.actor, row.actor_user_id, row.detail["record"]) == (Actor.CUSTOMER, customer.user.pk, "TXT @ → hello")


def test_the_customers_page_lists_their_domains_rows_in_their_language(signed_in, customer, order):
    Order.objects.filter(pk=order.pk).update(auto_renew=True)
    order_auto_renew_set(order=order, on=False)
    english = signed_in.get(reverse("account")).content.decode()
    assert "Auto-renew was switched off." in english and order.domain_name in english
    spanish = signed_in.get(reverse("account"), headers={"Accept-Language": "es"}).content.decode()
    assert "Se desactivó la renovación automática." in spanish and "Automático" in spanish


def test_buying_logs_the_customers_order_and_the_systems_registrations(
    client, customer, django_capture_on_commit_callbacks
):
    from tests.domains.checkout.test_checkout import buy
    from tests.domains.conftest import put_in_cart

    client.force_login(customer.user)
    put_in_cart(client, line("bought-with-a-log.com"))
    with django_capture_on_commit_callbacks(execute=True):
        response, _ = buy(client)
    assert response.status_code == 302
    placed = only_row("checkout_placed")
    assert (placed.actor, placed.actor_user_id, placed.detail["domains"]) == (
        Actor.CUSTOMER, customer.user.pk, "bought-with-a-log.com",
    )  # fmt: skip
    # The worker registers it (the test backend runs the task inside the request): the system did that.
    registered = only_row("registered")
    assert (registered.actor, registered.domain_name) == (Actor.SYSTEM, "bought-with-a-log.com")
