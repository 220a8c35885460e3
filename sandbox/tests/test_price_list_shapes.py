"""GET /api/v1/pricing in either documented shape (the partner's switch), and a TLD's restrictions at register."""

from decimal import Decimal

import pytest

from sandbox.models import PRICE_LIST_CATALOGUE, CatalogueTld, DomainOrder, Partner

pytestmark = pytest.mark.django_db

PRICING = "/api/v1/pricing"


def test_the_openapi_map_is_the_default(api, partner):
    body = api.get(PRICING).json()
    assert "tlds" not in body
    assert body["dotcom"]["register"]["1"] == 12.99
    assert body["dotcom"]["register"]["2"] == 27.98  # a total for the term
    assert "privacy_protection" in body


def test_the_catalogue_shape_lists_per_year_prices_terms_privacy_and_restrictions(api, partner):
    Partner.objects.filter(pk=partner.pk).update(price_list_shape=PRICE_LIST_CATALOGUE)
    CatalogueTld.objects.filter(partner=partner, tld="io").update(
        privacy_available=False, restrictions={"nexus_category": "US nexus"}
    )
    body = api.get(PRICING).json()
    assert list(body) == ["tlds"]
    rows = {row["tld"]: row for row in body["tlds"]}
    assert rows[".com"] == {
        "tld": ".com",
        "registration_price": 12.99,
        "renewal_price": 14.99,
        "transfer_price": 14.99,
        "currency": "USD",
        "min_period": 1,
        "max_period": 10,
        "privacy_available": True,
        "restrictions": None,
    }
    assert rows[".ai"]["min_period"] == 2
    assert (rows[".io"]["privacy_available"], rows[".io"]["restrictions"]) == (False, {"nexus_category": "US nexus"})


def test_a_restricted_tld_refuses_registration_naming_the_missing_fields_and_charges_nothing(api, partner, customer_id):
    CatalogueTld.objects.filter(partner=partner, tld="io").update(restrictions={"nexus_category": "US nexus"})
    before = Partner.objects.get(pk=partner.pk).test_balance
    response = api.post("/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "x1.io", "duration": 1})
    assert response.status_code == 422
    assert response.json() == {
        "status": "ERROR",
        "message": "The registration requirements of .io are not met: missing nexus_category",
        "errors": {"nexus_category": ["The nexus category field is required for .io domains."]},
    }
    assert Partner.objects.get(pk=partner.pk).test_balance == before
    assert not DomainOrder.objects.filter(domain_name="x1.io", status=DomainOrder.ACTIVE).exists()
    assert Decimal(before) > 0
