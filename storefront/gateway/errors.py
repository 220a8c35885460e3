"""The gateway's one exception family, and the one table that turns the provider's documented texts into it.

`message` is the customer's sentence; `provider_message` is what the provider said (staff and logs only);
`status` is the HTTP status (None when nothing was answered).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from storefront.errors import StoreError

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise


class GatewayError(StoreError):
    """Root of everything the gateway raises."""

    default_message = _("The domain service could not complete the request.")

    def __init__(
        self,
        provider_message: str = "",
        *,
        message: StrOrPromise = "",
        status: int | None = None,
        retryable: bool = False,
    ) -> None:
        self.provider_message = provider_message
        self.status = status
        # True where asking again may succeed (a dropped connection, a gateway timeout): GETs only.
        self.retryable = retryable
        # The provider's prose is never shown to customers: each class says what happened in our words (message).
        super().__init__(provider_message, message=message)


class Unauthorized(GatewayError):
    """The key was refused (401/403): missing, invalid, revoked, expired or for the other environment."""

    # Customers cannot act on a refused key (and must not learn about it); staff see provider_message.
    default_message = _("The domain service is unavailable right now. Please try again later.")
    http_status = 503
    tone = "warn"


class RateLimited(GatewayError):
    default_message = _("The domain service is busy right now. Please wait a moment and try again.")
    http_status = 429
    tone = "warn"

    def __init__(
        self, provider_message: str = "", *, status: int | None = 429, retry_after: float | None = None
    ) -> None:
        super().__init__(provider_message, status=status)
        self.retry_after = retry_after


class Unavailable(GatewayError):
    """The provider could not be reached or answered with a server error or an unreadable body."""

    default_message = _("The domain service is unavailable right now. Please try again in a moment.")
    http_status = 503
    tone = "warn"


class OutcomeUnknown(Unavailable):
    """A state-changing request may or may not have taken effect: the answer was lost.

    Never retry such a request blindly; reconcile from a listing first.
    """

    default_message = _("We could not confirm the result with the domain service.")


class CapabilityOff(GatewayError):
    """The provider announces this feature as coming soon and `RESELLER_CAPABILITIES` does not name it: raised
    before any call (its placeholder would answer 200 and do nothing). The page says what to do instead."""

    default_message = _("This cannot be done through this store yet.")

    def __init__(self, capability: str) -> None:
        super().__init__(f"capability {capability} is off (RESELLER_CAPABILITIES)")
        self.capability = capability


# --- Refusals: the provider answered and said no ------------------------------------------------------------


class ValidationRejected(GatewayError):
    """A refusal: the provider answered deliberately and did not do it (the generic kind)."""

    default_message = _("The domain service refused this request.")


Refused = ValidationRejected


class NotFound(ValidationRejected):
    """The provider does not know the id (or it belongs to another partner)."""

    default_message = _("The domain service has no record of this.")


class InvalidDetails(ValidationRejected):
    """The details sent were refused as invalid (signup fields, a search term)."""

    default_message = _("The domain service refused these details. Please check them (English characters only).")


class InvalidSearchTerm(InvalidDetails):
    default_message = _("Please type a domain name: letters, digits and hyphens, up to 63 characters.")


class CustomerExists(ValidationRejected):
    """Signup with an email the provider already has."""

    default_message = _("An account with this email already exists at the domain service.")


class NameUnavailable(ValidationRejected):
    default_message = _("This domain is not available: someone else has it.")


class PremiumName(ValidationRejected):
    default_message = _("This is a premium domain; premium names cannot be bought here.")


class MinimumTerm(ValidationRejected):
    """The term is below the TLD's minimum (known from the provider's price list, not from its prose)."""

    def __init__(self, provider_message: str = "", *, years: int, status: int | None = None) -> None:
        self.years = years
        super().__init__(
            provider_message,
            message=format_lazy(
                _("This extension needs at least {years} years. Please choose a longer term."), years=years
            ),
            status=status,
        )


class TldRestricted(ValidationRejected):
    """A registration refused for the TLD's registry requirements (a nexus for .us, EU residence for .eu): the
    provider's 422 names the missing fields. The register call has no field to give them, so the store cannot."""

    def __init__(self, provider_message: str = "", *, missing: list[str], status: int | None = None) -> None:
        self.missing = missing
        super().__init__(
            provider_message,
            message=format_lazy(
                _(
                    "This extension's registry needs details that cannot be given through this store: {fields}. "
                    "You have not been charged."
                ),
                fields=missing_field_words(missing),
            ),
            status=status,
        )


