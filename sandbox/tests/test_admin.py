"""The sandbox in the admin: every page renders, keys are created with their plaintext shown once."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from sandbox.models import ApiKey, DomainOrder, hash_secret

from .conftest import SIGNUP, ApiClient

pytestmark = pytest.mark.django_db

MODELS = [
    "partner",
    "apikey",
    "cataloguetld",
    "reservedname",
    "fault",
    "customer",
    "domainorder",
    "dnsrecord",
    "contact",
]


@pytest.fixture
def staff(admin_client, partner):
    return admin_client


@pytest.mark.parametrize("model", MODELS)
def test_changelists_render(staff, model, customer_id):
    assert staff.get(reverse(f"admin:sandbox_{model}_changelist")).status_code == 200


def test_partner_page_shows_key_prefixes_never_hashes(staff, partner):
    response = staff.get(reverse("admin:sandbox_partner_change", args=[partner.pk]))
    assert response.status_code == 200
    key = ApiKey.objects.get(partner=partner)
    assert key.prefix.encode() in response.content
    assert key.key_hash.encode() not in response.content


def test_creating_a_key_shows_the_plaintext_once(staff, partner):
    response = staff.post(
        reverse("admin:sandbox_apikey_add"),
        {"partner": partner.pk, "environment": "live", "label": "rotation", "expires_at_0": "", "expires_at_1": ""},
    )
    assert response.status_code == 302, response.content
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    [plaintext] = [word for message in shown for word in message.split() if word.startswith("live_")]
    key = ApiKey.objects.get(label="rotation")
    assert key.key_hash == hash_secret(plaintext)
    assert ApiClient(plaintext, root="/live").get("/api/v1/hello").status_code == 200
    shown_once = staff.get(response["Location"])
    assert plaintext.encode() in shown_once.content
    for url in (response["Location"], reverse("admin:sandbox_apikey_change", args=[key.pk])):
        assert plaintext.encode() not in staff.get(url).content


def test_a_third_active_key_is_refused_in_the_admin(staff, partner):
    ApiKey.issue(partner=partner)
    response = staff.post(reverse("admin:sandbox_apikey_add"), {"partner": partner.pk, "environment": "test"})
    assert response.status_code == 200
    assert b"at most 2 active" in response.content
    assert ApiKey.objects.filter(partner=partner).count() == 2


def test_revoke_action(staff, partner, api):
    key = ApiKey.objects.get(partner=partner)
    staff.post(reverse("admin:sandbox_apikey_changelist"), {"action": "revoke_keys", "_selected_action": [key.pk]})
    assert api.get("/api/v1/hello").json() == {"message": "key_revoked"}


def save_order(staff, order: DomainOrder, *, contacts: int = 0, **fields: str):
    """Post the order's admin form as a browser would: its expiry as shown, the inlines' management forms."""
    form = {
        "expires_at_0": order.expires_at.strftime("%Y-%m-%d"),
        "expires_at_1": order.expires_at.strftime("%H:%M:%S"),
        "dns_records-TOTAL_FORMS": "0",
        "dns_records-INITIAL_FORMS": "0",
        "contacts-TOTAL_FORMS": str(contacts),
        "contacts-INITIAL_FORMS": str(contacts),
    }
    return staff.post(reverse("admin:sandbox_domainorder_change", args=[order.pk]), {**form, **fields})


def test_staff_can_change_an_orders_status(staff, api, customer_id):
    order_id = api.post(
        "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "demo.com", "duration": 1}
    ).json()["order_id"]
    order = DomainOrder.objects.get(order_id=order_id)
    response = staff.get(reverse("admin:sandbox_domainorder_change", args=[order.pk]))
    assert response.status_code == 200
    assert order.transfer_code.encode() not in response.content
    response = save_order(staff, order, status="Suspended", transfer_lock="on")
    assert response.status_code == 302, response.content
    listing = api.get("/api/v1/domains/orders", {"customer_id": customer_id}).json()
    assert listing["orders"][0]["status"] == "Suspended"


def test_an_order_page_shows_its_lock_privacy_and_contacts_and_staff_can_change_them(staff, api, customer_id):
    order_id = api.post(
        "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "shown.com", "duration": 1}
    ).json()["order_id"]
    agent = {**{k: v for k, v in SIGNUP.items() if k != "password"}, "name": "Charles Babbage"}
    api.post("/api/v1/contacts", {"order_id": order_id, "contacts": {"tech": agent}})
    api.post("/api/v1/privacy-protection", {"order_id": order_id, "duration": 1})
    order = DomainOrder.objects.get(order_id=order_id)
    page = staff.get(reverse("admin:sandbox_domainorder_change", args=[order.pk])).content.decode()
    for shown in ("Transfer lock", "Privacy enabled", "Privacy expires at", "Charles Babbage", "tech"):
        assert shown in page
    customer_page = staff.get(reverse("admin:sandbox_customer_change", args=[order.customer.pk])).content.decode()
    assert "Charles Babbage" in customer_page
    # Unticked lock and privacy, the paid-until date emptied; the contact inline sends its one row back unchanged.
    contact = {"contacts-0-id": str(order.contacts.get().pk), "contacts-0-order": str(order.pk)}
    response = save_order(staff, order, contacts=1, status="Active", privacy_expires_at_0="", **contact)
    assert response.status_code == 302, response.content
    details = api.get("/api/v1/domains/details", {"order_id": order_id}).json()
    assert details["transfer_lock"] is False
    never = {"purchased": False, "enabled": False, "expiry": None, "expiry_timestamp": None}
    assert details["privacy_protection"] == never
