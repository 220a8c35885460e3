"""The confirmation page and the "registered" email show each line at what it was charged (after the promotion, tax
included) and the WHOIS privacy paid with it: the lines add up to the "Charged" total beneath them, as on the
receipt (billing.ledger.figures). The demo catalogue's .com sells at 14.49; privacy at 6.49 a year."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.core import mail

from billing.ledger.figures import purchase_figures
from billing.models import Payment
from pricing.models import TaxRate, TaxRegistration
from tests.billing.conftest import GOOD_CARD
from tests.domains.checkout.test_checkout_payment import buy, review, start_paying
from tests.domains.checkout.test_checkout_privacy import add_privacy
from tests.domains.conftest import line, put_in_cart
from tests.pricing.conftest import promotion_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def buyer(client, customer, stripe_sandbox):
    client.force_login(customer.user)
    return customer


def paid(client, stripe_sandbox) -> tuple[Payment, str]:
    payment, *_ = start_paying(client)
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    page = client.get(f"/checkout/{payment.checkout_id}/?session_id={payment.stripe_session_id}").content.decode()
    payment.refresh_from_db()
    return payment, page


def test_with_a_promotion_and_privacy_the_lines_add_up_to_what_was_charged(client, buyer, stripe_sandbox):
    promotion_make(value=Decimal("10"))  # LAUNCH: 10 % off, 1.45 off the .com
    name = f"figures{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name))
    add_privacy(client, name)
    client.post("/cart/promotion/", {"code": "LAUNCH"})
    payment, page = paid(client, stripe_sandbox)

    assert payment.amount_captured == Decimal("13.04") + Decimal("6.49")
    assert "$13.04" in page and "$14.49</" not in page.replace("list price $14.49", "")
    assert "Promotion code LAUNCH: list price $14.49, discount \N{MINUS SIGN}$1.45" in page
    assert "WHOIS privacy: $6.49" in page
    assert "Charged $19.53." in page

    email = next(m for m in mail.outbox if name in m.body and "outcome of your order" in m.body)
    assert "$13.04" in email.body and "WHOIS privacy: $6.49" in email.body
    assert "$14.49)" not in email.body  # never the price before the discount as the line's price
    html = email.alternatives[0][0]
    assert "$13.04" in html and "WHOIS privacy: $6.49" in html

    figures = purchase_figures(payment)
    assert figures.total.amount == payment.amount_captured


def test_the_lines_carry_the_tax_charged(client, buyer, stripe_sandbox, settings):
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="DE", rate=Decimal(19), label="VAT")
    buyer.country = "DE"
    buyer.save()
    name = f"figures{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name))
    payment, page = paid(client, stripe_sandbox)
    gross = payment.amount_captured
    assert gross == Decimal("14.49") + Decimal("2.75")
    assert f"${gross}" in page and f"Charged ${gross}." in page
    assert "$14.49" not in page  # the line is shown with its tax, as charged
    assert purchase_figures(payment).total.amount == gross


def test_tax_details_changed_in_another_tab_between_review_and_buy_charge_nothing(client, buyer, stripe_sandbox):
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")
    buyer.country = "FR"
    buyer.save()
    put_in_cart(client, line(f"figures{uuid.uuid4().hex[:8]}.com"))
    checkout_id, digest = review(client)  # reviewed at 20 % French VAT: $17.39
    # Another tab: buying as a business with a (format-valid) number, reverse charged.
    saved = client.post("/account/tax/", {"is_business": "on", "tax_number": "FR40303265045"})
    assert saved.status_code == 302
    html = buy(client, checkout_id, digest, follow=True).content.decode()
    assert "Your tax details changed since this page was shown" in html
    assert not Payment.objects.filter(checkout_id=checkout_id).exists()
    # Reviewed again, it buys at what that review showed.
    checkout_id, digest = review(client)
    assert buy(client, checkout_id, digest).status_code == 303
    assert Payment.objects.get(checkout_id=checkout_id).amount == Decimal("14.49")
