"""WHOIS privacy on the domain page: bought with the saved card or on the payment page, switched on or off for free;
said plainly when the provider does not offer it; never paid for by staff acting as the customer."""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import ActingAs, acting
from billing.models import Payment
from domains.models import Order, PrivacyPurchase
from domains.orders.privacy import privacy_years
from domains.orders.privacy_flow import privacy_buy
from tests.billing.conftest import GOOD_CARD
from tests.domains.orders.test_acting import staff_member, start_acting

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db


def page(client: Client, order: Order) -> str:
    return client.get(reverse("order_detail", args=[order.order_id])).content.decode()


def buy_form(html: str) -> dict[str, str]:
    form = html[html.index('action="/orders/') : html.index("</form>", html.index("/privacy/buy/"))]
    return dict(re.findall(r'name="(token|price_shown)" value="([^"]+)"', form))


def buy(client: Client, order: Order, pay_with: str, form: dict[str, str] | None = None):
    form = form or buy_form(page(client, order))
    return client.post(reverse("order_privacy_buy", args=[order.order_id]), {**form, "pay_with": pay_with})


def pay_on_the_payment_page(client, order, stripe_sandbox) -> Payment:
    response = buy(client, order, "page")
    assert response.status_code == 303 and response["Location"].startswith(stripe_sandbox.api_base)
    payment = Payment.objects.get(customer=order.customer, lines__details__kind="privacy")
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    return payment


@pytest.fixture
def paying(signed_in, stripe_sandbox):
    return signed_in


def test_the_page_offers_privacy_for_the_domains_term_at_its_price(paying, customer, provider_orders):
    order = provider_orders.register(customer, "showprivacy.com")
    html = page(paying, order)
    assert "Your name, address, email address and phone number are public in WHOIS lookups" in html
    assert "Add privacy · $6.49" in html  # 4.99 a year plus the store's 1.50
    assert "For 1 year, to cover the domain until it expires." in html
    assert buy_form(html)["price_shown"] == "6.49"


def test_paying_on_the_payment_page_buys_privacy_once_and_the_return_says_so(
    paying, customer, provider_orders, provider_calls, stripe_sandbox
):
    order = provider_orders.register(customer, "paypriv.com")
    payment = pay_on_the_payment_page(paying, order, stripe_sandbox)
    assert provider_calls.count("privacy_purchase") == 0  # nothing before the payment is authorised
    back = paying.get(reverse("order_detail", args=[order.order_id]) + f"?privacy={payment.checkout_id}", follow=True)
    html = back.content.decode()
    assert "WHOIS privacy is on: the contact details of paypriv.com are hidden in public lookups." in html
    assert "WHOIS privacy is <strong>on</strong>" in html
    assert provider_orders.at_provider(order).privacy_enabled
    payment.refresh_from_db()
    assert (payment.status, str(payment.amount_captured)) == (Payment.Status.CAPTURED, "6.49")
    again = paying.get(reverse("order_detail", args=[order.order_id]) + f"?privacy={payment.checkout_id}")
    assert again.status_code == 302
    assert provider_calls.count("privacy_purchase") == 1


def test_the_saved_card_pays_in_one_click_once_however_often_it_is_pressed(
    paying, customer, provider_orders, provider_calls, stripe_sandbox
):
    first = provider_orders.register(customer, "cardfirst.com")
    payment = pay_on_the_payment_page(paying, first, stripe_sandbox)
    paying.get(reverse("order_detail", args=[first.order_id]) + f"?privacy={payment.checkout_id}")
    second = provider_orders.register(customer, "cardsecond.com")
    html = page(paying, second)
    assert "Add privacy · $6.49 on your Visa •••• 4242" in html
    form = buy_form(html)
    for _ in range(2):  # a double click, a reload that posts again
        response = buy(paying, second, "card", form)
        assert response.status_code == 302 and response["Location"].endswith("#privacy")
    said = buy(paying, second, "card", form) and paying.get(reverse("order_detail", args=[second.order_id]))
    assert "WHOIS privacy is on: the contact details of cardsecond.com are hidden" in said.content.decode()
    assert provider_calls.count("privacy_purchase") == 2
    assert PrivacyPurchase.objects.filter(order=second, status=PrivacyPurchase.PURCHASED).count() == 1
    charged = Payment.objects.get(checkout_id=uuid.UUID(form["token"]))
    assert (charged.status, str(charged.amount_captured), charged.stripe_session_id) == (
        Payment.Status.CAPTURED,
        "6.49",
        None,
    )
    assert provider_orders.at_provider(second).privacy_enabled


