"""Sign-in limits an attacker cannot turn against the account's owner.

Failed sign-ins (wrong passwords, wrong two-factor codes, at sign-in and at re-authentication) are limited:

- per address, whatever the account (RATE_LIMIT_LOGIN_FAILED's `/ip` rate): one address guessing at many accounts;
- per account and address (its `/key` rate): one address guessing at one account. It stops that address only, so
  20 wrong passwords from an attacker's address never lock the owner out of their own;
- per account, from every address (RATE_LIMIT_LOGIN_ACCOUNT), far higher: past it the account is being guessed at
  from many places. It slows rather than locks: each address may then try the account once a minute, and a browser
  that has signed in to it before (the signed known-browser cookie, accounts/security/middleware.py) is not slowed at
  all. The owner is emailed once per window (through the outbox, in their language), staff too.

An attempt takes its share of the per-address limits before the password or code is checked; a sign-in that succeeds
gives it back, so the owner's own sign-ins never count. Counts are storefront.resilience.counters (shared by every
process; per process while the cache is away). allauth's own `login_failed` limit is off (settings): these replace it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils.translation import ngettext

from accounts.models import Customer
from accounts.security.middleware import known_browser_users
from storefront.background.outbox import email_queue_admins
from storefront.requests.request_helpers import client_address
from storefront.resilience.counters import counter_decr, counter_delete, counter_get, counter_incr

logger = logging.getLogger(__name__)

# Once the account-wide limit is passed, each address may try the account once in this many seconds.
SLOW_SECONDS = 60


@dataclass(frozen=True)
class Rate:
    amount: int
    seconds: int


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(text: str) -> Rate:
    """`20/15m` (allauth's syntax: s, m, h or d after an optional number; a bare number is seconds) as a Rate."""
    amount, _, rest = text.strip().partition("/")
    period = rest.partition("/")[0].strip()
    unit = period[-1] if period[-1:] in _UNITS else "s"
    number = period[:-1] if period[-1:] in _UNITS else period
    return Rate(int(amount), max(1, int(float(number or 1) * _UNITS[unit])))


def login_failed_rates(text: str) -> tuple[Rate | None, Rate | None]:
    """RATE_LIMIT_LOGIN_FAILED (`20/15m/ip,5/15m/key`): the per-address rate and the per-(account, address) rate."""
    per_address = per_pair = None
    for part in text.split(","):
        if not part.strip():
            continue
        if part.strip().endswith("/key"):
            per_pair = parse_rate(part)
        else:
            per_address = parse_rate(part)
    return per_address, per_pair


class SignInLimited(Exception):
    """This attempt is refused before any password or code is checked: `message` says how long to wait."""

    def __init__(self, message: str, *, wait_seconds: int) -> None:
        super().__init__(message)
        self.message = message
        self.wait_seconds = wait_seconds


@dataclass
class Attempt:
    """One sign-in attempt's share of the limits: give it back when it succeeds, count the account when it fails."""

    request: HttpRequest
    account: str
    user: Any
    taken: list[str] = field(default_factory=list)

    def succeeded(self) -> None:
        for key in self.taken:
            counter_decr(key)
        self.taken.clear()

    def failed(self) -> None:
        self.taken.clear()
        rate = account_rate()
        if rate.amount <= 0:
            return
        count = counter_incr(_key("account", self.account, window=rate.seconds), timeout=rate.seconds + 1)
        if count == rate.amount:  # crossing: once per window (the counter is atomic)
            _being_guessed_at(self, rate)


def account_rate() -> Rate:
    return parse_rate(settings.RATE_LIMIT_LOGIN_ACCOUNT)


def signin_attempt(*, request: HttpRequest, login: str = "", user: Any = None) -> Attempt:
    """Take this attempt's share of the limits, or raise SignInLimited (nothing taken). `login` is what was typed
    (an email, whether or not an account has it); `user` the account when known (the two-factor step)."""
    if user is None:
        user = _user_for(login)
    account = f"user:{user.pk}" if user is not None else f"login:{login.strip().lower()}"
    address = client_address(request)
    attempt = Attempt(request=request, account=account, user=user)
    per_address, per_pair = login_failed_rates(settings.RATE_LIMIT_LOGIN_FAILED)
    try:
        if per_address is not None:
            _take(attempt, _key("address", address, window=per_address.seconds), per_address, _too_many)
        if per_pair is not None:
            _take(attempt, _key("pair", f"{account}|{address}", window=per_pair.seconds), per_pair, _too_many)
        rate = account_rate()
        guessed_at = rate.amount > 0 and counter_get(_key("account", account, window=rate.seconds)) >= rate.amount
        if guessed_at and not _known_browser(request, user):
            slow = Rate(1, SLOW_SECONDS)
            _take(attempt, _key("slow", f"{account}|{address}", window=slow.seconds), slow, _slowed)
    except SignInLimited:
        attempt.succeeded()  # gives back what was taken before the refusal
        raise
    return attempt


def signin_limits_clear(*, request: HttpRequest, user: Any) -> None:
    """A successful password reset proves the owner: the account-wide count and this address's start again."""
    account = f"user:{user.pk}"
    rate = account_rate()
    counter_delete(_key("account", account, window=rate.seconds))
    per_pair = login_failed_rates(settings.RATE_LIMIT_LOGIN_FAILED)[1]
    if per_pair is not None:
        counter_delete(_key("pair", f"{account}|{client_address(request)}", window=per_pair.seconds))


def _take(attempt: Attempt, key: str, rate: Rate, refusal: Any) -> None:
    if counter_incr(key, timeout=rate.seconds + 1) > rate.amount:
        counter_decr(key)
        raise refusal(_seconds_left(rate.seconds))
    attempt.taken.append(key)


def _key(kind: str, who: str, *, window: int) -> str:
    digest = hashlib.sha256(who.encode()).hexdigest()[:24]
    return f"signin:{kind}:{digest}:{int(time.time() // window)}"


def _seconds_left(window: int) -> int:
    return max(1, math.ceil((int(time.time() // window) + 1) * window - time.time()))


def _too_many(wait: int) -> SignInLimited:
    minutes = max(1, math.ceil(wait / 60))
    text = ngettext(
        "Too many failed sign-in attempts from here. Please try again in %(minutes)d minute, or reset your password.",
        "Too many failed sign-in attempts from here. Please try again in %(minutes)d minutes, or reset your password.",
        minutes,
    ) % {"minutes": minutes}
    return SignInLimited(text, wait_seconds=wait)


def _slowed(wait: int) -> SignInLimited:
    text = ngettext(
        "This account has had many wrong sign-in attempts, so each place may try it only once a minute. Please try "
        "again in %(seconds)d second, or reset your password.",
        "This account has had many wrong sign-in attempts, so each place may try it only once a minute. Please try "
        "again in %(seconds)d seconds, or reset your password.",
        wait,
    ) % {"seconds": wait}
    return SignInLimited(text, wait_seconds=wait)


def _user_for(login: str) -> Any:
    email = login.strip()
    if not email:
        return None
    return get_user_model().objects.filter(email__iexact=email, is_active=True).order_by("pk").first()


def _known_browser(request: HttpRequest, user: Any) -> bool:
    return user is not None and str(user.pk) in known_browser_users(request)


def _being_guessed_at(attempt: Attempt, rate: Rate) -> None:
    """The owner (and staff) hear that the account is being guessed at: once per window."""
    user = attempt.user
    logger.warning("sign-in: account %s has had %d failed attempts this window: slowed", attempt.account, rate.amount)
    if user is None:
        return  # no such account: nobody to tell
    from accounts.language import customer_language  # the middleware module imports nothing of ours

    customer = Customer.objects.filter(user=user).first()
    with customer_language(customer):
        get_adapter(attempt.request).send_notification_mail(
            "accounts/email/signin_guessed", user, {"attempts": rate.amount, "minutes": rate.seconds // 60}
        )
    email_queue_admins(
        "Sign-in: an account is being guessed at",
        f"The account of user {user.pk} ({'staff' if user.is_staff else 'customer'}) had {rate.amount} failed "
        f"sign-in attempts within {rate.seconds // 60} minutes, from several addresses. Sign-ins to it are slowed to "
        f"one a minute per address (browsers that signed in to it before are not slowed); its owner was emailed.",
        key=f"signin-guessed:{user.pk}:{int(time.time() // rate.seconds)}",
    )
