"""Recording a customer's acceptance of the terms of service and the registration agreement at checkout."""

from __future__ import annotations

import ipaddress
import uuid

from django.utils import timezone

from accounts.models import Customer
from domains.models import LegalAcceptance
from storefront.site.legal import AGREEMENT_URL, TERMS_URL, legal_text_current


def legal_acceptance_record(*, customer: Customer, checkout_id: uuid.UUID, ip: str) -> LegalAcceptance | None:
    """The acceptance of today's terms and agreement for this checkout, recorded (again, with today's versions
    and time, if the customer confirms the same checkout once more). None when either page is not published:
    then nothing may be bought."""
    terms = legal_text_current(url=TERMS_URL)
    agreement = legal_text_current(url=AGREEMENT_URL)
    if terms is None or agreement is None:
        return None
    acceptance, _ = LegalAcceptance.objects.update_or_create(
        customer=customer,
        checkout_id=checkout_id,
        defaults={"terms": terms, "agreement": agreement, "accepted_at": timezone.now(), "ip": _valid_ip(ip)},
    )
    return acceptance


def _valid_ip(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None
