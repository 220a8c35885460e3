"""The activity log: who did what to a customer's account, domains and money (accounts.models.Activity).

One writer, `activity_record(action=…, customer=…, order=…, payment=…, detail=…)`, called by the services where each
change is made, in the change's own transaction. The actor is never passed by hand: a request's middleware
(`ActivityActorMiddleware`) makes it the signed-in customer, the staff member, or the staff member acting as the
customer (django-hijack); a background task (the worker, the scheduler's jobs) is the system. A visitor who is not
signed in (signup, a password reset link) acts as the customer the row is about.

Nothing secret goes in: a transfer code reveal is logged, the code is not; a card by its brand and last four at most.
The writer refuses detail keys that name a secret, so a careless caller fails its tests instead of leaking.
"""

from __future__ import annotations

import contextvars
import datetime as dt
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext_lazy as _

from accounts.models import Activity, Customer
from pricing.money import Money, format_money
from storefront.site.domain_names import domain_to_unicode

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_stubs_ext import StrOrPromise

Actor = Activity.Actor

# Keys a detail may never carry: a secret written once into a log is leaked for good.
_SECRET_KEYS = frozenset({"password", "code", "transfer_code", "auth_code", "token", "secret", "number", "cvc", "key"})


@dataclass(frozen=True)
class Text:
    """How one action reads: for staff (English, with the detail's facts) and, when the customer sees it, for them
    (translated; None: staff only). Both are %-formats over the row's detail and `domain`."""

    staff: str
    customer: StrOrPromise | None = None


