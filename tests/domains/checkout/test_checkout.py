"""`/checkout/`: GET reviews the cart with fresh prices, POST registers every line exactly once (sandbox over HTTP)."""

from __future__ import annotations

import re
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django_tasks_db.models import DBTaskResult

from accounts.models import Customer
from domains.models import Order, Registration
from storefront.gateway import Unavailable, gateway
from storefront.queues import QUEUES
from tests.domains.conftest import cart_of, line, put_in_cart, register_calls, wait_for_mail
from tests.factories import CONTACT, RegistrationFactory

pytestmark = pytest.mark.django_db(transaction=True)  # the worker runs on commit; some tests post from threads


def fresh(tld: str = "com") -> str:
    return f"co{uuid.uuid4().hex[:10]}.{tld}"


@pytest.fixture
def buyer(client, customer):
    client.force_login(customer.user)
    return customer


# The review digest each review page carried, by checkout id: what that page's Buy button posts.
_SHOWN: dict[str, str] = {}


def review(client):
    response = client.get("/checkout/")
    assert response.status_code == 200, response.content
    if response.context["checkout_id"] is not None:
        _SHOWN[str(response.context["checkout_id"])] = response.context["review_digest"]
    return response


def place(client, checkout_id, **kwargs):
    """Press Buy on the last review page shown for this checkout."""
    form = {"checkout_id": str(checkout_id), "review_digest": _SHOWN.get(str(checkout_id), ""), "accept_terms": "on"}
    return client.post("/checkout/", form, **kwargs)


def buy(client) -> tuple:
    """Review then place the order; returns the POST response and the checkout id."""
    checkout_id = review(client).context["checkout_id"]
    assert checkout_id is not None
    return place(client, checkout_id), checkout_id


def line_of(checkout_id, name) -> Registration:
    return Registration.objects.get(checkout_id=checkout_id, domain_name=name)


# --- Review -------------------------------------------------------------------------------------------------


def test_a_visitor_sees_the_review_and_is_asked_to_sign_in_to_buy(client, seeded_partner):
    name = fresh()
    put_in_cart(client, line(name, duration=2))
    html = review(client).content.decode()
    assert name in html
    assert "$30.98" in html  # two years: 12.99 + 14.99 at cost, plus 1.50 a year
    assert "Sign in or create an account to buy" in html
    assert 'href="/accounts/login/?next=/checkout/"' in html
    assert 'href="/accounts/signup/?next=/checkout/"' in html
    assert 'name="checkout_id"' not in html


def test_a_visitor_posting_is_sent_to_sign_in(client, seeded_partner, provider_calls):
    put_in_cart(client, line(fresh()))
    response = client.post("/checkout/", {"checkout_id": str(uuid.uuid4())})
    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/checkout/"
    assert register_calls(provider_calls) == 0


def test_the_review_shows_lines_totals_and_the_contact_details_used_for_every_role(client, buyer):
    free, paid = fresh("shop"), fresh()
    put_in_cart(
        client,
        line(free, duration=2, price=Decimal("32.99"), renew=Decimal("31.49")),
        line(paid, duration=1),
    )
    response = review(client)
    html = response.content.decode()
    assert free in html and paid in html
    assert "renews at $31.49/yr" in html
    assert "$47.48" in html  # 32.99 (.shop's first year is free: 29.99 + 1.50 a year) + 14.49
    assert "changed" not in html  # the quoted prices stand
    assert "registrant, admin, tech and billing" in html
    for value in (CONTACT["name"], CONTACT["address"], CONTACT["city"], CONTACT["zipcode"], buyer.email):
        assert value.replace("'", "&#x27;") in html
    assert "+44 2079460000" in html
    assert "United Kingdom" in html  # the country by name, not its code
    assert f'name="checkout_id" value="{response.context["checkout_id"]}"' in html
    assert "csrfmiddlewaretoken" in html
    assert "On your domains' records:" not in html  # written in English letters already: one form is enough


