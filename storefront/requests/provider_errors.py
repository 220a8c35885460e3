"""How every view shows an outside service's error (the provider's, the payment service's): one helper
(`provider_error`) and one partial (`storefront/_provider_error.html`).

The customer reads the error's own sentence (`StoreError.message`, decided once in the gateway or the payments
module); a provider outage or a refused key names what could not be done; staff also see what the provider said
and its HTTP status. The status of the page is `storefront.errors.error_status`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from storefront.errors import StoreError
from storefront.gateway import GatewayError, OutcomeUnknown, Unauthorized, Unavailable

PROVIDER_DOWN = _(
    "Our domain service is not available right now, so we could not {what}. Please try again in a moment."
)


@dataclass(frozen=True)
class ProviderError:
    """What the partial renders. `str()` is the customer's sentence, so it also fits a plain `{{ error }}`."""

    message: str
    provider_message: str
    status: int | None
    tone: str  # warn: try again later; error: refused

    def __str__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return bool(self.message)


def provider_error(err: StoreError, *, what: str | Promise = "", check: str | Promise = "") -> ProviderError:
    """The error as the customer should read it. `what` names the action for provider outages ("renew the
    domain"); `check` names what to look at after an unknown outcome ("the list of records")."""
    # Rendered now, in the request's language: the partial and plain `{{ error }}` both show the same sentence.
    message = str(err.message)
    if not isinstance(err, GatewayError):
        return ProviderError(message=message, provider_message="", status=None, tone=err.tone)
    if what and isinstance(err, (Unauthorized, Unavailable)) and not isinstance(err, OutcomeUnknown):
        message = str(format_lazy(PROVIDER_DOWN, what=what))
    if isinstance(err, OutcomeUnknown):
        message = str(
            format_lazy(
                _("{message} Check {check} before trying again."), message=err.message, check=check or _("the result")
            )
        )
    return ProviderError(message=message, provider_message=err.provider_message, status=err.status, tone=err.tone)
