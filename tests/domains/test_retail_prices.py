"""Every price a customer sees is our retail price (cost + markup, rounded), never the provider's own figure;
a quote is honoured unless the cost rose past it; rows say what the customer already has (sandbox over HTTP)."""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

import pytest

from domains.models import Registration
from pricing.models import CostPrice
from pricing.sync import prices_sync
from tests.domains.conftest import cart_of, register_calls, wait_for_mail
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db(transaction=True)  # the worker runs on commit; some tests post from threads
pytest_plugins = ["tests.domains.fixtures_orders"]

HTMX = {"HX-Request": "true"}


def fresh(tld: str = "com") -> str:
    return f"rp{uuid.uuid4().hex[:10]}.{tld}"


def row_of(html: str, domain: str) -> str:
    for row in re.findall(r'<li class="result-row.*?</li>', html, flags=re.S):
        if f'<span class="result-domain">{domain}</span>' in row:
            return row
    raise AssertionError(f"no row for {domain}")


def set_com_cost(fake_gateway, amount: str) -> None:
    """The provider's .com cost becomes `amount` (register and renew, per year), and our table syncs it."""
    fake_gateway.set_price("com", register=amount, renew=amount)
    result = prices_sync()
    assert result.ok, result.message


def reviewed(review) -> dict[str, str]:
    """The Buy form of the review page shown: its checkout and the digest of what it showed."""
    return {
        "checkout_id": str(review.context["checkout_id"]),
        "review_digest": review.context["review_digest"],
        "accept_terms": "on",
    }


def buy_through_every_page(client, name: str) -> dict[str, str]:
    """Search, add to the cart, review, buy, and read the confirmation page and email: each page's HTML."""
    pages = {"search": client.get("/search/", {"q": name}).content.decode()}
    client.post("/cart/add/", {"domain_name": name})
    pages["cart"] = client.get("/cart/").content.decode()
    review = client.get("/checkout/")
    pages["checkout"] = review.content.decode()
    response = client.post("/checkout/", reviewed(review))
    assert response.status_code == 302, response
    pages["confirmation"] = client.get(response.url).content.decode()
    pages["email"] = wait_for_mail(1)[0].body
    return pages


@pytest.mark.parametrize(("rounding", "retail"), [("none", "$12.00"), ("99", "$12.99")])
def test_every_page_shows_the_retail_price_and_never_the_providers(client, customer, fake_gateway, rounding, retail):
    client.force_login(customer.user)
    set_com_cost(fake_gateway, "10.00")
    name = fresh()

    with markup(percent="20", rounding=rounding):
        pages = buy_through_every_page(client, name)

    assert f"{retail}/yr" in row_of(pages["search"], name)  # our own text: first year and renewal alike
    assert f"<dt>Total for 1 year</dt><dd>{retail}</dd>" in pages["cart"]
    assert f"Buy now · {retail}" in pages["checkout"]
    assert retail in pages["confirmation"]
    assert f"- {name} (1 year, {retail}): Registered." in pages["email"]
    for page, html in pages.items():
        assert "$10.00" not in html, f"the provider's figure is on the {page}"
        assert "10.00 USD" not in html and "USD 10" not in html, page
    registration = Registration.objects.get(domain_name=name)
    assert registration.total_price == Decimal(retail.lstrip("$"))
    assert registration.cost_price == Decimal("10.00")


def test_a_new_cost_shows_after_the_sync_and_the_checkout_requotes_a_line_that_would_lose_money(
    client, customer, fake_gateway
):
    client.force_login(customer.user)
    name = fresh()
    client.post("/cart/add/", {"domain_name": name})
    assert cart_of(client)[name]["price"] == "14.49"  # .com's cost, 12.99, plus 1.50

    fake_gateway.set_price("com", register="20.00", renew="20.00")
    # Until the sync runs, our table (and so every page) keeps the last prices.
    assert "$14.49 first year" in client.get("/search/", {"q": name}).content.decode()
    assert prices_sync().ok

    assert "$21.50/yr" in row_of(client.get("/search/", {"q": name}).content.decode(), name)  # 20.00 + 1.50
    html = client.get("/checkout/").content.decode()
    assert f"The price of {name} for 1 year changed from $14.49 to $21.50." in html
    assert "Buy now · $21.50" in html
    assert cart_of(client)[name]["price"] == "21.50"