def test_the_review_shows_a_name_written_with_accents_as_the_records_will_read_it(client, buyer):
    Customer.objects.filter(pk=buyer.pk).update(name="José Muñoz", name_ascii="Jose Munoz")
    put_in_cart(client, line(fresh()))
    html = review(client).content.decode()
    assert "<strong>José Muñoz</strong>" in html
    assert 'On your domains\' records: <span lang="en">Jose Munoz, Analytical Engines' in html


@pytest.mark.parametrize(
    ("disabled", "said", "not_said"),
    [(True, "we bill you for these domains separately", "secure page"), (False, "secure page", "bill you")],
)
def test_the_review_says_how_the_customer_pays(client, buyer, disabled, said, not_said):
    """A reseller billing offline (PAYMENTS_DISABLED) says so; otherwise the page names the payment page and
    that the card is kept for renewals (and can be removed)."""
    put_in_cart(client, line(fresh(), duration=1))
    with override_settings(PAYMENTS_DISABLED=disabled):
        html = review(client).content.decode()
    assert said in html and not_said not in html
    if not disabled:
        assert "you can remove it from your" in html


def test_the_review_asks_the_provider_again_and_requotes_a_price_below_cost(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name, price=Decimal("9.99"), renew=Decimal("9.99")))
    html = review(client).content.decode()
    # 9.99 would now sell below the 12.99 cost: today's retail price replaces it, and the customer is told.
    assert f"The price of {name} for 1 year changed from $9.99 to $14.49." in html
    assert cart_of(client)[name]["price"] == "14.49"
    assert cart_of(client)[name]["renew"] == "16.49"
    # Not added through the cart (no fresh search answer to reuse): one availability call asked about it.
    assert [(n, kw["search_terms"], kw["tlds"]) for n, kw in provider_calls] == [
        ("domain_availability", [name.partition(".")[0]], ["com"])
    ]


def test_a_visitor_s_review_asks_the_provider_nothing(client, seeded_partner, provider_calls):
    """A visitor cannot buy from the review: reloading a 20-line review costs the provider nothing."""
    put_in_cart(client, *(line(fresh(tld)) for tld in ("com", "net", "org", "io") for _ in range(5)))
    for _ in range(3):
        assert "Sign in or create an account to buy" in review(client).content.decode()
    assert provider_calls == []


def test_the_review_asks_every_name_again_in_one_call_even_those_metasearch_called_available(
    client, buyer, provider_calls
):
    searched = [fresh(), fresh("net")]
    for name in searched:  # added from the search results: their MetaSearch answers are fresh in the cache
        assert client.post("/cart/add/", {"domain_name": name}).status_code in (200, 302)
    unsearched = [fresh("org") for _ in range(6)]  # in the cart from an earlier visit
    put_in_cart(client, *(line(name, price=Decimal("11.99"), renew=Decimal("13.99")) for name in unsearched))
    provider_calls.clear()

    response = review(client)

    assert response.context["can_buy"]
    assert sorted(cart_of(client)) == sorted(searched + unsearched)
    # MetaSearch marks no premium name, so its "available" is checked with the availability endpoint too.
    (only,) = provider_calls
    assert only[0] == "domain_availability"
    assert sorted(only[1]["search_terms"]) == sorted(name.partition(".")[0] for name in searched + unsearched)


def test_with_metasearch_down_a_name_is_added_and_reviewed_through_availability(client, buyer, fake_gateway):
    name = fresh()
    with fake_gateway.outage("metasearch", error=Unavailable("ConnectionError")):
        assert client.post("/cart/add/", {"domain_name": name}).status_code in (200, 302)
        assert name in cart_of(client)
        assert review(client).context["can_buy"]


def test_the_review_removes_a_domain_that_was_taken_meanwhile(client, buyer, other_customer):
    name = fresh()
    put_in_cart(client, line(name), line("example.com"))
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=name, duration=1)
    html = review(client).content.decode()
    assert f"{name} is no longer available, so we removed it from your cart." in html
    assert "example.com is no longer available" in html
    assert cart_of(client) == {}
    assert 'name="checkout_id"' not in html


def test_the_review_shows_a_provider_failure_and_offers_no_buy_button(client, buyer, fake_gateway):
    put_in_cart(client, line(fresh()))
    with fake_gateway.outage(error=Unavailable("ConnectionError")):  # the provider cannot be reached
        response = client.get("/checkout/")
    assert response.status_code == 503
    assert "We could not check the latest prices." in response.content.decode()
    assert 'name="checkout_id"' not in response.content.decode()


