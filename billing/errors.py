"""The payments module's one exception family. `message` is the customer's sentence; details are for logs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise


class PaymentError(Exception):
    message: StrOrPromise = _("The payment could not be completed. Nothing was charged; please try again.")

    def __init__(self, detail: str = "", *, code: str = "") -> None:
        super().__init__(detail or self.message)
        self.detail = detail
        self.code = code


class PaymentsDisabled(PaymentError):
    message = _("Payments are switched off on this store for now. Please try again later.")


class PaymentUnavailable(PaymentError):
    """Stripe could not be reached, answered 5xx or refused our key: nothing is known to have changed."""

    message = _("The payment service is not answering right now. Nothing was charged; please try again shortly.")


class PaymentOutcomeUnknown(PaymentUnavailable):
    """A state-changing call whose answer was lost: it may have happened; read the object back before acting."""


class PaymentRefused(PaymentError):
    """Stripe refused the request (invalid request, wrong state, card error)."""


class CheckoutChanged(PaymentError):
    message = _("Your basket changed since this checkout started. Please review it again.")


class UnknownSession(PaymentError):
    message = _("We have no payment for this session.")


class SessionClosed(PaymentError):
    """The checkout's payment page expired before it was paid: the checkout must be reviewed again."""

    message = _("Your payment page expired before the payment was made. Please review your order and pay again.")
