"""How registrations, orders and paid renewals are shown to the customer: the short label, the badge and the
sentence under it.

Services record what happened (a Registration's status and failure kind, an order's status at the provider); this
module words it, for the pages, the emails and (through `domains/templatetags/order_status.py`) the templates.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import formats
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from billing.models import Payment, PaymentLine
from domains.models import Order, Registration, Renewal
from domains.orders.services import OrderRow
from pricing.money import Money, format_money
from storefront.gateway import RegistrationRefused

# --- A registered line --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What the customer reads about a line: a short label, a badge tone (ok/warn/bad/muted) and a sentence."""

    label: str | Promise
    tone: str
    detail: str | Promise


_FAILURES: dict[str, Outcome] = {
    Registration.FailureKind.UNAVAILABLE: Outcome(
        gettext_lazy("Not available any more"),
        "bad",
        gettext_lazy("Someone else has it, so it could not be registered."),
    ),
    Registration.FailureKind.PREMIUM: Outcome(
        gettext_lazy("Premium name"),
        "bad",
        gettext_lazy("Premium names cannot be bought here."),
    ),
    Registration.FailureKind.BILLING: Outcome(
        gettext_lazy("Billing failed"),
        "bad",
        gettext_lazy("The payment could not be settled, so nothing was registered."),
    ),
    Registration.FailureKind.MINIMUM_TERM: Outcome(
        gettext_lazy("Minimum term"),
        "warn",
        gettext_lazy("This extension needs a longer registration. Choose more years."),
    ),
    Registration.FailureKind.INVALID_CUSTOMER: Outcome(
        gettext_lazy("Account problem"),
        "bad",
        gettext_lazy("Your account could not be used. Please contact support."),
    ),
    Registration.FailureKind.NOT_REGISTERED: Outcome(
        gettext_lazy("Not registered"),
        "warn",
        gettext_lazy("It was not registered after all. You can try again."),
    ),
    Registration.FailureKind.SERVICE: Outcome(
        gettext_lazy("Not placed"),
        "warn",
        gettext_lazy("The domain service could not take the order. Nothing was bought; try again."),
    ),
    Registration.FailureKind.ALREADY_YOURS: Outcome(
        gettext_lazy("Already yours"),
        "ok",
        gettext_lazy("This domain is already in your account."),
    ),
    Registration.FailureKind.IN_PROGRESS: Outcome(
        gettext_lazy("Already in progress"),
        "warn",
        gettext_lazy("Another checkout of yours is registering it."),
    ),
    Registration.FailureKind.REJECTED: Outcome(
        gettext_lazy("Not registered"), "bad", RegistrationRefused.default_message
    ),
}

_REGISTERED = Outcome(gettext_lazy("Registered"), "ok", gettext_lazy("It's yours."))
_PENDING = Outcome(gettext_lazy("Being registered"), "warn", gettext_lazy("Working on it…"))
_RELEASED = Outcome(gettext_lazy("No longer held"), "muted", gettext_lazy("It was registered, and has since expired."))
_UNKNOWN = Outcome(
    gettext_lazy("Could not confirm"),
    "warn",
    # Not "did not answer in time": this also covers an answer we could not read as a yes or a no.
    gettext_lazy(
        "We could not confirm the result with the domain service yet. We are checking whether it went "
        "through and will email you."
    ),
)


def registration_outcome(registration: Registration) -> Outcome:
    """The line's outcome in the customer's words (a failure by its kind; one we cannot name as refused)."""
    if registration.status == Registration.Status.REGISTERED:
        return _REGISTERED
    if registration.status == Registration.Status.PENDING:
        return _PENDING
    if registration.status == Registration.Status.RELEASED:
        return _RELEASED
    if registration.status == Registration.Status.UNKNOWN:
        return _UNKNOWN
    if registration.failure_kind == Registration.FailureKind.RESTRICTED:
        return _restricted(registration)
    return _FAILURES.get(registration.failure_kind, _FAILURES[Registration.FailureKind.REJECTED])


