"""/account/contact/: the customer changes their contact details (the same rules and English-spelling preview as
signup). With the provider's `customer_details` capability on they are sent through the gateway (ASCII) and only then
saved; off, the change is recorded as pending, shown to the customer, queued for staff in the admin with what to send,
and applied when staff mark it done. Every change is in the activity log with who made it."""

from __future__ import annotations

from typing import cast

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.test import override_settings
from django.urls import reverse

from accounts.contact_changes import Outcome, contact_change_request
from accounts.models import Activity, ContactChange, Customer
from accounts.staff.activity import ActingAs, acting
from storefront.gateway import InvalidDetails, Unavailable, gateway
from tests.conftest import CUSTOMER_PASSWORD
from tests.fakes.gateway import FakeGateway

pytestmark = pytest.mark.django_db
URL = "/account/contact/"
Actor = Activity.Actor
CAPABILITY_OFF = override_settings(RESELLER_CAPABILITIES=[], ADMINS=[("Ops", "ops@example.com")])
# José moves within Spain: his new address as he writes it.
NEW = {
    "name": "José Muñoz",
    "company": "",
    "country": "ES",
    "state": "Aragon",
    "address": "Calle del Coso 12, 3º",
    "city": "Zaragoza",
    "zipcode": "50003",
    "country_code": "34",
    "phone": "612 345 678",
}


@pytest.fixture
def signed_in(client, customer):
    client.login(username=customer.user.username, password=CUSTOMER_PASSWORD)
    return client


def _at_provider(customer: Customer) -> dict[str, str]:
    provider = cast(FakeGateway, gateway())
    assert customer.customer_id is not None
    return provider.customers_by_id[customer.customer_id].details


def test_it_needs_a_customer(client):
    staff = User.objects.create_user(username="staff@example.com", password="x-Staff-pass1", is_staff=True)
    client.force_login(staff)
    assert client.get(URL).status_code == 404


def test_the_page_shows_the_current_details_in_both_forms_prefilled(signed_in, customer, provider_calls):
    page = signed_in.get(URL).content.decode()
    assert 'value="Ada Lovelace"' in page and 'value="12 St James&#x27;s Square"' in page
    assert "On your domains' records:" in page
    # The automatic spelling is not prefilled in the corrections: it follows the name when that changes.
    assert 'name="name_ascii"' in page and 'name="name_ascii" value=' not in page
    assert provider_calls == []  # nothing is asked of the provider to show the page


def test_with_the_capability_on_the_provider_gets_the_english_spelling_and_then_it_is_saved(
    signed_in, customer, provider_calls
):
    response = signed_in.post(URL, NEW, follow=True)
    assert "Your contact details were changed, here and on your domains&#x27; records." in response.content.decode()
    (call,) = [call for call in provider_calls if call.method == "customer_details_update"]
    sent = call.kwargs["details"]
    assert (sent.name, sent.address, sent.city, sent.state) == (
        "Jose Munoz",
        "Calle del Coso 12, 3o",
        "Zaragoza",
        "Aragon",
    )
    assert (sent.phone, sent.country_code, sent.email) == ("612345678", "34", customer.email)
    assert _at_provider(customer)["address"] == "Calle del Coso 12, 3o"
    customer.refresh_from_db()
    assert (customer.name, customer.name_ascii, customer.address) == (
        "José Muñoz",
        "Jose Munoz",
        "Calle del Coso 12, 3º",
    )
    assert ContactChange.objects.get().status == ContactChange.Status.SENT
    row = Activity.objects.get(action="contact_changed")
    assert (row.actor, row.customer_id) == (Actor.CUSTOMER, customer.pk)
    assert "address" in row.detail["fields"] and "name" in row.detail["fields"]