def test_a_sign_in_without_a_provider_account_cannot_buy(client, customer):
    from allauth.account.models import EmailAddress

    # Confirmed, but the provider customer is missing (its signup's answer was lost): staff reconcile it.
    EmailAddress.objects.create(user=customer.user, email=customer.user.email, verified=True, primary=True)
    customer.customer_id = None
    customer.save()
    client.force_login(customer.user)
    put_in_cart(client, line(fresh()))
    html = review(client).content.decode()
    assert "not linked to the domain service" in html
    assert 'name="checkout_id"' not in html


def test_an_empty_cart_has_nothing_to_check_out(client, buyer):
    assert "Your cart is empty" in review(client).content.decode()


# --- Placing ------------------------------------------------------------------------------------------------


def test_buying_registers_every_line_and_empties_the_cart(client, buyer, provider_calls, fake_gateway):
    names = [fresh(), fresh("shop")]
    put_in_cart(client, line(names[0], duration=2), line(names[1]))
    response, checkout_id = buy(client)
    assert response.status_code == 302
    assert response.url == f"/checkout/{checkout_id}/"
    for name in names:
        registration = line_of(checkout_id, name)
        assert registration.status == Registration.Status.REGISTERED
        assert Order.objects.get(order_id=registration.provider_order_id).customer == buyer
        assert fake_gateway.listed_orders(name) == 1
    # The quoted 14.49 for two years is below their cost (12.99 + 14.99): the review charged today's price.
    assert line_of(checkout_id, names[0]).total_price == Decimal("30.98")
    # .shop's first year costs us nothing, and today's 1.50 (the markup alone) is lower than the quoted 14.49.
    assert line_of(checkout_id, names[1]).total_price == Decimal("1.50")
    client.get(response.url)  # the confirmation page the browser lands on settles the cart
    assert cart_of(client) == {}
    assert register_calls(provider_calls) == 2


def test_the_customer_gets_one_confirmation_email_listing_each_outcome(client, buyer, other_customer):
    name, lost = fresh(), fresh()
    put_in_cart(client, line(name), line(lost))
    checkout_id = review(client).context["checkout_id"]
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=lost, duration=1)
    place(client, checkout_id)
    place(client, checkout_id)
    client.get(f"/checkout/{checkout_id}/")
    outbox = wait_for_mail(1)
    assert len(outbox) == 1
    message = outbox[0]
    assert message.to == [buyer.email]
    assert name in message.body
    assert f"- {name} (1 year, $14.49): Registered." in message.body
    assert f"- {lost} (1 year, $14.49): Not available any more." in message.body
    assert "1 of 2 domains registered" in message.subject
    assert str(checkout_id) in message.body
    assert f"See your order: http://testserver/checkout/{checkout_id}/" in message.body
    assert "password" not in message.body.lower()
    # The provider's own refusal text is for staff: the customer reads our sentence for the line.
    assert "Details:" not in message.body
    assert "Unable to register domain" not in message.body
    assert len(mail.outbox) == 1


