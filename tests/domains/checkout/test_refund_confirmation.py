"""The staff's refund confirmation lists each line at what was charged for it, tax included, with its tax beside it
(the total below included it and the lines did not), and says that a domain's WHOIS privacy is kept when only the
domain is ticked."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client

from billing.models import PaymentLine
from pricing.models import TaxRate, TaxRegistration
from tests.domains.checkout.test_checkout_figures import buyer, paid  # noqa: F401 (a fixture)
from tests.domains.checkout.test_checkout_privacy import add_privacy
from tests.domains.conftest import line, put_in_cart

pytestmark = pytest.mark.django_db


def test_the_lines_carry_their_vat_and_privacy_kept_is_said(client, buyer, stripe_sandbox):  # noqa: F811
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")
    buyer.country = "FR"
    buyer.save()
    name = f"refundvat{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name))
    add_privacy(client, name)
    payment, _ = paid(client, stripe_sandbox)
    domain = payment.lines.get(reference=name)
    assert domain.gross_amount == Decimal("17.39")  # 14.49 + 2.90 VAT

    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("st@example.org", "st@example.org", "Staff#Pass9"))
    url = f"/admin/billing/payment/refund/?payments={payment.pk}"
    page = staff.get(url).content.decode()
    assert "<td>$17.39</td>" in page and "$2.90 (VAT 20%)" in page
    assert "<td>$14.49</td>" not in page  # never the amount before tax beside a total with it
    assert f"Its {name}, WHOIS privacy for 1 year is kept unless you tick it too." in page

    response = staff.post(url, {"line": [domain.pk]})
    told = [str(m) for m in get_messages(response.wsgi_request)]
    assert f"{name}, WHOIS privacy for 1 year was kept: not refunded with {name}." in told
    assert payment.lines.get(reference=f"privacy:{name}").status == PaymentLine.Status.REGISTERED
    assert PaymentLine.objects.get(pk=domain.pk).status == PaymentLine.Status.REFUNDED
