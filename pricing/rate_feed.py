"""The exchange-rate feed: reads a daily reference-rate XML (the European Central Bank's format) from
CURRENCY_FEED_URL and updates the currencies staff marked "from the feed". Off while the setting is empty.

The ECB quotes every currency against the euro (`<Cube currency="USD" rate="1.0812"/>`); the rate of a currency
against the store's currency is its euro rate over the store currency's. A feed that fails, or that lacks a
currency, changes nothing: the last rate keeps pricing, and staff are told once a rate is older than
CURRENCY_RATE_STALE_HOURS (pricing.tasks).
"""

from __future__ import annotations

import datetime as dt
import logging
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache

import requests
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from pricing.currencies import currency_table_forget
from pricing.models import RATE_MAX, Currency

logger = logging.getLogger(__name__)

FEED_SOURCE = "rate feed"
MAX_BYTES = 1_000_000  # the ECB's daily file is under 2 kB; anything this large is not it
_SIX_PLACES = Decimal("0.000001")


class FeedError(Exception):
    """The feed could not be read or did not hold rates (the last rates stay)."""


@dataclass(frozen=True)
class FeedResult:
    updated: list[str]  # currency codes whose rate was set from the feed
    missing: list[str]  # currencies marked "from the feed" that the feed did not quote


@cache
def _session() -> requests.Session:
    session = requests.Session()
    # A GET of a published file: retried on connection errors and 5xx (retries are configuration, not a loop).
    retry = Retry(total=2, backoff_factor=0.5, status_forcelist=(502, 503, 504), allowed_methods=("GET",))
    session.mount("http://", HTTPAdapter(max_retries=retry))
    session.mount("https://", HTTPAdapter(max_retries=retry))
    return session


def feed_fetch(url: str) -> dict[str, Decimal]:
    """Units of each quoted currency per euro (the euro itself included, at 1). Raises FeedError."""
    try:
        # Streamed and read up to the cap: an answer too large is refused before it is all in memory.
        with _session().get(
            url, timeout=(3.05, settings.CURRENCY_FEED_TIMEOUT), stream=True, allow_redirects=False
        ) as response:
            if response.status_code != 200:
                raise FeedError(f"the feed answered HTTP {response.status_code}")
            body = b""
            for chunk in response.iter_content(chunk_size=65536):
                body += chunk
                if len(body) > MAX_BYTES:
                    raise FeedError("the feed's answer is too large to be a rate list")
    except requests.RequestException as err:
        raise FeedError(f"the feed could not be reached: {type(err).__name__}") from err
    return _parse(body)


def _parse(body: bytes) -> dict[str, Decimal]:
    try:
        # The expat Python bundles (2.4 and later) refuses entity-expansion attacks (billion laughs), ElementTree
        # loads no external entities, and the size is capped above.
        root = ET.fromstring(body)  # noqa: S314
    except ET.ParseError as err:
        raise FeedError("the feed's answer is not XML") from err
    rates = {"EUR": Decimal(1)}
    for element in root.iter():
        code, rate = element.get("currency"), element.get("rate")
        if code is None or rate is None:
            continue
        try:
            value = Decimal(rate)
        except InvalidOperation:
            continue
        if len(code) == 3 and code.isalpha() and value.is_finite() and value > 0:
            rates[code.upper()] = value
    if len(rates) == 1:
        raise FeedError("the feed's answer holds no rates")
    return rates


def rates_update(*, now: dt.datetime | None = None) -> FeedResult:
    """Set every "from the feed" currency's rate from CURRENCY_FEED_URL. Raises FeedError (nothing changed)."""
    url = settings.CURRENCY_FEED_URL
    if not url:
        raise FeedError("no feed is set (CURRENCY_FEED_URL)")
    per_euro = feed_fetch(url)
    store = per_euro.get(settings.STORE_CURRENCY)
    if store is None:
        raise FeedError(f"the feed does not quote the store's currency ({settings.STORE_CURRENCY})")
    now = now or timezone.now()
    updated, missing = [], []
    with transaction.atomic():
        for currency in Currency.objects.select_for_update().filter(rate_from_feed=True):
            quoted = per_euro.get(currency.code)
            if quoted is None:
                missing.append(currency.code)
                continue
            rate = (quoted / store).quantize(_SIX_PLACES)
            if not 0 < rate <= RATE_MAX:  # too small (prices of zero) or absurd: the last rate stays
                missing.append(currency.code)
                continue
            currency.rate = rate
            currency.rate_set_at, currency.rate_set_by, currency.stale_alerted_at = now, FEED_SOURCE, None
            currency.save(update_fields=["rate", "rate_set_at", "rate_set_by", "stale_alerted_at"])
            updated.append(currency.code)
    currency_table_forget()
    logger.info("currency rates updated from the feed", extra={"updated": updated, "missing": missing})
    return FeedResult(updated=updated, missing=missing)


def stale_rates(*, now: dt.datetime | None = None) -> list[Currency]:
    """Enabled currencies the feed should update whose rate is older than CURRENCY_RATE_STALE_HOURS and not yet
    reported to staff."""
    now = now or timezone.now()
    older_than = now - dt.timedelta(hours=settings.CURRENCY_RATE_STALE_HOURS)
    return list(
        Currency.objects.filter(enabled=True, rate_from_feed=True, stale_alerted_at__isnull=True).exclude(
            rate_set_at__gte=older_than
        )
    )