def test_a_second_tab_cannot_buy_privacy_the_domain_already_has(
    paying, customer, provider_orders, provider_calls, stripe_sandbox
):
    first = provider_orders.register(customer, "tabfirst.com")
    payment = pay_on_the_payment_page(paying, first, stripe_sandbox)
    paying.get(reverse("order_detail", args=[first.order_id]) + f"?privacy={payment.checkout_id}")
    second = provider_orders.register(customer, "tabsecond.com")
    older_tab = buy_form(page(paying, second))  # two tabs on the domain page, each with its own form
    newer_tab = buy_form(page(paying, second))
    buy(paying, second, "card", newer_tab)
    response = buy(paying, second, "card", older_tab)
    assert response.status_code == 302
    said = paying.get(reverse("order_detail", args=[second.order_id])).content.decode()
    assert "WHOIS privacy is already paid for on this domain (or being added). Nothing was charged." in said
    assert not Payment.objects.filter(checkout_id=uuid.UUID(older_tab["token"])).exists()
    assert Payment.objects.filter(lines__reference__contains="tabsecond.com").count() == 1
    assert PrivacyPurchase.objects.filter(order=second, status=PrivacyPurchase.PURCHASED).count() == 1


def test_the_one_click_button_says_the_tax_the_card_is_charged(
    paying, customer, provider_orders, provider_calls, stripe_sandbox
):
    from decimal import Decimal

    from pricing.models import TaxRate, TaxRegistration

    first = provider_orders.register(customer, "taxfirst.com")
    payment = pay_on_the_payment_page(paying, first, stripe_sandbox)
    paying.get(reverse("order_detail", args=[first.order_id]) + f"?privacy={payment.checkout_id}")
    TaxRegistration.objects.create(country=customer.country, tax_id="X1", name="Example Domains Ltd")
    TaxRate.objects.create(country=customer.country, rate=Decimal(10), label="Sales tax")
    second = provider_orders.register(customer, "taxsecond.com")
    html = page(paying, second)
    # $6.49 and 10 % on top: the button names the $7.14 the card is charged, not the price before tax.
    assert "Add privacy · $7.14 on your Visa •••• 4242" in html
    buy(paying, second, "card", buy_form(html))
    charged = Payment.objects.get(lines__reference__contains="taxsecond.com")
    assert str(charged.amount_captured) == "7.14"


def test_switching_off_and_on_again_is_free_and_logged(
    paying, customer, provider_orders, provider_calls, stripe_sandbox
):
    order = provider_orders.register(customer, "switchpriv.com")
    payment = pay_on_the_payment_page(paying, order, stripe_sandbox)
    paying.get(reverse("order_detail", args=[order.order_id]) + f"?privacy={payment.checkout_id}")
    payments = Payment.objects.count()

    off = paying.post(reverse("order_privacy", args=[order.order_id]), {"privacy": "off"}, follow=True)
    html = off.content.decode()
    assert "WHOIS privacy is off: the contact details of switchpriv.com are public again." in html
    assert "WHOIS privacy is <strong>off</strong>" in html and "switching it on is free" in html
    assert not provider_orders.at_provider(order).privacy_enabled
    on = paying.post(reverse("order_privacy", args=[order.order_id]), {"privacy": "on"}, follow=True)
    assert "WHOIS privacy is on for switchpriv.com." in on.content.decode()
    assert provider_orders.at_provider(order).privacy_enabled
    assert Payment.objects.count() == payments
    logged = Activity.objects.filter(domain_name="switchpriv.com", action__startswith="privacy").order_by("pk")
    assert list(logged.values_list("action", "actor")) == [
        ("privacy_purchased", Activity.Actor.SYSTEM),  # bought by the worker settling the payment
        ("privacy_off", Activity.Actor.CUSTOMER),
        ("privacy_on", Activity.Actor.CUSTOMER),
    ]


def test_switching_on_privacy_that_is_not_paid_for_is_refused(signed_in, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "notpaid.com")
    response = signed_in.post(reverse("order_privacy", args=[order.order_id]), {"privacy": "on"}, follow=True)
    assert "WHOIS privacy is not paid for on this domain. Add it first." in response.content.decode()
    assert provider_calls.count("privacy_set") == 0


def test_a_price_that_moved_since_the_page_was_shown_charges_nothing(paying, customer, provider_orders):
    order = provider_orders.register(customer, "moved.com")
    form = {**buy_form(page(paying, order)), "price_shown": "5.00"}
    response = buy(paying, order, "page", form)
    assert response.status_code == 302
    assert not Payment.objects.exists()
    follow = paying.get(response["Location"]).content.decode()
    assert "The price of WHOIS privacy changed to $6.49 since this page was shown. Nothing was charged" in follow


