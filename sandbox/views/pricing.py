"""`GET /api/v1/pricing`: the partner's own cost prices, in USD, in the shape the partner's switch names.

The OpenAPI's shape (the default): per TLD slug, operation and term. The TLD-catalogue page's: a `tlds` list with
prices per year, the terms allowed, whether privacy is offered and the registry's restrictions.
"""

from __future__ import annotations

from decimal import Decimal

from django.http import HttpRequest, JsonResponse

from sandbox.api import Context, endpoint
from sandbox.catalogue import MAX_TERM, privacy_price
from sandbox.models import PRICE_LIST_CATALOGUE, Partner

# The provider quotes these terms (years); a TLD with a minimum term starts at its minimum.
_TERMS = (1, 2, 3, 5, 10)
# What a restore (redemption) costs the partner, whatever the TLD: the provider's example figure.
RESTORE_PRICE = Decimal("170.00")


def _terms(min_term: int) -> list[int]:
    return [term for term in _TERMS if min_term <= term <= MAX_TERM] or [min_term]


@endpoint(methods=("GET",), groups=("pricing",))
def pricing(request: HttpRequest, ctx: Context) -> JsonResponse:
    if ctx.partner.price_list_shape == PRICE_LIST_CATALOGUE:
        return JsonResponse(_catalogue_shape(ctx.partner))
    body: dict[str, object] = {}
    for entry in ctx.partner.catalogue.order_by("position", "tld"):
        terms = _terms(entry.min_term)
        body[f"dot{entry.tld.replace('.', '')}"] = {
            "register": {str(term): float(entry.register_cost(term)) for term in terms},
            "renew": {str(term): float(entry.renew_cost(term)) for term in _terms(1)},
            "transfer": {"1": float(entry.renew_price)},
            "restore": {"1": float(RESTORE_PRICE)},
        }
    body["privacy_protection"] = float(privacy_price(ctx.partner))
    return JsonResponse(body)


def _catalogue_shape(partner: Partner) -> dict[str, object]:
    # Per-year list prices, as the catalogue page shows them: a free first year or a first year priced apart from
    # renewals cannot be said in this shape.
    return {
        "tlds": [
            {
                "tld": f".{entry.tld}",
                "registration_price": float(entry.register_price),
                "renewal_price": float(entry.renew_price),
                "transfer_price": float(entry.renew_price),
                "currency": "USD",
                "min_period": entry.min_term,
                "max_period": MAX_TERM,
                "privacy_available": entry.privacy_available,
                "restrictions": entry.restrictions or None,
            }
            for entry in partner.catalogue.order_by("position", "tld")
        ]
    }
