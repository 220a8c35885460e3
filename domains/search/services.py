"""Domain search: MetaSearch answers, cached and single-flight, with an availability fallback.

`metasearch_cached(term)` asks without AI suggestions, so it answers within search's short timeout; it is also how
the cart and the order page look up a domain's price and availability, and nothing that buys or prices waits
for AI. `ai_suggestions_cached(term)` asks for the AI block in a request of its own, with a long timeout
(8 to 17 s on the provider's cache miss), for the results page to fill in when it arrives.

Why single-flight: a customer typing, several tabs, or a link shared in a chat make identical searches arrive
together. The first one asks the provider; the others wait for its answer instead of asking again. Within a
process the waiters share the leader's outcome (answer or error); across processes sharing a cache (gunicorn
workers on Redis) a short `cache.add` lock makes the others poll the cache briefly before asking themselves.
Errors are shared with whoever was waiting for that same call, but never cached for later searches.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import logging
import math
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, cast

from django.conf import settings
from django.core.cache import cache
from django.db import connection, models
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Customer
from domains.models import Order
from storefront.gateway import DomainResult, MetaSearch, MetaSearchResult, Unavailable, ValidationRejected, gateway
from storefront.requests.after_response import after_response
from storefront.site.domain_names import NotADomainName, domain_to_ascii, domain_to_unicode, is_internationalised

T = TypeVar("T")

logger = logging.getLogger(__name__)

# The partner's TLDs (its price list) change when the reseller's catalogue does: rarely.
PARTNER_TLDS_SECONDS = 3600

# How long the cross-process lock lives if its holder dies, and how long others poll before asking themselves.
_LOCK_SECONDS = 10
_WAIT_SECONDS = 5.0
# AI calls wait up to RESELLER_AI_READ_TIMEOUT each; at most this many per process, so that slow suggestions
# never hold every provider slot and web thread that searches, carts and checkouts need.
_AI_CALLS_PER_PROCESS = 4
_ai_slots = threading.BoundedSemaphore(_AI_CALLS_PER_PROCESS)
# An in-process follower waits at most this long for its leader, whose call is bounded by the gateway's timeouts.
_FOLLOW_SECONDS = 60.0

_LABEL_JUNK = re.compile(r"[^a-z0-9-]")


# --- What was typed -----------------------------------------------------------------------------------------

# A full domain is at most 253 characters; the label (the part before the first dot) at most 63.
DOMAIN_MAX = 253
LABEL_MAX = 63
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://")
# ASCII only: letters of other scripts are for IDNA to judge.
_NOT_IN_A_DOMAIN = re.compile(r"[\x00-\x7f](?<![a-z0-9.-])")
EXAMPLE = gettext_lazy("Use letters, numbers and hyphens, like bluebird or bluebird.com.")


class BadTerm(ValueError):
    """What was typed cannot be a domain: `message` says why, in the customer's words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class SearchTerm:
    """The name the customer typed, as a domain: `label` and, when one was typed, `tld` (`co.uk`)."""

    label: str
    tld: str = ""

    @property
    def domain(self) -> str:
        return f"{self.label}.{self.tld}" if self.tld else self.label

    @property
    def shown(self) -> str:
        """The name as the customer reads it: `café.com` for the A-label `xn--caf-dma.com`."""
        return domain_to_unicode(self.domain)


