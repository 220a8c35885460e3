"""Issue 30: every amount a customer reads goes through the one money filter, in their language."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

from django.conf import settings
from django.template import Context, Template
from django.template.loader import render_to_string
from django.utils import timezone, translation

from domains.models import Renewal
from pricing.money import Money

TEMPLATES = Path(settings.BASE_DIR) / "templates"
# An amount written by hand: a number formatted in the template, or a currency code put beside a number.
_BY_HAND = re.compile(r"floatformat|\.currency \}\}\s*\{\{|\}\}\s*\{\{ [\w.]*currency \}\}")


def test_the_filter_speaks_the_customers_language():
    template = Template("{% load money %}{{ price|money }}")
    price = Money(Decimal("29.98"), "USD")
    with translation.override("en"):
        assert template.render(Context({"price": price})) == "$29.98"
    with translation.override("es"):
        assert template.render(Context({"price": price})) == "29,98\xa0US$"


def test_no_customer_template_writes_an_amount_by_hand():
    offenders = [
        f"{path.relative_to(TEMPLATES)}: {match.group(0)}"
        for path in TEMPLATES.rglob("*")
        if path.is_file() and "admin" not in path.relative_to(TEMPLATES).parts
        for match in _BY_HAND.finditer(path.read_text())
    ]
    assert offenders == []


def _renewal() -> Renewal:
    now = timezone.now()
    return Renewal(
        provider_order_id=1,
        domain_name="example.com",
        duration=1,
        price=Decimal("17.99"),
        currency="USD",
        old_expires_at=now,
        new_expires_at=now,
        status=Renewal.RENEWED,
    )


def test_the_renewal_email_shows_the_price_as_everywhere_else():
    context = {"customer": SimpleNamespace(name="Ana"), "renewal": _renewal(), "order_url": "https://x/"}
    with translation.override("es"):
        spanish = render_to_string("domains/email/renewed_body.txt", context)
    with translation.override("en"):
        english = render_to_string("domains/email/renewed_body.txt", context)
    assert "17,99\xa0US$" in spanish
    assert "USD" not in spanish
    assert "$17.99" in english
    assert "USD 17.99" not in english


def test_a_renewals_status_is_in_spanish_on_a_spanish_page():
    renewal = _renewal()
    with translation.override("es"):
        assert str(renewal.get_status_display()) == "Renovado"
    with translation.override("en"):
        assert str(renewal.get_status_display()) == "Renewed"


def test_a_dns_records_status_is_in_spanish_on_a_spanish_page():
    template = Template("{% load dns_tags %}{{ status|record_status }}")
    with translation.override("es"):
        assert template.render(Context({"status": "Active"})) == "Activo"
        # A status the provider has not documented shows as it came, rather than as nothing.
        assert template.render(Context({"status": "Paused"})) == "Paused"


def test_a_renewals_line_on_the_receipt_is_in_the_customers_language():
    import uuid

    from accounts.models import Customer
    from domains.models import Order
    from domains.orders.payments import renewal_line_to_pay
    from domains.orders.renewals import RenewRequest

    request = RenewRequest(
        duration=2, shown_expiry_timestamp=0, token=uuid.uuid4(), price=Decimal("32.98"), currency="USD"
    )
    # Auto-renew runs in the worker, where English is active: the customer's own language still decides.
    with translation.override("en"):
        spanish = renewal_line_to_pay(
            order=Order(domain_name="ejemplo.com", customer=Customer(language="es")), request=request
        )
        english = renewal_line_to_pay(
            order=Order(domain_name="example.com", customer=Customer(language="en")), request=request
        )
    assert spanish.description == "ejemplo.com, renovación por 2 años"
    assert english.description == "example.com, renewal for 2 years"