def test_a_repeated_post_registers_nothing_new_and_shows_the_order(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    first, checkout_id = buy(client)
    again = place(client, checkout_id)
    assert again.status_code == 302
    assert again.url == first.url == f"/checkout/{checkout_id}/"
    assert Registration.objects.filter(domain_name=name).count() == 1
    assert register_calls(provider_calls) == 1


def test_a_cart_changed_after_the_review_must_be_reviewed_again(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    checkout_id = review(client).context["checkout_id"]
    client.post("/cart/update/", {"domain_name": name, "duration": "3"})
    response = place(client, checkout_id, follow=True)
    assert response.redirect_chain[-1][0] == "/checkout/"
    assert "Your cart changed since you reviewed it" in response.content.decode()
    assert register_calls(provider_calls) == 0
    assert not Registration.objects.filter(domain_name=name).exists()


def test_a_checkout_id_that_was_never_reviewed_is_refused(client, buyer, provider_calls):
    put_in_cart(client, line(fresh()))
    response = client.post("/checkout/", {"checkout_id": str(uuid.uuid4())}, follow=True)
    assert "Please review your order and confirm it again." in response.content.decode()
    assert register_calls(provider_calls) == 0


def test_a_missing_checkout_id_is_refused(client, buyer, provider_calls):
    put_in_cart(client, line(fresh()))
    response = client.post("/checkout/", {"checkout_id": "not-a-uuid"}, follow=True)
    assert response.status_code == 200
    assert "Please review your order and confirm it again." in response.content.decode()
    assert register_calls(provider_calls) == 0


def test_lines_fail_independently_and_failed_ones_stay_in_the_cart(client, buyer, other_customer):
    good, lost = fresh(), fresh()
    put_in_cart(client, line(good), line(lost))
    checkout_id = review(client).context["checkout_id"]
    gateway().domain_register(customer_id=other_customer.customer_id, domain_name=lost, duration=1)
    place(client, checkout_id, follow=True)
    assert line_of(checkout_id, good).status == Registration.Status.REGISTERED
    lost_line = line_of(checkout_id, lost)
    assert (lost_line.status, lost_line.failure_kind) == (
        Registration.Status.FAILED,
        Registration.FailureKind.UNAVAILABLE,
    )
    assert list(cart_of(client)) == [lost]
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "Not available any more" in html
    assert "Registered" in html


def test_a_name_that_became_premium_fails_as_premium(client, buyer, seeded_partner, fake_gateway):
    name = fresh()
    put_in_cart(client, line(name))
    checkout_id = review(client).context["checkout_id"]
    fake_gateway.reserve(name, kind="premium", partner=seeded_partner)
    place(client, checkout_id)
    assert line_of(checkout_id, name).failure_kind == Registration.FailureKind.PREMIUM
    assert "Premium name" in client.get(f"/checkout/{checkout_id}/").content.decode()


def test_a_failed_settlement_is_said_honestly_and_the_line_stays(client, buyer, seeded_partner, fake_gateway):
    name = fresh()
    put_in_cart(client, line(name))
    checkout_id = review(client).context["checkout_id"]
    fake_gateway.set_balance(Decimal("0.00"), partner=seeded_partner)
    place(client, checkout_id)
    assert line_of(checkout_id, name).failure_kind == Registration.FailureKind.REJECTED
    assert fake_gateway.listed_orders(name) == 0
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "you have not been charged and our staff have been told" in html
    assert "Unable to register domain" not in html  # the provider's text is for staff
    assert name in cart_of(client)


def test_a_term_below_the_minimum_fails_and_the_cart_line_learns_the_minimum(
    client, buyer, seeded_partner, fake_gateway
):
    name = fresh("dev")
    put_in_cart(client, line(name, price=Decimal("17.49"), renew=Decimal("17.49")))
    checkout_id = review(client).context["checkout_id"]
    fake_gateway.set_min_term("dev", 3, partner=seeded_partner)
    place(client, checkout_id)
    assert line_of(checkout_id, name).failure_kind == Registration.FailureKind.MINIMUM_TERM
    assert "Minimum term" in client.get(f"/checkout/{checkout_id}/").content.decode()
    assert cart_of(client)[name]["min_term"] == 3
    assert cart_of(client)[name]["duration"] == 3


def test_an_ai_domain_is_raised_to_its_two_year_minimum_before_anything_is_bought(client, buyer):
    name = fresh("ai")
    put_in_cart(client, line(name, price=Decimal("81.49"), renew=Decimal("81.49")))
    response = review(client)
    checkout_id = response.context["checkout_id"]
    # The review learns the two-year minimum from the prices and raises the term before anything is bought.
    assert cart_of(client)[name]["duration"] == 2
    assert cart_of(client)[name]["price"] == "162.98"  # 2 * 79.99 at cost, plus 1.50 a year
    assert f"so {name} is now 2 years at $162.98." in response.content.decode()
    place(client, checkout_id)
    assert line_of(checkout_id, name).status == Registration.Status.REGISTERED
    assert line_of(checkout_id, name).duration == 2


def test_a_lost_answer_shows_could_not_confirm_and_is_resolved_from_the_listing(
    client, buyer, provider_calls, fake_gateway
):
    name = fresh()
    put_in_cart(client, line(name))
    checkout_id = review(client).context["checkout_id"]
    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="register"):
        response = place(client, checkout_id)
    assert response.url == f"/checkout/{checkout_id}/"
    assert line_of(checkout_id, name).status == Registration.Status.UNKNOWN
    with fake_gateway.fault(error_rate=1.0, scope="orders"):
        html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "Could not confirm" in html
    assert 'hx-trigger="every 4s"' in html
    # It may well be registered: it leaves the cart, so the customer is not invited to buy it again meanwhile.
    assert name not in cart_of(client)
    cache.delete(f"checkout-reconcile:{checkout_id}")  # the page asks the worker again a few seconds later
    html = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert "Registered" in html
    assert line_of(checkout_id, name).status == Registration.Status.REGISTERED
    assert fake_gateway.listed_orders(name) == 1
    assert register_calls(provider_calls) == 1
    assert cart_of(client) == {}


def test_twenty_concurrent_posts_of_one_checkout_register_each_line_once(client, buyer, provider_calls, fake_gateway):
    names = [fresh(), fresh("net")]
    put_in_cart(client, line(names[0]), line(names[1], price=Decimal("15.49"), renew=Decimal("17.49")))
    checkout_id = review(client).context["checkout_id"]
    session_cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    start = threading.Barrier(20)

    def post(_: int) -> tuple[int, str]:
        # One browser (one session) submitting the same checkout twenty times at once.
        other = Client()
        other.cookies[settings.SESSION_COOKIE_NAME] = session_cookie
        try:
            start.wait()
            response = place(other, checkout_id)
            return response.status_code, response.get("Location", "")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(post, range(20)))

    assert answers == [(302, f"/checkout/{checkout_id}/")] * 20
    for name in names:
        assert fake_gateway.listed_orders(name) == 1
        assert Registration.objects.filter(domain_name=name, status__in=Registration.LIVE_STATUSES).count() == 1
        assert register_calls(provider_calls, name) == 1
    assert Registration.objects.filter(checkout_id=checkout_id).count() == 2