def search_term_parse(*, typed: str) -> SearchTerm:
    """What the customer typed, read as a domain the way they meant it, or BadTerm saying why it cannot be one.

    Why not leave it to MetaSearch: it silently deletes what it cannot use, so `café.com` became caf.com and
    `https://coffee.com/` httpscoffee.com, and the customer was shown results for a name nobody typed. A pasted
    address loses its scheme, `www.` and path; anything else that cannot be in a domain is named, not dropped.
    """
    text = typed.strip().lower()
    scheme = _SCHEME.match(text)
    if scheme or "/" in text:
        # An address: the host is what comes before the path, query or fragment (and any port).
        text = re.split(r"[/?#]", text[scheme.end() if scheme else 0 :], maxsplit=1)[0]
        text = text.rsplit("@", 1)[-1].split(":", 1)[0]
    text = text.rstrip(".")
    if text.startswith("www.") and text.count(".") >= 2:
        text = text[4:]
    if not text:
        raise BadTerm(gettext("Type a name to search for. %(example)s") % {"example": EXAMPLE})
    if any(char.isspace() for char in text):
        words = text.split()
        raise BadTerm(
            gettext("A domain cannot contain spaces. Try %(joined)s or %(hyphenated)s.")
            % {"joined": "".join(words), "hyphenated": "-".join(words)}
        )
    # Plain-ASCII characters that cannot be in a name are named first (in any script the same); letters of other
    # scripts are then converted to the A-label the provider searches and registers (IDNA 2008, UTS 46).
    bad = list(dict.fromkeys(_NOT_IN_A_DOMAIN.findall(text)))
    if bad:
        quoted = [f"“{char}”" for char in bad]
        shown = (
            quoted[0]
            if len(quoted) == 1
            else gettext("%(some)s or %(last)s") % {"some": ", ".join(quoted[:-1]), "last": quoted[-1]}
        )
        raise BadTerm(gettext("A domain cannot contain %(shown)s. %(example)s") % {"shown": shown, "example": EXAMPLE})
    parts = text.split(".")
    if not all(parts):
        raise BadTerm(
            gettext("A domain cannot start with a dot or have two dots in a row. %(example)s") % {"example": EXAMPLE}
        )
    if any(part.startswith("-") or part.endswith("-") for part in parts):
        raise BadTerm(gettext("A domain cannot start or end with a hyphen, before or after a dot."))
    if is_internationalised(text):
        try:
            text = domain_to_ascii(text)
        except NotADomainName as err:
            raise BadTerm(err.message) from err
    label, _, tld = text.partition(".")
    if len(label) > LABEL_MAX:
        raise BadTerm(
            gettext("The name before the extension can be at most %(limit)d characters; this one has %(length)d.")
            % {"limit": LABEL_MAX, "length": len(label)}
        )
    if len(text) > DOMAIN_MAX:
        raise BadTerm(
            gettext("A domain can be at most %(limit)d characters; this one has %(length)d.")
            % {"limit": DOMAIN_MAX, "length": len(text)}
        )
    return SearchTerm(label=label, tld=tld)


def normalise_term(term: str) -> str:
    return term.strip().lower()


Unbuyable = Literal["not_found", "premium", "taken"]


class Buyable(Protocol):
    """A row that says whether a domain can be bought here: MetaSearch's, or the availability endpoint's."""

    @property
    def premium(self) -> bool: ...

    @property
    def sellable(self) -> bool: ...


def why_not_buyable(row: Buyable | None) -> Unbuyable | None:
    """Why the customer cannot buy a domain, from its MetaSearch or availability row (None: the answer had no row
    for it); None when they can. Adding to the cart and the checkout's recheck both ask this, each in its own
    words."""
    if row is None:
        return "not_found"
    if row.premium:
        return "premium"
    if not row.sellable:
        return "taken"
    return None


def metasearch_cached(term: str) -> MetaSearch:
    """MetaSearch's answer for `term` (autosuggest on, AI suggestions off), from the cache when fresh.

    Raises the gateway's errors (never cached): ValidationRejected for a term that sanitises to nothing,
    Unauthorized, RateLimited, Unavailable (down, timed out, unreadable).
    """
    term = normalise_term(term)
    key, ai_key = _cache_key("metasearch", term), _cache_key("ai", term)
    shared_read = False
    if _local_get(key) is None and _local_get(ai_key) is None:
        # One round trip for the answer and the AI suggestions the page asks after it (ai_suggestions_if_cached),
        # instead of two: each is a share of a new search's own time.
        found = _cache_quietly(cache.get_many, [key, ai_key])
        if found is not None:
            shared_read = True
            if key in found:
                _local_put(key, found[key], _LOCAL_SECONDS)
            ai = found.get(ai_key)
            _local_put(ai_key, _MISS if ai is None else ai, _LOCAL_MISS_SECONDS if ai is None else _LOCAL_SECONDS)
    return _single_flight(
        key,
        lambda: gateway().metasearch(search_term=term, autosuggest=True, aisuggest=False),
        shared_read=shared_read,
    )