def missing_field_words(fields: list[str]) -> str:
    """`nexus_category` reads "nexus category": the provider's field names, as words."""
    return ", ".join(field.replace("_", " ").replace("-", " ").strip() for field in fields)


class RegistrationRefused(ValidationRejected):
    """`Unable to register domain` with the name still free and the term allowed: the provider does not say why."""

    default_message = _(
        "The domain service refused this registration; you have not been charged and our staff have been told."
    )


class ExpiryChanged(ValidationRejected):
    """A renewal named an expiry that is no longer current (renewed meanwhile): look the order up again."""

    default_message = _("This domain's expiry date changed in the meantime. Please check it and try again.")


class RenewalRefused(ValidationRejected):
    default_message = _(
        "The domain service refused this renewal; you have not been charged and our staff have been told."
    )


class DuplicateRecord(ValidationRejected):
    default_message = _("This DNS record already exists.")


class DnsNotActive(ValidationRejected):
    """DNS is not active for the order: decided from our own record of the order, the provider documents no text."""

    default_message = _("DNS is not active for this domain yet.")


# The provider's documented texts (contract errors table and OpenAPI examples), nothing else. A text can mean
# different things on different endpoints, so the key is (endpoint, text); endpoint "*" is any endpoint.
REFUSALS: Mapping[tuple[str, str], type[GatewayError]] = {
    ("*", "Unauthorized"): Unauthorized,
    ("*", "Invalid partner token"): Unauthorized,
    ("*", "Invalid order ID"): NotFound,
    ("*", "Invalid customer ID"): NotFound,
    ("*", "Invalid customer email"): NotFound,
    ("signup", "User already exists"): CustomerExists,
    ("signup", "Signup Failed, please ensure that all the fields are valid and in English"): InvalidDetails,
    # Coming-soon endpoints (no texts of their own documented yet): changing a customer's details or a domain's
    # contacts follows signup's rules, and the sandbox refuses with signup's texts; any other text is generic.
    ("customer-details", "User already exists"): CustomerExists,
    ("customer-details", "Signup Failed, please ensure that all the fields are valid and in English"): InvalidDetails,
    ("contacts", "Signup Failed, please ensure that all the fields are valid and in English"): InvalidDetails,
    ("register", "Unable to register domain"): RegistrationRefused,
    ("renew", "Invalid current expiry timestamp"): ExpiryChanged,
    ("renew", "Failed to renew the domain order"): RenewalRefused,
    ("dns", "Duplicate record found"): DuplicateRecord,
    ("search", "The search term field is required."): InvalidSearchTerm,
    ("search", "search_term is required and must not be empty after sanitisation"): InvalidSearchTerm,
    # MetaSearch's own failures, whatever status carries them, are outages rather than refusals.
    ("search", "Internal server error"): Unavailable,
    ("search", "Domain availability service unavailable"): Unavailable,
    ("search", "Bad Request."): Unavailable,
    ("search", "Server Error."): Unavailable,
}


def refusal_class(*, endpoint: str, text: str) -> type[GatewayError]:
    """The exception class for a provider text; a text nobody documented is the generic refusal."""
    stripped = text.strip()
    return REFUSALS.get((endpoint, stripped)) or REFUSALS.get(("*", stripped)) or ValidationRejected
