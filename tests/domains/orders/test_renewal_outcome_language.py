"""What a one-click renewal says when it is back from the payment page is in the customer's language, every sentence of
it (gettext inside an f-string was never extracted: "Your payment is being completed." stayed English)."""

from __future__ import annotations

from decimal import Decimal

from django.utils import translation

from billing.models import Payment
from domains.models import Renewal
from domains.presentation import renewal_payment_outcome


def test_a_renewal_being_paid_is_told_in_spanish():
    payment = Payment(status=Payment.Status.AUTHORISED, amount_captured=Decimal(0), currency="USD")
    renewal = Renewal(status=Renewal.RENEWED)
    with translation.override("es"):
        tone, sentence = renewal_payment_outcome(payment, renewal)
    assert tone == "success"
    assert sentence == "Renovado. Tu pago se está completando."