@override_settings(RESELLER_CAPABILITIES=[])
def test_where_the_provider_does_not_offer_it_the_page_says_the_details_are_public(
    signed_in, customer, provider_orders, provider_calls
):
    order = provider_orders.register(customer, "public.com")
    html = page(signed_in, order)
    assert "Your contact details are public." in html
    assert "WHOIS privacy is not available through us yet" in html
    assert "use a business address or a post office box in your contact details" in html
    assert "/privacy/buy/" not in html
    assert f'href="/wanted/privacy/?order={order.order_id}"' in html  # asking for it is counted (demand/)
    form = {"token": str(uuid.uuid4()), "price_shown": "6.49", "pay_with": "page"}
    follow = signed_in.post(reverse("order_privacy_buy", args=[order.order_id]), form, follow=True)
    assert "WHOIS privacy is not available through us yet" in follow.content.decode()
    assert provider_calls.count("privacy_purchase") == provider_calls.count("privacy_set") == 0
    assert not Payment.objects.exists()


def test_staff_acting_as_the_customer_are_refused_paying(client, customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "staffpriv.com")
    start_acting(client, staff_member(), customer, reverse("order_detail", args=[order.order_id]))
    form = {"token": str(uuid.uuid4()), "price_shown": "6.49", "pay_with": "card"}
    response = client.post(reverse("order_privacy_buy", args=[order.order_id]), form)
    assert response.status_code == 403
    assert "This is not available while our staff act as a customer" in response.content.decode()
    # The service refuses too, behind the middleware.
    with acting(ActingAs(Activity.Actor.STAFF_AS_CUSTOMER, None, "support")), pytest.raises(ActingRefused):
        privacy_buy(order=order, token=uuid.uuid4(), price_shown=0, saved_card=True, return_url="http://x/")
    assert not Payment.objects.exists() and provider_calls.count("privacy_purchase") == 0


def test_privacy_covers_the_domain_until_it_expires_in_whole_years():
    import datetime as dt

    now = dt.datetime(2026, 11, 25, tzinfo=dt.UTC)
    assert privacy_years(expires_at=now + dt.timedelta(days=366), now=now) == 1
    assert privacy_years(expires_at=now + dt.timedelta(days=731), now=now) == 2
    assert privacy_years(expires_at=now + dt.timedelta(days=400), now=now) == 2
    assert privacy_years(expires_at=now + dt.timedelta(days=20), now=now) == 1
    assert privacy_years(expires_at=None) == 1


def test_staff_see_each_purchase_in_the_admin(client, customer, provider_orders, stripe_sandbox):
    from django.contrib.auth.models import User

    order = provider_orders.register(customer, "adminpriv.com")
    client.force_login(customer.user)
    payment = pay_on_the_payment_page(client, order, stripe_sandbox)
    client.get(reverse("order_detail", args=[order.order_id]) + f"?privacy={payment.checkout_id}")
    client.force_login(User.objects.create_superuser("staff@example.com", "staff@example.com", "x-staff-password-1"))
    listing = client.get("/admin/domains/privacypurchase/").content.decode()
    assert "adminpriv.com" in listing and "Purchased" in listing


def test_privacy_bought_before_the_provider_stopped_offering_it_is_shown_on_not_public(
    signed_in, customer, provider_orders
):
    import datetime as dt

    from django.utils import timezone

    order = provider_orders.register(customer, "stillon.com")
    until = timezone.now() + dt.timedelta(days=200)
    Order.objects.filter(pk=order.pk).update(privacy_enabled=True, privacy_expires_at=until)
    with override_settings(RESELLER_CAPABILITIES=[]):
        html = page(signed_in, order)
    assert "WHOIS privacy is <strong>on</strong>" in html
    assert "Your contact details are public." not in html
    assert "Switch privacy off" not in html


def test_privacy_ending_before_the_renewed_domain_is_offered_for_the_years_between(
    paying, customer, provider_orders, stripe_sandbox
):
    order = provider_orders.register(customer, "extendpriv.com")
    first = pay_on_the_payment_page(paying, order, stripe_sandbox)
    paying.get(reverse("order_detail", args=[order.order_id]) + f"?privacy={first.checkout_id}", follow=True)
    order.refresh_from_db()
    assert order.privacy_expires_at is not None
    # Renewed for two more years since (on the page, by the customer): privacy still ends where it did.
    provider_orders.set_expiry_in_days(order, 3 * 365)
    html = page(paying, order)
    assert "its privacy only until" in html
    assert "Extend privacy by 2 years · $12.98" in html  # two years of 6.49
    assert buy_form(html)["price_shown"] == "12.98"

    response = buy(paying, order, "page")
    assert response.status_code == 303
    payment = Payment.objects.filter(lines__details__kind="privacy").order_by("pk").last()
    assert payment is not None and payment.amount == Decimal("12.98")
    assert payment.lines.get().details["years"] == 2
