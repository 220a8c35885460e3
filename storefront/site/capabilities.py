"""The provider's "coming soon" features the store may use, each named once (setting `RESELLER_CAPABILITIES`).

The provider's OpenAPI lists these endpoints as `x-hidden` ("coming soon"), and its placeholders answer 200
without doing anything: a store that called them would believe a delete or a purchase happened. So each gateway
method behind one raises `CapabilityOff` before any call unless its capability is named in the setting: none for
the real provider until it ships them, all of them with the built-in sandbox, which implements them.
"""

from __future__ import annotations

from django.conf import settings

CUSTOMER_DETAILS = "customer_details"
CONTACTS = "contacts"
PRIVACY = "privacy"
DOMAIN_DETAILS = "domain_details"
DOMAIN_DELETE = "domain_delete"
TRANSFER_LOCK = "transfer_lock"

# Each capability and the endpoints it unlocks (docs/configuration.md's table says the same).
CAPABILITIES: dict[str, str] = {
    CUSTOMER_DETAILS: "GET and PUT /api/v1/customers/details",
    CONTACTS: "GET and POST /api/v1/contacts",
    PRIVACY: "POST and PUT /api/v1/privacy-protection",
    DOMAIN_DETAILS: "GET /api/v1/domains/details",
    DOMAIN_DELETE: "POST /api/v1/domains/delete",
    TRANSFER_LOCK: "PUT /api/v1/transfers/lock",
}


def capability_enabled(name: str) -> bool:
    """Whether the store may use this capability now (read at each call, so settings overrides take effect)."""
    if name not in CAPABILITIES:
        raise ValueError(f"unknown capability {name!r}; known: {', '.join(CAPABILITIES)}")
    return name in settings.RESELLER_CAPABILITIES


def unknown_capabilities(names: list[str]) -> list[str]:
    return [name for name in names if name not in CAPABILITIES]