def test_the_cart_survives_signup_and_can_be_bought(client, seeded_partner):
    name = fresh()
    put_in_cart(client, line(name, duration=2))
    email = f"new-{uuid.uuid4().hex[:8]}@example.org"
    details = {**CONTACT, "company": "", "email": email, "password": "Signup#Pass9", "password2": "Signup#Pass9"}
    response = client.post("/accounts/signup/?next=/checkout/", {**details, "next": "/checkout/"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response.url == "/accounts/confirm-email/"
    # The confirmation link (from the email) brings the customer back to checkout, the cart as it was.
    from django.core import mail

    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", mail.outbox[-1].body).group(1)
    response = client.post(link)
    assert response.url == "/checkout/"
    assert cart_of(client)[name]["duration"] == 2
    response, checkout_id = buy(client)
    assert line_of(checkout_id, name).status == Registration.Status.REGISTERED
    assert line_of(checkout_id, name).customer.email == email


def test_only_post_and_get_are_allowed(client):
    assert client.put("/checkout/").status_code == 405


def test_someone_elses_checkout_id_cannot_be_reused(client, customer, other_customer):
    owner, intruder = customer, other_customer
    name = fresh()
    owner_client = Client()
    owner_client.force_login(owner.user)
    put_in_cart(owner_client, line(name))
    _, checkout_id = buy(owner_client)
    client.force_login(intruder.user)
    response = place(client, checkout_id)
    assert response.status_code == 404


# --- Buy is tied to what the tab showed ---------------------------------------------------------------------


def test_a_tab_showing_an_older_review_buys_nothing_and_shows_the_new_one(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    first_tab = review(client)
    old_digest = first_tab.context["review_digest"]
    checkout_id = first_tab.context["checkout_id"]
    # Another tab changes the term and reviews again: the session now holds that review, same checkout id.
    client.post("/cart/update/", {"domain_name": name, "duration": "3"})
    second_tab = review(client)
    assert second_tab.context["checkout_id"] == checkout_id
    assert second_tab.context["review_digest"] != old_digest

    # Buy pressed on the first tab, which showed one year at its price.
    response = client.post(
        "/checkout/",
        {"checkout_id": str(checkout_id), "review_digest": old_digest, "accept_terms": "on"},
        follow=True,
    )

    html = response.content.decode()
    assert response.redirect_chain[-1][0] == "/checkout/"
    assert "Nothing was bought" in html
    assert "3 years" in html  # the review as it stands now
    assert register_calls(provider_calls) == 0
    assert not Registration.objects.filter(domain_name=name).exists()

    # Confirming from the review now shown buys what it shows.
    place(client, checkout_id)
    assert line_of(checkout_id, name).duration == 3


def test_a_post_without_the_review_digest_buys_nothing(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    checkout_id = review(client).context["checkout_id"]

    response = client.post("/checkout/", {"checkout_id": str(checkout_id), "accept_terms": "on"}, follow=True)

    assert "Please review your order and confirm it again." in response.content.decode()
    assert register_calls(provider_calls) == 0


# --- Bounded provider work per request -----------------------------------------------------------------------

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}


def run_worker() -> None:
    call_command("run_worker", "--batch", "--no-startup-delay", "-v", "0")


@override_settings(TASKS=DATABASE_TASKS)
def test_buy_calls_no_provider_the_worker_registers_and_the_page_shows_progress(client, buyer, provider_calls):
    names = [fresh() for _ in range(3)]
    put_in_cart(client, *(line(name) for name in names))
    checkout_id = review(client).context["checkout_id"]
    provider_calls.clear()

    response = place(client, checkout_id)
    waiting = client.get(response.url)

    assert response.status_code == 302
    assert provider_calls == []  # neither Buy nor the confirmation page asked the provider anything
    assert not Registration.objects.filter(checkout_id=checkout_id).exists()
    html = waiting.content.decode()
    assert html.count("Being registered") == 3
    assert 'hx-trigger="every 4s"' in html  # htmx polls...
    assert '<noscript><meta http-equiv="refresh" content="5"></noscript>' in html  # ...or the page reloads

    run_worker()

    assert register_calls(provider_calls) == 3
    settled = client.get(response.url, HTTP_HX_REQUEST="true").content.decode()
    assert settled.count("Registered") >= 3
    assert "Being registered" not in settled
    assert "hx-trigger" not in settled  # settled: the polling stops
    assert cart_of(client) == {}


@override_settings(TASKS=DATABASE_TASKS)
def test_the_confirmation_page_leaves_lost_answers_to_the_worker(client, buyer, provider_calls):
    name = fresh()
    checkout_id = uuid.uuid4()
    Registration.objects.create(
        customer=buyer, domain_name=name, duration=1, checkout_id=checkout_id, status=Registration.Status.UNKNOWN
    )
    provider_calls.clear()

    for _ in range(5):
        assert "Could not confirm" in client.get(f"/checkout/{checkout_id}/").content.decode()

    assert provider_calls == []
    assert DBTaskResult.objects.count() == 1  # one reconcile asked of the worker, not one per view


@override_settings(TASKS=DATABASE_TASKS)
def test_a_double_click_on_buy_enqueues_the_checkout_once(client, buyer):
    put_in_cart(client, line(fresh()))
    checkout_id = review(client).context["checkout_id"]

    first = place(client, checkout_id)
    second = place(client, checkout_id)

    assert first.url == second.url == f"/checkout/{checkout_id}/"
    assert DBTaskResult.objects.count() == 1


def test_the_review_removes_a_domain_the_customer_already_owns(client, buyer, provider_calls):
    owned, wanted = fresh(), fresh()
    RegistrationFactory(customer=buyer, domain_name=owned, status="registered")  # bought in an earlier checkout
    put_in_cart(client, line(owned), line(wanted))

    response = client.get("/checkout/")

    html = response.content.decode()
    assert response.status_code == 200
    assert f"{owned} is already yours." in html
    assert list(cart_of(client)) == [wanted]
    assert wanted in html
    assert register_calls(provider_calls) == 0
