"""The Customer admin: search by email and name, the provider link, signup date, country, their orders."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Customer
from domains.models import Order

pytestmark = pytest.mark.django_db

URL = "/admin/accounts/customer/"


@pytest.fixture
def staff(client):
    admin = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#12345")
    client.force_login(admin)
    return client


def test_it_lists_customers_with_their_provider_id_date_and_country(staff, make_local_customer):
    make_local_customer("ada@example.org", customer_id=12345678, country="GB")
    page = staff.get(URL).content.decode()
    assert "ada@example.org" in page and "12345678" in page and "GB" in page
    assert "Signup date" in page


def test_a_customer_without_provider_id_is_highlighted(staff, make_local_customer):
    pending = make_local_customer("pending@example.org", customer_id=None)
    Customer.objects.filter(pk=pending.pk).update(customer_id=None, signup_sent_at=timezone.now())
    make_local_customer("unconfirmed@example.org").__class__.objects.filter(
        user__email="unconfirmed@example.org"
    ).update(customer_id=None)
    page = staff.get(URL).content.decode()
    assert "Needs reconciliation" in page and "Email not confirmed yet" in page
    filtered = staff.get(URL, {"provider_link": "missing"}).content.decode()
    assert "pending@example.org" in filtered and "unconfirmed@example.org" not in filtered
    waiting = staff.get(URL, {"provider_link": "unconfirmed"}).content.decode()
    assert "unconfirmed@example.org" in waiting and "pending@example.org" not in waiting


def test_it_searches_by_email_and_name(staff, make_local_customer):
    make_local_customer("ada@example.org", name="Ada Lovelace")
    make_local_customer("grace@example.org", name="Grace Hopper")
    by_email = staff.get(URL, {"q": "grace@"}).content.decode()
    assert "grace@example.org" in by_email and "ada@example.org" not in by_email
    by_name = staff.get(URL, {"q": "Lovelace"}).content.decode()
    assert "ada@example.org" in by_name and "grace@example.org" not in by_name


@pytest.mark.parametrize("term", ["jose", "munoz", "JOSE MUNOZ", "Muñoz", "josé"])
def test_a_name_is_found_without_its_accents(staff, make_local_customer, term):
    make_local_customer("jm@example.org", name="José Muñoz")
    make_local_customer("grace@example.org", name="Grace Hopper")
    found = staff.get(URL, {"q": term}).content.decode()
    assert "jm@example.org" in found and "grace@example.org" not in found


def test_a_name_changed_is_found_by_its_new_spelling(staff, make_local_customer):
    customer = make_local_customer("jm@example.org", name="Ada Lovelace")
    customer.name, customer.name_ascii = "Zoë Ñúñez", "Zoe Nunez"
    customer.save(update_fields=["name", "name_ascii"])
    assert "jm@example.org" in staff.get(URL, {"q": "nunez"}).content.decode()


def test_the_change_page_shows_their_orders_read_only(staff, make_local_customer):
    customer = make_local_customer("ada@example.org")
    Order.objects.create(order_id=555001, customer=customer, domain_name="ada-lovelace.com")
    page = staff.get(f"{URL}{customer.pk}/change/").content.decode()
    assert "ada-lovelace.com" in page and "555001" in page
    assert 'name="orders-0-domain_name"' not in page  # read-only, not editable


def test_entering_the_provider_id_activates_a_pending_account(staff, make_local_customer):
    customer = make_local_customer("pending@example.org")
    customer.customer_id = None
    customer.save()
    customer.user.is_active = False
    customer.user.save()
    page = staff.get(f"{URL}{customer.pk}/change/")
    form = page.context["adminform"].form
    data = {key: ("" if value is None else value) for key, value in form.initial.items() if key in form.fields}
    data.update(
        {
            "customer_id": "87654321",
            "orders-TOTAL_FORMS": "0",
            "orders-INITIAL_FORMS": "0",
            "orders-MIN_NUM_FORMS": "0",
            "orders-MAX_NUM_FORMS": "1000",
        }
    )
    response = staff.post(f"{URL}{customer.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    customer.refresh_from_db()
    customer.user.refresh_from_db()
    assert customer.customer_id == 87654321
    assert customer.user.is_active


def test_staff_can_discard_an_unconfirmed_signup_but_not_a_linked_customer(staff, make_local_customer):
    linked = make_local_customer("linked@example.org")
    pending = make_local_customer("pending@example.org")
    pending.customer_id = None
    pending.save()
    pending.user.is_active = False
    pending.user.save()
    response = staff.post(
        URL, {"action": "discard_unconfirmed", "_selected_action": [linked.pk, pending.pk]}, follow=True
    )
    assert "Discarded 1 unconfirmed signup(s)" in response.content.decode()
    assert not get_user_model().objects.filter(username="pending@example.org").exists()
    assert get_user_model().objects.filter(username="linked@example.org").exists()


def test_customers_cannot_be_added_by_hand(staff):
    assert staff.get(f"{URL}add/").status_code == 403


def test_contact_details_are_read_only_with_the_reason(staff, make_local_customer):
    customer = make_local_customer("ada@example.org", name="Ada Lovelace")
    page = staff.get(f"{URL}{customer.pk}/change/")
    html = page.content.decode()
    form = page.context["adminform"].form
    for field in ("name", "company", "address", "city", "state", "country", "zipcode", "country_code", "phone"):
        assert field not in form.fields, f"{field} is editable"
    assert "Ada Lovelace" in html  # shown, just not as an input
    assert "The customer changes them on their Contact details page" in html
    # A posted change to the contact is ignored: our copy cannot drift from what the provider holds.
    data = {
        "customer_id": str(customer.customer_id),
        "name": "Someone Else",
        "orders-TOTAL_FORMS": "0",
        "orders-INITIAL_FORMS": "0",
        "orders-MIN_NUM_FORMS": "0",
        "orders-MAX_NUM_FORMS": "1000",
    }
    assert staff.post(f"{URL}{customer.pk}/change/", data).status_code == 302
    customer.refresh_from_db()
    assert customer.name == "Ada Lovelace"


def test_the_customer_list_wraps_its_columns_to_fit_a_laptop_screen(staff, make_local_customer):
    make_local_customer("a-very-long-address-for-testing@example.org")
    html = staff.get(URL).content.decode()
    assert "css/admin-lists.css" in html
    from django.contrib.staticfiles import finders

    css = open(finders.find("css/admin-lists.css")).read()
    assert "white-space: normal" in css and "overflow-x: auto" in css and "overflow-wrap: anywhere" in css


def test_the_admin_carries_the_store_name(staff, settings):
    assert "Domain Store staff" in staff.get("/admin/").content.decode()
    settings.STORE_NAME = "Acme Domains"
    page = staff.get("/admin/").content.decode()
    assert "Acme Domains staff" in page and "<title>" in page and "Acme Domains admin" in page
    assert "Django administration" not in page


def test_a_number_finds_the_provider_customer_id_and_an_address_the_start_of_the_email(staff, make_local_customer):
    make_local_customer("ada@example.org", name="Ada Lovelace", customer_id=4242)
    make_local_customer("grace@example.org", name="Grace Hopper 4242", customer_id=777)
    by_id = staff.get(URL, {"q": " 4242 "}).content.decode()
    assert "ada@example.org" in by_id and "grace@example.org" not in by_id
    # The start of the address only: the index answers it.
    assert "ada@example.org" not in staff.get(URL, {"q": "da@example.org"}).content.decode()


def test_the_list_counts_at_most_its_cap(staff, make_local_customer, monkeypatch):
    from storefront import admin_lists

    monkeypatch.setattr(admin_lists, "COUNT_CAP", 2)
    for i in range(4):
        make_local_customer(f"c{i}@example.org")
    page = staff.get(URL).content.decode()
    assert "3 customers" in page  # the cap and one: "more than there is room to count"