def ai_suggestions_cached(term: str) -> list[MetaSearchResult]:
    """MetaSearch's AI suggestions for `term`, from the cache when fresh; asked with RESELLER_AI_READ_TIMEOUT.

    Autosuggest stays on as in the results' request, so the provider leaves out names the results already show.
    Raises the gateway's errors (never cached), and Unavailable when this process already waits on enough AI.
    """
    term = normalise_term(term)
    seconds = settings.RESELLER_AI_READ_TIMEOUT + settings.RESELLER_CONNECT_TIMEOUT
    return _single_flight(
        _cache_key("ai", term),
        lambda: _ask_for_ai(term),
        # Another process may be asking for as long as the AI timeout: wait for it that long, not search's 5 s.
        lock_seconds=seconds + 5,
        wait_seconds=seconds,
    )


def ai_suggestions_if_cached(term: str) -> list[MetaSearchResult] | None:
    """The AI suggestions for `term` if they are in the cache already (nothing is asked), else None.

    A miss is remembered in this process for _LOCAL_MISS_SECONDS: a search repeated meanwhile shows the block
    loading (it asks for the suggestions itself) without asking the shared cache again.
    """
    key = _cache_key("ai", normalise_term(term))
    found = _local_get(key)
    if found is _MISS:
        return None
    if found is not None:
        return cast(list[MetaSearchResult], found)
    found = _cache_get(key)
    _local_put(key, _MISS if found is None else found, _LOCAL_MISS_SECONDS if found is None else _LOCAL_SECONDS)
    return cast(list[MetaSearchResult] | None, found)


def _ask_for_ai(term: str) -> list[MetaSearchResult]:
    if not _ai_slots.acquire(blocking=False):
        logger.warning("search: AI suggestions skipped, %d already in flight", _AI_CALLS_PER_PROCESS)
        raise Unavailable()
    try:
        answer = gateway().metasearch(
            search_term=term,
            autosuggest=True,
            aisuggest=True,
            read_timeout=settings.RESELLER_AI_READ_TIMEOUT,
        )
    finally:
        _ai_slots.release()
    return answer.ai_suggestions


def partner_tlds() -> list[str]:
    """The TLDs the partner sells (the keys of its price list), cached for PARTNER_TLDS_SECONDS.

    Raises the gateway's errors (never cached), and Unavailable for a price list without TLDs: the fallback
    must not guess which extensions to offer.
    """

    def ask() -> list[str]:
        tlds = list(gateway().pricing().tlds)
        if not tlds:
            logger.warning("search: the provider's price list names no TLDs")
            raise Unavailable()
        return tlds

    return _single_flight(_cache_key("partner-tlds", ""), ask, cache_seconds=PARTNER_TLDS_SECONDS)


def fallback_availability(term: str) -> list[DomainResult]:
    """Availability (no prices) of the typed name across the partner's TLDs, for when MetaSearch is down.

    A typed TLD the partner sells is asked first, so its row leads. Raises ValidationRejected when nothing
    searchable is left, and the gateway's errors when the price list (the TLDs) or availability cannot be read.
    """
    label, _, typed_tld = normalise_term(term).partition(".")
    label = _LABEL_JUNK.sub("", label).strip("-")[:63]
    if not label:
        raise ValidationRejected(
            message=gettext("Type a name using letters, numbers and hyphens, for example mybrand or mybrand.com.")
        )
    sold = partner_tlds()
    tlds = [typed_tld] if typed_tld in sold else []
    tlds += [tld for tld in sold if tld != typed_tld]
    results = _single_flight(
        _cache_key("availability", f"{label}|{','.join(tlds)}"),
        lambda: gateway().domain_availability(search_terms=label, tlds=tlds),
    )
    # The provider answers in its own order; keep the typed TLD first, the rest in our order.
    rank = {tld: i for i, tld in enumerate(tlds)}
    return sorted(results, key=lambda row: rank.get(row.tld, len(rank)))


def search_rows_cached(domain_names: Sequence[str]) -> dict[str, MetaSearchResult]:
    """The MetaSearch rows of these exact names from answers still fresh in the cache (adding a name to the cart
    looks it up with `metasearch_cached`): no provider call. Names without a fresh row are absent."""
    keys = {_cache_key("metasearch", normalise_term(name)): normalise_term(name) for name in domain_names}
    answers = _cache_quietly(cache.get_many, list(keys)) or {}
    found = {}
    for key, answer in answers.items():
        name = keys[key]
        row = next((r for r in answer.results if r.domain_name.lower() == name), None)
        if row is not None:
            found[name] = row
    return found


