"""Checkout asks the customer to accept the terms of service and the registration agreement: without the box ticked
nothing is charged or registered; with it the acceptance is recorded with the checkout (versions, time, address),
and staff see it in the admin."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.contrib.flatpages.models import FlatPage
from django.test import Client

from billing.models import Payment
from domains.models import LegalAcceptance, Registration
from storefront.models import LegalText
from storefront.site.legal import page_version
from tests.domains.conftest import line, put_in_cart, register_calls

# Placing runs on commit (the worker): real transactions, as test_checkout.py.
pytestmark = pytest.mark.django_db(transaction=True)

BOX = "I accept the"


def fresh() -> str:
    return f"terms{uuid.uuid4().hex[:10]}.com"


@pytest.fixture
def buyer(client, customer):
    client.force_login(customer.user)
    return customer


def _review_form(response) -> dict[str, str]:
    return {"checkout_id": str(response.context["checkout_id"]), "review_digest": response.context["review_digest"]}


def _review(client) -> dict[str, str]:
    response = client.get("/checkout/")
    assert response.status_code == 200
    return _review_form(response)


def test_the_review_asks_to_accept_both_documents_with_links(client, buyer):
    put_in_cart(client, line(fresh()))
    html = client.get("/checkout/").content.decode()
    assert '<input type="checkbox" name="accept_terms" id="accept-terms" value="on" required>' in html
    assert (
        'I accept the <a href="/legal/terms/">terms of service</a> and the '
        '<a href="/legal/registration-agreement/">domain registration agreement</a>'
    ) in html


def test_without_the_box_nothing_is_registered_and_the_form_says_why(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    form = _review(client)

    response = client.post("/checkout/", form, follow=True)

    html = response.content.decode()
    assert response.redirect_chain[-1][0] == "/checkout/"
    assert "To buy, please accept the terms of service and the domain registration agreement." in html
    assert 'aria-invalid="true" aria-describedby="accept-terms-error"' in html
    assert register_calls(provider_calls) == 0
    assert not Registration.objects.filter(domain_name=name).exists()
    assert not LegalAcceptance.objects.exists()
    # The cart is as it was, and the error goes once the page is shown again.
    assert name in html
    assert "To buy, please accept" not in client.get("/checkout/").content.decode()


def test_with_the_box_the_acceptance_is_recorded_with_the_checkout(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    form = _review(client)

    response = client.post("/checkout/", {**form, "accept_terms": "on"}, REMOTE_ADDR="203.0.113.9")

    assert response.status_code == 302 and response.url == f"/checkout/{form['checkout_id']}/"
    assert Registration.objects.get(domain_name=name).status == Registration.Status.REGISTERED
    acceptance = LegalAcceptance.objects.get()
    assert acceptance.customer == buyer
    assert str(acceptance.checkout_id) == form["checkout_id"]
    assert acceptance.ip == "203.0.113.9"
    terms = FlatPage.objects.get(url="/legal/terms/")
    agreement = FlatPage.objects.get(url="/legal/registration-agreement/")
    assert acceptance.terms.version == page_version(terms) and acceptance.terms.content == terms.content
    assert acceptance.agreement.version == page_version(agreement)
    assert acceptance.agreement.content == agreement.content


def test_an_edited_page_is_a_new_version_and_the_old_text_is_kept(client, buyer):
    put_in_cart(client, line(fresh()))
    client.post("/checkout/", {**_review(client), "accept_terms": "on"})
    first = LegalAcceptance.objects.get()

    terms = FlatPage.objects.get(url="/legal/terms/")
    terms.content += "<p>New: domains are renewed automatically.</p>"
    terms.save()
    put_in_cart(client, line(fresh()))
    client.post("/checkout/", {**_review(client), "accept_terms": "on"})

    second = LegalAcceptance.objects.exclude(pk=first.pk).get()
    assert second.terms.version != first.terms.version
    assert second.agreement.version == first.agreement.version
    assert "renewed automatically" in second.terms.content
    assert "renewed automatically" not in LegalText.objects.get(pk=first.terms.pk).content


def test_terms_edited_after_the_review_are_not_taken_as_accepted(client, buyer, provider_calls):
    name = fresh()
    put_in_cart(client, line(name))
    review = client.get("/checkout/")
    shown = review.context["legal_versions"]
    assert f'name="legal_versions" value="{shown}"' in review.content.decode()
    agreement = FlatPage.objects.get(url="/legal/registration-agreement/")
    agreement.content += "<p>New clause.</p>"
    agreement.save()

    form = {**_review_form(review), "legal_versions": shown, "accept_terms": "on"}
    response = client.post("/checkout/", form, follow=True)

    assert "changed since this page was shown. Nothing was bought" in response.content.decode()
    assert register_calls(provider_calls) == 0
    assert not LegalAcceptance.objects.exists()
    # The page now shown carries the new versions, and confirming from it buys.
    again = response.context["legal_versions"]
    assert again != shown
    client.post("/checkout/", {**_review_form(response), "legal_versions": again, "accept_terms": "on"})
    assert LegalAcceptance.objects.get().agreement.version == again.split(":")[1]


def test_without_the_terms_published_nothing_is_bought(client, buyer, provider_calls):
    FlatPage.objects.filter(url="/legal/registration-agreement/").delete()
    name = fresh()
    put_in_cart(client, line(name))
    response = client.post("/checkout/", {**_review(client), "accept_terms": "on"}, follow=True)
    assert "cannot be shown right now, so nothing can be bought" in response.content.decode()
    assert register_calls(provider_calls) == 0
    assert not LegalAcceptance.objects.exists()


def test_with_payments_on_nothing_is_charged_without_the_box(client, buyer, stripe_sandbox):
    put_in_cart(client, line(fresh()))
    form = _review(client)
    assert client.post("/checkout/", form).url == "/checkout/"
    assert not Payment.objects.exists()
    started = client.post("/checkout/", {**form, "accept_terms": "on"})
    assert started.status_code == 303
    assert Payment.objects.get().checkout_id == LegalAcceptance.objects.get().checkout_id


def test_staff_see_acceptances_in_the_admin(client, buyer):
    put_in_cart(client, line(fresh()))
    form = _review(client)
    client.post("/checkout/", {**form, "accept_terms": "on"})
    acceptance = LegalAcceptance.objects.get()

    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "S#12345x"))
    page = staff.get("/admin/domains/legalacceptance/").content.decode()
    assert form["checkout_id"] in page
    assert acceptance.terms.version in page and acceptance.agreement.version in page
    assert buyer.email in page
    # The exact words of each accepted version, and the pages themselves to edit.
    texts = staff.get("/admin/storefront/legaltext/").content.decode()
    assert acceptance.terms.version in texts and "/legal/registration-agreement/" in texts
    pages = staff.get("/admin/flatpages/flatpage/").content.decode()
    assert "Terms of service" in pages and "Privacy policy" in pages and "Domain registration agreement" in pages


def test_signup_links_the_terms_and_privacy_policy(client):
    html = client.get("/accounts/signup/").content.decode()
    assert (
        'By creating an account you agree to our <a href="/legal/terms/">terms of service</a> and '
        '<a href="/legal/privacy/">privacy policy</a>.'
    ) in html
