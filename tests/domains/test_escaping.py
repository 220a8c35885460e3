"""Provider and customer text is shown as text, never as markup, wherever it is rendered (security issue).

Each test puts a `<script>` where a value comes from the provider (MetaSearch summaries and messages, refusal
texts staff see, DNS values in tests/dns/test_escaping.py) or from a customer (contact details), and asserts
the page carries it escaped and never raw. The search rows are built as HTML in Python (domains/search_views.py),
so they are covered first.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from domains.models import Registration
from storefront.gateway import MetaSearch, MetaSearchMeta, MetaSearchResult, Pricing, Unavailable
from tests.domains.conftest import line, put_in_cart
from tests.fakes.gateway import FakeGateway

pytest_plugins = ["tests.domains.fixtures_orders"]

pytestmark = pytest.mark.django_db

SCRIPT = '<script>alert("xss")</script>'
ESCAPED = "&lt;script&gt;alert("


def assert_escaped(html: str) -> None:
    assert ESCAPED in html, "the value is not shown at all"
    assert "<script>alert(" not in html, "the value is rendered as markup"


@pytest.fixture
def provider_says_script(monkeypatch) -> None:
    """MetaSearch answers with markup in a domain name, its price summary and its message (the summary is never
    shown now that prices are our own; the name is, and the message when nothing is found)."""

    def metasearch(self, *, search_term: str, **kwargs) -> MetaSearch:
        name = f"{search_term.partition('.')[0]}{SCRIPT}.com"
        pricing = Pricing(
            currency="USD",
            register=Decimal("12"),
            renew=Decimal("14"),
            period="year",
            is_free_first_year=False,
            summary=SCRIPT,
        )
        row = MetaSearchResult(
            domain_name=name,
            sld=name.partition(".")[0],
            tld=name.partition(".")[2],
            available=True,
            type="hero",
            is_searched_exact=True,
            pricing=pricing,
        )
        meta = MetaSearchMeta(search_term=search_term, typed_tld=None, autosuggest=False, aisuggest=False)
        return MetaSearch(results=[row], results_total=1, results_hidden=0, meta=meta, message=SCRIPT)

    monkeypatch.setattr(FakeGateway, "metasearch", metasearch)


def test_search_rows_and_message(client, seeded_partner, provider_says_script):
    html = client.get("/search/", {"q": "escaped"}).content.decode()

    assert_escaped(html)
    assert html.count(ESCAPED) >= 1


def test_search_fragment(client, seeded_partner, provider_says_script):
    html = client.get("/search/", {"q": "escaped"}, HTTP_HX_REQUEST="true").content.decode()

    assert_escaped(html)


def test_search_message_when_nothing_is_found(client, seeded_partner, monkeypatch):
    def nothing(self, *, search_term: str, **kwargs) -> MetaSearch:
        meta = MetaSearchMeta(search_term=search_term, typed_tld=None, autosuggest=False, aisuggest=False)
        return MetaSearch(results=[], results_total=0, results_hidden=0, meta=meta, message=SCRIPT)

    monkeypatch.setattr(FakeGateway, "metasearch", nothing)
    assert_escaped(client.get("/search/", {"q": "escaped"}).content.decode())


def test_cart_line_name_from_the_session(client, seeded_partner):
    # The cart keeps names as MetaSearch gave them: one the provider sent with markup is still text.
    put_in_cart(client, line(f"cart{SCRIPT}.com"))

    assert_escaped(client.get("/cart/").content.decode())


def test_checkout_review_contact_details(client, customer, seeded_partner):
    customer.name = SCRIPT
    customer.address = SCRIPT
    customer.save()
    client.force_login(customer.user)
    put_in_cart(client, line("checkoutescape.com"))

    assert_escaped(client.get("/checkout/").content.decode())


def test_account_page_contact_details(client, customer):
    customer.name = SCRIPT
    customer.company = SCRIPT
    customer.save()
    client.force_login(customer.user)

    assert_escaped(client.get("/account/").content.decode())


def test_checkout_outcome_the_provider_said_shown_to_staff(client, customer):
    customer.user.is_staff = True
    customer.user.save()
    client.force_login(customer.user)
    checkout_id = uuid.uuid4()
    Registration.objects.create(
        customer=customer,
        domain_name="refusedescape.com",
        duration=1,
        checkout_id=checkout_id,
        status=Registration.Status.FAILED,
        failure_kind="rejected",
        provider_message=SCRIPT,
    )

    assert_escaped(client.get(reverse("checkout_done", args=[checkout_id])).content.decode())


def test_order_page_the_provider_said_shown_to_staff(client, customer, provider_orders, monkeypatch):
    order = provider_orders.register(customer, "orderescape.com")
    customer.user.is_staff = True
    customer.user.save()
    client.force_login(customer.user)

    def refuse(self, **kwargs):
        raise Unavailable(SCRIPT, status=503)

    monkeypatch.setattr(FakeGateway, "domain_orders", refuse)

    assert_escaped(client.get(reverse("order_detail", args=[order.order_id])).content.decode())


def test_admin_lists(admin_client, customer):
    customer.name = SCRIPT
    customer.save()
    Registration.objects.create(
        customer=customer,
        domain_name="adminescape.com",
        duration=1,
        checkout_id=uuid.uuid4(),
        status=Registration.Status.FAILED,
        failure_kind="rejected",
        provider_message=SCRIPT,
    )

    for name in ("admin:accounts_customer_changelist", "admin:domains_registration_changelist"):
        assert_escaped(admin_client.get(reverse(name)).content.decode())