def test_a_cost_rising_past_the_reviewed_price_stops_the_buy_and_shows_the_new_price(
    client, customer, fake_gateway, provider_calls
):
    client.force_login(customer.user)
    name = fresh()
    client.post("/cart/add/", {"domain_name": name})
    review = client.get("/checkout/")
    set_com_cost(fake_gateway, "20.00")

    response = client.post("/checkout/", reviewed(review), follow=True)

    html = response.content.decode()
    assert response.redirect_chain[-1][0] == "/checkout/"
    assert f"The price of {name} for 1 year changed from $14.49 to $21.50." in html
    assert "Buy now · $21.50" in html
    assert register_calls(provider_calls) == 0
    assert not Registration.objects.filter(domain_name=name).exists()


def test_a_cost_falling_keeps_the_reviewed_price_at_buy(client, customer, fake_gateway):
    client.force_login(customer.user)
    name = fresh()
    client.post("/cart/add/", {"domain_name": name})
    review = client.get("/checkout/")
    set_com_cost(fake_gateway, "5.00")

    client.post("/checkout/", reviewed(review))

    registration = Registration.objects.get(domain_name=name)
    assert registration.status == Registration.Status.REGISTERED
    assert registration.total_price == Decimal("14.49")  # what was reviewed is what is charged
    assert registration.cost_price == Decimal("5.00")
    assert registration.margin.amount == Decimal("9.49")


def test_premium_and_unpriced_rows_have_no_buy_button(client, seeded_partner):
    CostPrice.objects.filter(tld__name="net").delete()  # the provider sells .net, but we have no cost for it

    html = client.get("/search/", {"q": "bluebird"}).content.decode()
    unpriced = row_of(html, "bluebird.net")
    assert "Not sold here" in unpriced
    assert 'name="domain_name"' not in unpriced
    assert 'name="domain_name" value="bluebird.com"' in row_of(html, "bluebird.com")

    premium = row_of(client.get("/search/", {"q": "cars.com"}).content.decode(), "cars.com")
    assert "Premium" in premium and "Not sold here" in premium
    assert 'name="domain_name"' not in premium

    response = client.post("/cart/add/", {"domain_name": "bluebird.net"}, headers=HTMX)
    assert "bluebird.net is not sold here." in response.content.decode()
    assert cart_of(client) == {}


def test_a_domain_the_customer_owns_says_yours_with_a_link_to_manage_it(client, customer, provider_orders):
    order = provider_orders.register(customer, fresh())
    client.force_login(customer.user)

    mine = row_of(client.get("/search/", {"q": order.domain_name}).content.decode(), order.domain_name)

    assert "Yours" in mine
    assert f'href="/orders/{order.order_id}/"' in mine and "Manage" in mine
    assert "Taken" not in mine
    assert 'name="domain_name"' not in mine


def test_someone_elses_domain_is_still_taken(client, customer, other_customer, provider_orders):
    order = provider_orders.register(other_customer, fresh())
    client.force_login(customer.user)

    row = row_of(client.get("/search/", {"q": order.domain_name}).content.decode(), order.domain_name)

    assert "Taken" in row
    assert "Yours" not in row and "/orders/" not in row


def test_after_a_reload_a_domain_in_the_cart_says_so(client, seeded_partner):
    name = fresh()
    client.post("/cart/add/", {"domain_name": name}, headers=HTMX)

    for response in (client.get("/search/", {"q": name}), client.get("/search/", {"q": name}, headers=HTMX)):
        mine = row_of(response.content.decode(), name)
        assert "In your cart ✓" in mine
        assert 'href="/cart/"' in mine and "View cart" in mine
        assert 'name="domain_name"' not in mine
