"""The activity log's writer and the account's own rows: signup, the provider link, the password, the control panel;
the actor from the request (a visitor acting for the account it makes), the system in a background task; nothing
secret; the customer's export leaves out which staff member it was."""

from __future__ import annotations

import pytest
from django_tasks import task

from accounts.models import Activity
from accounts.privacy import customer_export
from accounts.signup import services
from accounts.staff.activity import ActingAs, acting, activity_record
from tests.accounts.conftest import VALID

pytestmark = pytest.mark.django_db
Actor = Activity.Actor


@task()
def _change_in_the_worker(customer_pk: int) -> None:
    from accounts.models import Customer

    activity_record(action="password_changed", customer=Customer.objects.get(pk=customer_pk))


def test_unknown_actions_and_secret_details_are_refused(make_local_customer):
    customer = make_local_customer("ada@example.org")
    with pytest.raises(ValueError, match="unknown"):
        activity_record(action="something_new", customer=customer)
    for secret in ("transfer_code", "password", "Token", "code"):
        with pytest.raises(ValueError, match="never holds secrets"):
            activity_record(action="transfer_code_shown", customer=customer, detail={secret: "x"})
    assert not Activity.objects.exists()


def test_a_signup_is_the_new_customers_own(client, seeded):
    response = client.post("/accounts/signup/", VALID)
    assert response.status_code == 302
    row = Activity.objects.get(action="signup")
    assert (row.actor, row.actor_name, row.customer.user.email) == (Actor.CUSTOMER, "ada@example.org", VALID["email"])


def test_the_provider_link_and_the_panel_are_logged(seeded, make_local_customer):
    customer = make_local_customer("ada@example.org", customer_id=None)
    from allauth.account.models import EmailAddress

    EmailAddress.objects.update_or_create(
        user=customer.user, email=customer.user.email, defaults={"verified": True, "primary": True}
    )
    services.customer_provider_signup(customer=customer)
    services.panel_login_url(email=customer.user.email)
    assert list(Activity.objects.order_by("pk").values_list("action", "actor")) == [
        ("provider_linked", Actor.SYSTEM),
        ("panel_opened", Actor.SYSTEM),
    ]


def test_a_password_changed_on_allauths_page_is_the_customers(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    client.post(
        "/accounts/password/change/",
        {"oldpassword": VALID["password"], "password1": "Brand#New123", "password2": "Brand#New123"},
    )
    row = Activity.objects.get(action="password_changed")
    assert (row.actor, row.actor_user_id, row.customer_id) == (Actor.CUSTOMER, customer.user.pk, customer.pk)


def test_a_background_task_acts_as_the_system_even_inside_a_request(make_local_customer, admin_user):
    customer = make_local_customer("ada@example.org")
    with acting(ActingAs(Actor.STAFF, admin_user.pk, admin_user.username)):
        _change_in_the_worker.enqueue(customer_pk=customer.pk)  # the test backend runs it at once, right here
        activity_record(action="recovery_codes", customer=customer)
    assert list(Activity.objects.order_by("pk").values_list("action", "actor")) == [
        ("password_changed", Actor.SYSTEM),
        ("recovery_codes", Actor.STAFF),
    ]


def test_the_customers_export_has_their_log_without_the_staff_members_name(make_local_customer, admin_user):
    customer = make_local_customer("ada@example.org")
    with acting(ActingAs(Actor.STAFF_AS_CUSTOMER, admin_user.pk, admin_user.username)):
        activity_record(action="auto_renew_off", customer=customer, domain_name="ada.com")
    exported = customer_export(customer=customer)["activity"]
    assert [(row["action"], row["actor"], row["domain_name"]) for row in exported] == [
        ("auto_renew_off", Actor.STAFF_AS_CUSTOMER, "ada.com")
    ]
    assert "actor_name" not in exported[0] and admin_user.username not in str(exported)


def test_deleting_the_account_is_logged_before_it_goes(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    client.post("/accounts/reauthenticate/", {"password": VALID["password"]})
    client.post("/accounts/delete/", {"confirm": "delete"})
    row = Activity.objects.get(action="account_deleted")
    assert row.actor == Actor.CUSTOMER and row.actor_name == "ada@example.org"