def test_a_corrected_spelling_is_what_the_provider_gets(signed_in, customer, provider_calls):
    signed_in.post(URL, {**NEW, "name_ascii": "Jose Munoz Garcia"})
    (call,) = [call for call in provider_calls if call.method == "customer_details_update"]
    assert call.kwargs["details"].name == "Jose Munoz Garcia"


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (InvalidDetails("Signup Failed"), "The domain service refused these details."),
        (Unavailable(), "Our domain service is not available right now, so we could not change your contact details."),
    ],
)
def test_a_provider_failure_says_so_on_the_form_keeps_what_was_typed_and_saves_nothing(
    signed_in, customer, fake_gateway, error, sentence
):
    fake_gateway.fail("customer_details_update", error)
    response = signed_in.post(URL, NEW)
    page = response.content.decode()
    assert 'role="alert"' in page and sentence in page
    assert 'value="José Muñoz"' in page and 'value="Calle del Coso 12, 3º"' in page
    customer.refresh_from_db()
    assert customer.name == "Ada Lovelace" and customer.address == "12 St James's Square"
    assert not ContactChange.objects.exists() and not Activity.objects.filter(action="contact_changed").exists()


def test_a_broken_rule_is_refused_on_the_form_without_a_provider_call(signed_in, provider_calls):
    response = signed_in.post(URL, {**NEW, "phone": "12", "name_ascii": "Jösé"})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "phone" in errors and "name_ascii" in errors
    assert provider_calls == []


def test_the_same_details_change_nothing(signed_in, customer, provider_calls):
    initial = signed_in.get(URL).context["form"].initial
    response = signed_in.post(URL, {k: v for k, v in initial.items() if v is not None}, follow=True)
    assert "Nothing changed" in response.content.decode()
    assert provider_calls == [] and not ContactChange.objects.exists()


@CAPABILITY_OFF
def test_with_the_capability_off_the_change_waits_for_staff_and_is_shown_pending(signed_in, customer, provider_calls):
    assert "cannot take changes automatically yet" in signed_in.get(URL).content.decode()
    response = signed_in.post(URL, NEW, follow=True)
    page = response.content.decode()
    assert "Your change is saved" in page
    assert "Change waiting for the domain registry" in page and "Calle del Coso 12, 3º" in page
    assert "Calle del Coso 12, 3o" in page  # its English spelling, as staff will send it
    assert 'value="Calle del Coso 12, 3º"' in page  # the form holds the pending change, to amend it
    assert provider_calls == []
    customer.refresh_from_db()
    assert customer.address == "12 St James's Square"  # the registry does not have it yet
    change = ContactChange.objects.get()
    assert change.status == ContactChange.Status.PENDING and change.details["address_ascii"] == "Calle del Coso 12, 3o"
    assert Activity.objects.get(action="contact_change_requested").actor == Actor.CUSTOMER
    assert any("contact change waits" in message.subject for message in mail.outbox)
    assert "waiting for the domain registry" in signed_in.get("/account/").content.decode()


@CAPABILITY_OFF
def test_asking_again_replaces_the_pending_change_and_asking_for_the_current_details_withdraws_it(signed_in, customer):
    signed_in.post(URL, NEW)
    signed_in.post(URL, {**NEW, "city": "Huesca", "zipcode": "22001", "state": "Aragon"})
    (change,) = ContactChange.objects.all()
    assert change.details["city"] == "Huesca"
    current = {**NEW, **{k: getattr(customer, k) for k in NEW if k != "phone"}, "phone": customer.phone}
    response = signed_in.post(URL, current, follow=True)
    assert "Your pending change was withdrawn" in response.content.decode()
    assert not ContactChange.objects.exists()


def _staff(client) -> User:
    staff = User.objects.create_user(username="desk@example.com", password="x-Staff-pass1", is_staff=True)
    for codename in ("view_contactchange", "change_contactchange"):
        staff.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(staff)
    return staff