def _restricted(registration: Registration) -> Outcome:
    tld = registration.domain_name.partition(".")[2]

    def detail() -> str:
        # Worded when shown, in the reader's language (the confirmation email is built before switching to it).
        return gettext(
            "The registry of .%(tld)s needs details from the registrant that cannot be given through this store "
            "(%(needs)s). You have not been charged. Contact support if you need this domain."
        ) % {"tld": tld, "needs": registration.requirements or gettext("not named by the domain service")}

    return Outcome(gettext_lazy("Extra details needed"), "bad", lazy(detail, str)())


# --- An order's status ----------------------------------------------------------------------------------------

# The badge's CSS class and what the status means for the customer.
_ORDER_STATUSES: dict[str, tuple[str, str | Promise]] = {
    Order.Status.ACTIVE: ("badge-ok", gettext_lazy("Registered and working.")),
    Order.Status.SUSPENDED: (
        "badge-warn",
        gettext_lazy("On hold at the registry; it may not resolve. Contact support to lift it."),
    ),
    Order.Status.PENDING_DELETE_RESTORABLE: (
        "badge-bad",
        gettext_lazy("About to be deleted. It can still be restored (not renewed) by our support team."),
    ),
    Order.Status.EXPIRED: ("badge-bad", gettext_lazy("The registration has lapsed. Renew it to keep the domain.")),
}
# The provider's status words, in the customer's language (a status the provider adds later shows as it says it).
_ORDER_STATUS_LABELS: dict[str, str | Promise] = {
    Order.Status.ACTIVE: pgettext_lazy("domain status", "Active"),
    Order.Status.SUSPENDED: pgettext_lazy("domain status", "Suspended"),
    Order.Status.PENDING_DELETE_RESTORABLE: pgettext_lazy("domain status", "Pending Delete Restorable"),
    Order.Status.EXPIRED: pgettext_lazy("domain status", "Expired"),
}


def order_status_badge(status: str) -> str:
    """The badge's CSS class for an order status (as `OrderRow.display_status` gives it)."""
    return _ORDER_STATUSES.get(status, ("badge-muted", ""))[0]


def order_status_label(status: str) -> str | Promise:
    return _ORDER_STATUS_LABELS.get(status, status)


def order_status_meaning(status: str) -> str | Promise:
    """One sentence on what the status means for the customer; empty for a status we do not know."""
    return _ORDER_STATUSES.get(status, ("", ""))[1]


def time_left(row: OrderRow) -> str:
    """'in 23 days', 'in 12 months', 'in 3 years', 'expires today', 'expired 3 days ago'."""
    if row.expires_at is None or row.seconds_left is None:
        return ""
    span = _rounded_span(abs(row.seconds_left))
    if row.seconds_left >= 0:
        return gettext("expires today") if span == "" else gettext("in %(span)s") % {"span": span}
    return gettext("expired today") if span == "" else gettext("expired %(span)s ago") % {"span": span}


def _rounded_span(seconds: float) -> str:
    """A duration as a customer reads it, rounded rather than cut short: a year less a minute is '1 year'."""
    days = int(seconds // 86400)
    if days == 0:
        return ""
    if days <= 60:
        return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}
    months = round(seconds / 86400 / 30.4375)
    if months % 12 == 0 or months >= 24:
        years = round(seconds / 86400 / 365.25)
        return ngettext("%(count)d year", "%(count)d years", years) % {"count": years}
    return ngettext("%(count)d month", "%(count)d months", months) % {"count": months}


# --- A paid renewal, back from the payment page ---------------------------------------------------------------

_RENEWAL_FAILURES: dict[str, str | Promise] = {
    "expiry_changed": gettext_lazy(
        "because its expiry date changed since the page was opened (it was renewed meanwhile?)"
    ),
    "not_renewable": gettext_lazy("because it can no longer be renewed here"),
    "minimum_term": gettext_lazy("for this term"),
}


