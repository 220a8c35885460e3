"""The payments module's one exception family. `message` is the customer's sentence; details are for logs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

from storefront.errors import StoreError

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise


class PaymentError(StoreError):
    default_message: StrOrPromise = _("The payment could not be completed. Nothing was charged; please try again.")

    def __init__(self, detail: str = "", *, code: str = "", message: StrOrPromise = "") -> None:
        super().__init__(detail, message=message)
        self.detail = detail
        self.code = code


class PaymentsDisabled(PaymentError):
    default_message = _("Payments are switched off on this store for now. Please try again later.")


class PaymentUnavailable(PaymentError):
    """Stripe could not be reached, answered 5xx or refused our key: nothing is known to have changed."""

    http_status = 503
    tone = "warn"
    default_message = _(
        "The payment service is not answering right now. Nothing was charged; please try again shortly."
    )


class PaymentOutcomeUnknown(PaymentUnavailable):
    """A state-changing call whose answer was lost: it may have happened; read the object back before acting."""


class PaymentRefused(PaymentError):
    """Stripe refused the request (invalid request, wrong state, card error)."""


class CheckoutChanged(PaymentError):
    default_message = _("Your basket changed since this checkout started. Please review it again.")


class UnknownSession(PaymentError):
    default_message = _("We have no payment for this session.")


class SessionClosed(PaymentError):
    """The checkout's payment page expired before it was paid: the checkout must be reviewed again."""

    default_message = _(
        "Your payment page expired before the payment was made. Please review your order and pay again."
    )