# Every action the log knows, by its code. Customer texts use tú in Spanish (locale/es).
ACTIONS: dict[str, Text] = {
    # The account
    "signup": Text("Signed up", _("You created your account.")),
    "provider_linked": Text(
        "Provider customer created (id %(provider_id)s)", _("Your account was confirmed and can buy domains.")
    ),
    "password_changed": Text("Password changed", _("Your password was changed.")),
    "currency_changed": Text(
        "Currency changed from %(old)s to %(new)s", _("Your currency was changed from %(old)s to %(new)s.")
    ),
    "password_reset": Text("Password reset through the emailed link", _("Your password was reset.")),
    "email_changed": Text("Email address changed to %(email)s", _("Your email address was changed to %(email)s.")),
    "two_factor_on": Text("Two-factor sign-in switched on (%(method)s)", _("Two-factor sign-in was switched on.")),
    "two_factor_off": Text("Two-factor sign-in switched off (%(method)s)", _("Two-factor sign-in was switched off.")),
    "recovery_codes": Text("New two-factor recovery codes made", _("New recovery codes were made.")),
    "contact_changed": Text(
        "Contact details changed (%(fields)s)", _("Your contact details were changed, here and at the domain registry.")
    ),
    "contact_change_requested": Text(
        "Contact change asked (%(fields)s): waits for staff to send it to the provider",
        _("You asked to change your contact details; we are passing the change to the domain registry."),
    ),
    "contact_change_done": Text(
        "Contact change sent to the provider by staff (%(fields)s)",
        _("Your new contact details are now with the domain registry."),
    ),
    "contact_change_withdrawn": Text(
        "Pending contact change withdrawn", _("Your pending contact change was withdrawn.")
    ),
    "tax_details_changed": Text(
        "Tax details changed (business: %(business)s, VAT number %(vat_id)s, online check: %(check)s)",
        _("Your tax details were changed."),
    ),
    "panel_opened": Text("Control panel opened (provider auto-login)", _("The domain control panel was opened.")),
    "account_deleted": Text("Account deleted by the customer (kept records anonymised)"),
    "acting_started": Text(
        "Staff member began acting as the customer", _("Our support team opened your account to see what you see.")
    ),
    "acting_ended": Text("Staff member stopped acting as the customer"),
    # Domains
    "checkout_placed": Text("Bought %(domains)s", _("You ordered %(domains)s.")),
    "registered": Text("Registered for %(years)s year(s)", _("%(domain)s was registered.")),
    "registration_failed": Text("Not registered (%(reason)s)", _("%(domain)s could not be registered.")),
    "renewed": Text("Renewed for %(years)s year(s)", _("%(domain)s was renewed for %(years)s year(s).")),
    "renewal_failed": Text("Renewal not made (%(reason)s)", _("%(domain)s was not renewed.")),
    "renewal_card_charged": Text(
        "Renewal confirmed with the saved card (%(brand)s ending %(last4)s): authorised",
        _("You confirmed renewing %(domain)s with your %(brand)s card ending %(last4)s."),
    ),
    "renewal_card_refused": Text(
        "Saved card (ending %(last4)s) refused for a renewal (%(reason)s): nothing charged",
        _("Your saved card was not charged for renewing %(domain)s; nothing was renewed."),
    ),
    "auto_renew_on": Text("Auto-renew switched on (card ending %(last4)s)", _("Auto-renew was switched on.")),
    "auto_renew_off": Text("Auto-renew switched off", _("Auto-renew was switched off.")),
    "auto_renew_failed": Text(
        "Auto-renewal failed (%(reason)s): switched off, reminders resume",
        _("Auto-renewal failed, so auto-renew was switched off; we will send reminders instead."),
    ),
    "privacy_purchased": Text(
        "WHOIS privacy bought for %(years)s year(s), until %(until)s",
        _("WHOIS privacy was added to %(domain)s: your contact details are hidden in public lookups."),
    ),
    "privacy_failed": Text(
        "WHOIS privacy not bought (%(reason)s)", _("WHOIS privacy could not be added to %(domain)s.")
    ),
    "privacy_on": Text("WHOIS privacy switched on", _("WHOIS privacy was switched on for %(domain)s.")),
    "privacy_off": Text(
        "WHOIS privacy switched off",
        _("WHOIS privacy was switched off for %(domain)s: your contact details are public."),
    ),
    "transfer_code_shown": Text("Transfer code shown (the code is not recorded)", _("The transfer code was shown.")),
    "dns_activated": Text("DNS activated", _("DNS was activated.")),
    "dns_record_added": Text("DNS %(record)s added", _("DNS: %(record)s added.")),
    "dns_record_changed": Text("DNS %(record)s changed (was %(old)s)", _("DNS: %(record)s changed (was %(old)s).")),
    "dns_record_removed": Text("DNS %(record)s removed", _("DNS: %(record)s removed.")),
    # Money (written with each booking in the ledger, billing/ledger/books.py)
    "payment_captured": Text("Charged %(amount)s", _("You were charged %(amount)s.")),
    "payment_released": Text(
        "Card hold released (nothing charged)", _("The hold on your card was released; nothing was charged.")
    ),
    "payment_refunded": Text("Refunded %(amount)s", _("%(amount)s was refunded to you.")),
    "refund_failed": Text("Refund of %(amount)s failed at Stripe: booked back"),
    "dispute_withdrawn": Text("Dispute: %(amount)s withdrawn by the bank"),
    "dispute_reinstated": Text("Dispute won: %(amount)s reinstated"),
    "written_off": Text("Written off %(amount)s (registered, never paid)"),
    "collection_asked": Text("Collection asked again (saved card, then the payment link)"),
    "card_saved": Text("Card saved (%(brand)s ending %(last4)s)", _("Your %(brand)s card ending %(last4)s was saved.")),
    "card_removed": Text("Saved card removed (%(brand)s ending %(last4)s)", _("Your saved card was removed.")),
    # Staff's own
    "alert_resolved": Text("Alert resolved: %(what)s"),
    "api_request": Text("Staff API used by key %(key_name)s: %(method)s %(path)s"),
}
# What the customer's account page lists: actions with a customer text.
CUSTOMER_ACTIONS = tuple(code for code, text in ACTIONS.items() if text.customer is not None)


# --- Who is acting ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActingAs:
    kind: str
    user_id: int | None = None
    name: str = ""


SYSTEM = ActingAs(Actor.SYSTEM)
_VISITOR = ActingAs(Actor.CUSTOMER)
_current: contextvars.ContextVar[Any] = contextvars.ContextVar("activity_actor", default=None)


def actor_of_request(request: HttpRequest) -> ActingAs:
    """Who a request acts as: the staff member acting as a customer (hijack's history names them), staff, the signed-in
    customer, or a visitor (the customer the row is about)."""
    user = request.user
    if not user.is_authenticated:
        return _VISITOR
    session = getattr(request, "session", None)
    history = (session.get("hijack_history") if session is not None else None) or []
    if history:
        from django.contrib.auth import get_user_model

        staff = get_user_model().objects.filter(pk=history[-1]).first()
        return ActingAs(Actor.STAFF_AS_CUSTOMER, staff.pk if staff else None, staff.get_username() if staff else "")
    kind = Actor.STAFF if user.is_staff else Actor.CUSTOMER
    return ActingAs(kind, user.pk, user.get_username())


@contextmanager
def acting(actor: ActingAs | Any) -> Iterator[None]:
    """Record everything inside as done by `actor` (a lazy object is resolved only when a row is written)."""
    token = _current.set(actor)
    try:
        yield
    finally:
        _current.reset(token)