def renewal_payment_outcome(payment: Payment, renewal: Renewal | None) -> tuple[str, str]:
    """(tone, sentence) of a renewal paid on the payment page: success, info, error or warning."""
    charged = Money(payment.amount_captured, payment.currency)
    if renewal is not None and renewal.status == Renewal.RENEWED:
        if renewal.new_expires_at:
            until = formats.date_format(renewal.new_expires_at, "DATE_FORMAT")
            done = gettext("Renewed until %(date)s.") % {"date": until}
        else:
            done = gettext("Renewed.")
        if payment.status in (Payment.Status.CAPTURED, Payment.Status.PARTIALLY_CAPTURED):
            charge = gettext("Your card was charged %(amount)s.") % {"amount": format_money(charged)}
            return "success", f"{done} {charge}"
        completing = gettext("Your payment is being completed.")
        return "success", f"{done} {completing}"
    if payment.status == Payment.Status.CREATED:
        return "info", gettext(
            "Your payment is not confirmed yet. The domain is renewed as soon as it is; reload this page in a moment."
        )
    if payment.status == Payment.Status.AUTHORISED and (renewal is None or renewal.status == Renewal.PENDING):
        # Being renewed right now (the payment service's webhook got there first): not a problem to report.
        return "info", gettext("Your renewal is being made with the domain service. Reload this page in a moment.")
    if payment.status == Payment.Status.AUTHORISED and payment.lines.filter(status=PaymentLine.Status.PENDING).exists():
        # Paid, and the renewal could not be sent yet (the domain service away): it waits, the money held.
        return "info", gettext(
            "The domain service cannot be reached right now, so your renewal waits: it is made as soon as the "
            "service is back, and your card is only charged then. You can leave this page."
        )
    if payment.status == Payment.Status.CANCELLED or (renewal is not None and renewal.status == Renewal.FAILED):
        reason = _RENEWAL_FAILURES.get(renewal.failure_kind if renewal else "")
        failed = (
            gettext("The domain could not be renewed %(reason)s.") % {"reason": reason}
            if reason is not None
            else gettext("The domain could not be renewed.")
        )
        released = gettext("You have not been charged: the hold on your card was released.")
        return "error", f"{failed} {released}"
    return "warning", gettext(
        "We could not confirm the renewal with the domain service yet. Your card is only charged once it is "
        "confirmed; please check back shortly."
    )


def renewed_sentence(renewal: Renewal) -> str:
    """What the customer reads after a renewal made on the page (no payment: the store bills offline)."""
    if renewal.new_expires_at is not None:
        return gettext("Renewed until %(date)s.") % {"date": formats.date_format(renewal.new_expires_at, "DATE_FORMAT")}
    text = ngettext(
        "%(domain)s was renewed for %(years)d year.", "%(domain)s was renewed for %(years)d years.", renewal.duration
    )
    return text % {"domain": renewal.domain_name, "years": renewal.duration}


# --- A failed auto-renewal ----------------------------------------------------------------------------------

# What the customer reads about a failure (the card's or the provider's own words never reach them).
REASONS: dict[str, str | Promise] = {
    "card_declined": gettext_lazy("your saved card was declined"),
    "authentication_required": gettext_lazy(
        "your bank asks you to confirm this payment yourself, which cannot be done for you"
    ),
    "expired_card": gettext_lazy("your saved card has expired"),
    "insufficient_funds": gettext_lazy("your saved card was declined"),
    "no_saved_card": gettext_lazy("no card is saved on your account"),
    "no_price": gettext_lazy("it has no renewal price in our list right now"),
    "not_renewed": gettext_lazy("the domain service did not renew it"),
}


def failure_reason(order: Order) -> str:
    """Why the auto-renewal failed, in the active language (the customer's, in their email)."""
    reason = REASONS.get(order.auto_renew_failure)
    return str(reason) if reason is not None else gettext("the payment could not be completed")