def availability_of(domain_names: Sequence[str]) -> dict[str, DomainResult]:
    """These exact names' availability in one provider call: the endpoint checks every label asked with every TLD
    asked, and only the names asked for are kept. A name the provider gives no row for (a TLD the partner does not
    sell) is absent. Raises the gateway's errors."""
    names = sorted({normalise_term(name) for name in domain_names})
    if not names:
        return {}
    labels = sorted({name.partition(".")[0] for name in names})
    tlds = sorted({name.partition(".")[2] for name in names})
    rows = gateway().domain_availability(search_terms=labels, tlds=tlds)
    wanted = set(names)
    return {row.domain_name.lower(): row for row in rows if row.domain_name.lower() in wanted}


def orders_owned_among(user_id: int, domain_names: Collection[str]) -> dict[str, int]:
    """Which of these names (lower case) the user's customer owns, from our copy of the order listing: name -> order
    id. One indexed query, bounded by the names shown however many domains the customer has.

    Written in SQL: every signed-in search asks it, and building the same ORM query each time cost six times its
    execution (0.55 ms against 0.08 ms on SQLite, measured in a shell). Table and column names come from the
    models, so a rename still follows them.
    """
    if not domain_names:
        return {}
    order, customer = Order._meta, Customer._meta
    fields = [order.get_field(name) for name in ("domain_name", "order_id", "customer")]
    column = {field.name: field.column for field in fields if isinstance(field, models.Field)}
    user_column = customer.get_field("user").column
    sql = (
        f"SELECT o.{column['domain_name']}, o.{column['order_id']} FROM {order.db_table} o "  # noqa: S608 - model names
        f"JOIN {customer.db_table} c ON o.{column['customer']} = c.{customer.pk.column} "
        f"WHERE c.{user_column} = %s AND o.{column['domain_name']} IN ({', '.join(['%s'] * len(domain_names))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id, *domain_names])
        return {name.lower(): order_id for name, order_id in cursor.fetchall()}


def cache_seconds() -> int:
    return int(getattr(settings, "SEARCH_CACHE_SECONDS", 60))


_cache_seconds = cache_seconds  # the name, where a parameter of the same name hides it


def _cache_key(kind: str, term: str) -> str:
    # Hashed: any text is safe as a key on every backend (memcached refuses spaces and long keys). The upstream
    # address is part of it so that pointing the storefront elsewhere never serves the other provider's answers.
    upstream = f"{settings.RESELLER_BASE_URL}|{settings.RESELLER_METASEARCH_URL}"
    digest = hashlib.blake2b(f"{upstream}|{term}".encode(), digest_size=16).hexdigest()
    # v2: until v1, the "metasearch" answers held AI suggestions; they are asked for apart now.
    return f"search:v2:{kind}:{digest}"


# --- Single flight ------------------------------------------------------------------------------------------


class _Flight:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: object = None
        self.error: BaseException | None = None


_flights: dict[str, _Flight] = {}
_flights_lock = threading.Lock()


def _single_flight(
    key: str,
    compute: Callable[[], T],
    *,
    cache_seconds: int | None = None,
    lock_seconds: float = _LOCK_SECONDS,
    wait_seconds: float | None = None,
    shared_read: bool = False,
) -> T:
    """compute() once for everyone asking for `key` at the same time; its value is cached, its error is not.

    cache_seconds defaults to SEARCH_CACHE_SECONDS; wait_seconds (how long another process's answer is awaited)
    to _WAIT_SECONDS, read when called so tests can shorten it. shared_read: the caller has just read `key` from the
    shared cache (a hit is in this process's copy now), so a miss is not read again.
    """
    across = functools.partial(
        _across_processes,
        cache_seconds=cache_seconds,
        lock_seconds=lock_seconds,
        wait_seconds=_WAIT_SECONDS if wait_seconds is None else wait_seconds,
    )
    hit = _local_get(key)
    if hit is not None and hit is not _MISS:
        return cast(T, hit)
    hit = None if shared_read else _cache_get(key)
    if hit is not None:
        _local_put(key, hit, _LOCAL_SECONDS)
        return hit
    with _flights_lock:
        flight = _flights.get(key)
        leading = flight is None
        if flight is None:
            flight = _flights[key] = _Flight()
    if not leading:
        if flight.done.wait(_FOLLOW_SECONDS):
            if flight.error is not None:
                # A copy: one exception object raised in several threads would share one growing traceback.
                raise copy.copy(flight.error)
            if flight.value is not None:
                # The leader was asked for this key, so with the same `compute`: its value is a T.
                return cast(T, flight.value)
        # The leader is stuck past every timeout, or was interrupted: ask ourselves.
        return across(key, compute)
    try:
        value = flight.value = across(key, compute)
        return value
    except Exception as err:
        flight.error = err
        raise
    finally:
        with _flights_lock:
            if _flights.get(key) is flight:
                del _flights[key]
        flight.done.set()


def _across_processes(
    key: str, compute: Callable[[], T], *, cache_seconds: int | None, lock_seconds: float, wait_seconds: float
) -> T:
    lock_key = f"{key}:lock"
    token = uuid.uuid4().hex
    if _cache_add(lock_key, token, math.ceil(lock_seconds)):
        kept = False
        try:
            value = _compute_and_store(key, compute, cache_seconds)
            # Waiters look for the answer before the lock: an answer kept longer than the lock lives makes the lock
            # harmless, and it is left to expire (two cache round trips fewer). After an error, or for an answer
            # kept briefly, it is released so that the next search asks at once.
            kept = (cache_seconds if cache_seconds is not None else _cache_seconds()) >= lock_seconds
            return value
        finally:
            if not kept and _cache_get(lock_key) == token:
                _cache_quietly(cache.delete, lock_key)
    # Another process is asking: poll for its answer, briefly.
    deadline = time.monotonic() + wait_seconds
    delay = 0.005
    while time.monotonic() < deadline:
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
        hit = _cache_get(key)
        if hit is not None:
            return hit
        if _cache_get(lock_key) is None:
            # Released without an answer (it failed), or answered between our two reads.
            hit = _cache_get(key)
            if hit is not None:
                return hit
            break
    return _compute_and_store(key, compute, cache_seconds)


def _compute_and_store(key: str, compute: Callable[[], T], seconds: int | None) -> T:
    value = compute()
    if seconds is None:
        seconds = _cache_seconds()
    if seconds > 0:
        _local_put(key, value, min(seconds, _LOCAL_SECONDS))
        # For the other processes: stored once this response has gone out (pickling it and the round trip were a
        # third of a millisecond of a new search). Until then they ask the provider, as for any new term.
        after_response(functools.partial(_cache_quietly, cache.set, key, value, seconds))
    return value


# --- This process's copy ------------------------------------------------------------------------------------
# Recent answers are kept in this process in front of the shared cache, so a repeated search (typing, going
# back, many customers asking for the same name) costs no round trip to Redis and no query of the database cache
# (whose reads of an expired row also delete it). A copy is at most _LOCAL_SECONDS old on top of the shared
# entry's own SEARCH_CACHE_SECONDS; the process keeps at most _LOCAL_MAX of them (least recently used go first).
_LOCAL_SECONDS = 10.0
_LOCAL_MISS_SECONDS = 2.0
_LOCAL_MAX = 2048
_MISS = object()
_local: OrderedDict[str, tuple[float, Any]] = OrderedDict()
_local_lock = threading.Lock()


def _local_get(key: str) -> Any:
    with _local_lock:
        entry = _local.get(key)
        if entry is None:
            return None
        if entry[0] < time.monotonic():
            del _local[key]
            return None
        _local.move_to_end(key)
        return entry[1]


def _local_put(key: str, value: Any, seconds: float) -> None:
    if seconds <= 0 or cache_seconds() <= 0:
        return
    with _local_lock:
        _local[key] = (time.monotonic() + seconds, value)
        _local.move_to_end(key)
        while len(_local) > _LOCAL_MAX:
            _local.popitem(last=False)


def search_cache_forget() -> None:
    """Forget this process's copies (tests start from an empty cache)."""
    with _local_lock:
        _local.clear()


# A cache that is down (Redis restarting) must not take search down with it: it only costs provider calls.


def _cache_get(key: str) -> Any:
    return _cache_quietly(cache.get, key)


def _cache_add(key: str, value: str, seconds: int) -> bool:
    added = _cache_quietly(cache.add, key, value, seconds, failed=True)
    return bool(added)


def _cache_quietly(operation: Callable[..., Any], *args: Any, failed: Any = None) -> Any:
    try:
        return operation(*args)
    except Exception as err:  # noqa: BLE001 - any cache failure is a miss, never an error page
        logger.warning("search cache %s failed: %s", operation.__name__, type(err).__name__)
        return failed