def acting_for_request(request: HttpRequest) -> Any:
    """The request's actor, worked out only if the request writes a row (most never do)."""
    return SimpleLazyObject(lambda: actor_of_request(request))


def current_actor() -> ActingAs:
    actor = _current.get()
    return SYSTEM if actor is None else ActingAs(actor.kind, actor.user_id, actor.name)


_task_tokens: dict[str, contextvars.Token[Any]] = {}


def task_acting_start(task_id: str) -> None:
    """A background task acts as the system, even when the immediate backend runs it inside a request."""
    _task_tokens[task_id] = _current.set(SYSTEM)


def task_acting_end(task_id: str) -> None:
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        _current.reset(token)


# --- Writing ------------------------------------------------------------------------------------------------------


class OrderLike(Protocol):
    """A domain as the log needs it (domains.models.Order, which `accounts` may not import)."""

    order_id: int
    domain_name: str
    customer_id: int


class PaymentLike(Protocol):
    pk: Any
    customer_id: int


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


def activity_record(
    *,
    action: str,
    customer: Customer | None = None,
    order: OrderLike | None = None,
    domain_name: str = "",
    payment: PaymentLike | None = None,
    detail: Mapping[str, Any] | None = None,
) -> Activity:
    """Write one row of the log for `action` (a key of ACTIONS) about a customer and, where it is about one, a domain
    (`order`, or only its `domain_name`) and a payment. The actor is the current one (see `acting`)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown activity action {action!r}")
    facts = {key: _plain(value) for key, value in (detail or {}).items()}
    secret = _SECRET_KEYS.intersection(key.lower() for key in facts)
    if secret:
        raise ValueError(f"the activity log never holds secrets: {sorted(secret)}")
    customer_id = customer.pk if customer is not None else None
    if customer_id is None and order is not None:
        customer_id = order.customer_id
    if customer_id is None and payment is not None:
        customer_id = payment.customer_id
    actor = current_actor()
    name = actor.name
    if actor.kind == Actor.CUSTOMER and actor.user_id is None and customer_id is not None:
        # A visitor acting for the account the row is about (signup, a reset link): named by its login.
        name = (customer or Customer.objects.select_related("user").get(pk=customer_id)).user.get_username()
    return Activity.objects.create(
        at=timezone.now(),
        actor=actor.kind,
        actor_user_id=actor.user_id,
        actor_name=name[:254],
        customer_id=customer_id,
        action=action,
        order_id=order.order_id if order is not None else None,
        domain_name=order.domain_name if order is not None else domain_name,
        payment_id=payment.pk if payment is not None else None,
        detail=facts,
    )


# --- Reading ------------------------------------------------------------------------------------------------------


class _Facts(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def activity_text(entry: Activity, *, for_customer: bool = False) -> str:
    """The row in words: for staff (English), or for the customer in the active language (amounts written for it)."""
    text = ACTIONS.get(entry.action)
    if text is None:
        return entry.action
    words = text.customer if for_customer and text.customer is not None else text.staff
    # The customer reads a name in its own script (café.com); staff read what the provider holds (xn--caf-dma.com).
    facts = _Facts(entry.detail, domain=domain_to_unicode(entry.domain_name) if for_customer else entry.domain_name)
    if "amount" in facts and facts.get("currency"):
        facts["amount"] = format_money(Money(Decimal(str(facts["amount"])), str(facts["currency"])))
    return str(words) % facts


# Who did it, as the customer reads it.
_ACTOR_FOR_CUSTOMER: dict[str, StrOrPromise] = {
    Actor.CUSTOMER: _("You"),
    Actor.STAFF: _("Our staff"),
    Actor.STAFF_AS_CUSTOMER: _("Our support team, for you"),
    Actor.SYSTEM: _("Automatic"),
}


@dataclass(frozen=True)
class CustomerActivity:
    at: dt.datetime
    who: StrOrPromise
    what: str
    domain_name: str


def activity_of_customer(*, customer: Customer, limit: int = 30) -> list[CustomerActivity]:
    """What the customer sees on their account page, in the active language: their own actions and the store's on
    their domains and money, newest first."""
    rows = Activity.objects.filter(customer=customer, action__in=CUSTOMER_ACTIONS).order_by("-at", "-pk")[:limit]
    return [
        CustomerActivity(
            at=entry.at,
            who=_ACTOR_FOR_CUSTOMER[entry.actor],
            what=activity_text(entry, for_customer=True),
            domain_name=entry.domain_name,
        )
        for entry in rows
    ]
