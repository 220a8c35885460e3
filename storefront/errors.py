"""The one root of every error an outside service (the provider, the payment service) makes the customer read,
and the one policy that turns such an error into an HTTP status.

Each family (storefront.gateway.errors, billing.errors) decides once, per class, the customer's sentence
(`message`) and the status of a page showing it (`http_status`): 503 while the service cannot be reached, 429
while it asks us to wait, 200 for a refusal (the page answered; it says no). Views that show the error in place
(beside the form it concerns) ask `error_status()`; anything a view lets escape is drawn by
`StoreErrorMiddleware` as the full error page, or as the error fragment for an htmx request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise


class StoreError(Exception):
    default_message: StrOrPromise = _("Something went wrong on our side. Please try again in a moment.")
    # The status of a page that shows this error (a fragment always answers 200: htmx swaps only 2xx answers).
    http_status = 200
    # How the notice reads: "warn" (try again later) or "error" (refused).
    tone = "error"

    def __init__(self, detail: str = "", *, message: StrOrPromise = "") -> None:
        # `detail` is for logs and staff; `message` is the customer's sentence, our own words.
        self.message: StrOrPromise = message or self.default_message
        super().__init__(detail or str(self.message))


def error_status(err: StoreError, *, fragment: bool = False) -> int:
    """The HTTP status of a page showing `err`; 200 for a fragment, which htmx must swap in to be seen."""
    return 200 if fragment else err.http_status