@CAPABILITY_OFF
def test_staff_see_what_to_send_and_marking_it_done_applies_it_and_logs_it(client, customer, provider_calls):
    contact_change_request(
        customer=customer, details={**customer.contact(), **_details(NEW)}, requested_by=customer.user
    )
    change = ContactChange.objects.get()
    staff = _staff(client)
    listing = client.get(reverse("admin:accounts_contactchange_changelist")).content.decode()
    assert customer.email in listing
    page = client.get(reverse("admin:accounts_contactchange_change", args=[change.pk])).content.decode()
    assert "PUT /api/v1/customers/details" in page
    assert (
        "&quot;name&quot;: &quot;Jose Munoz&quot;" in page
        and f"&quot;customer_id&quot;: {customer.customer_id}" in page
    )
    response = client.post(
        reverse("admin:accounts_contactchange_changelist"),
        {"action": "mark_done", "_selected_action": [change.pk]},
        follow=True,
    )
    assert "1 contact change(s) marked done" in response.content.decode()
    change.refresh_from_db()
    assert (change.status, change.done_by) == (ContactChange.Status.DONE, staff)
    customer.refresh_from_db()
    assert (customer.name, customer.city_ascii) == ("José Muñoz", "Zaragoza")
    row = Activity.objects.get(action="contact_change_done")
    assert (row.actor, row.actor_name) == (Actor.STAFF, "desk@example.com")
    assert LogEntry.objects.filter(object_id=str(change.pk), change_message__contains="Marked done").exists()
    assert provider_calls == []  # staff sent it by hand
    # Marking it again does nothing more.
    client.post(
        reverse("admin:accounts_contactchange_changelist"), {"action": "mark_done", "_selected_action": [change.pk]}
    )
    assert Activity.objects.filter(action="contact_change_done").count() == 1


def test_staff_acting_as_the_customer_may_change_it_and_the_log_says_it_was_them(customer):
    with acting(ActingAs(Actor.STAFF_AS_CUSTOMER, None, "support@example.com")):
        outcome = contact_change_request(
            customer=customer, details={**customer.contact(), **_details(NEW)}, requested_by=None
        )
    assert outcome is Outcome.SENT
    row = Activity.objects.get(action="contact_changed")
    assert (row.actor, row.actor_name) == (Actor.STAFF_AS_CUSTOMER, "support@example.com")


def test_a_customer_not_yet_at_the_provider_changes_our_copy_only(make_local_customer, provider_calls):
    local = make_local_customer("new@example.org", customer_id=None)
    outcome = contact_change_request(customer=local, details={**local.contact(), **_details(NEW)}, requested_by=None)
    assert outcome is Outcome.SAVED and provider_calls == []
    local.refresh_from_db()
    assert local.name_ascii == "Jose Munoz"


def _details(typed: dict[str, str]) -> dict[str, str]:
    from accounts.forms import ContactForm

    form = ContactForm(typed)
    assert form.is_valid(), form.errors
    return form.details()


def test_through_the_client_the_sandbox_takes_the_change_in_english_letters(sandbox_url, customer):
    """The real client and the sandbox over HTTP: the sandbox refuses accents as the provider does, so this passes
    only if what is sent is the English spelling."""
    outcome = contact_change_request(
        customer=customer, details={**customer.contact(), **_details(NEW)}, requested_by=customer.user
    )
    assert outcome is Outcome.SENT
    assert customer.customer_id is not None
    held = gateway().customer_details(customer_id=customer.customer_id).as_fields()
    expected = {"name": "Jose Munoz", "address": "Calle del Coso 12, 3o", "city": "Zaragoza", "state": "Aragon"}
    assert {field: held[field] for field in expected} == expected
    customer.refresh_from_db()
    assert customer.address == "Calle del Coso 12, 3º"


def test_the_change_reaches_every_role_of_the_customers_domains(fake_priced, customer):
    assert customer.customer_id is not None
    order = gateway().domain_register(customer_id=customer.customer_id, domain_name="jose-moves.com", duration=1)
    contact_change_request(customer=customer, details={**customer.contact(), **_details(NEW)}, requested_by=None)
    contacts = gateway().contacts(order_id=order.order_id)
    for role in (contacts.registrant, contacts.admin, contacts.tech, contacts.billing):
        assert (role.name, role.address, role.city) == ("Jose Munoz", "Calle del Coso 12, 3o", "Zaragoza")
