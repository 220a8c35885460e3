"""Refresh the cost table from the provider's price list (`manage.py sync_prices`, the admin, later the worker).

A failed refresh changes nothing: the last table keeps pricing the store, and the run is recorded as failed for
staff (the admin shows it; the worker's task mails ADMINS when `SyncResult.ok` is false).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction
from django.utils import timezone

from pricing.models import TLD_OPERATIONS, CostPrice, PriceRule, PriceSync, Tld
from pricing.quotes import display_price_book_forget, price_book
from storefront.gateway import GatewayError, PriceList, TldPrices, gateway

logger = logging.getLogger(__name__)

# An answer that drops more than this share of the TLDs we sell looks broken rather than a business decision:
# it is refused unless staff accept it (`sync_prices --accept-drops`).
MAX_DROPPED_SHARE = 0.5


@dataclass(frozen=True)
class SyncResult:
    ok: bool
    message: str  # one sentence for staff (admin message, command output, the worker's email)
    tld_count: int = 0
    changed_count: int = 0
    added: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # e.g. rules that are now below cost


class _Refused(Exception):
    """The provider's answer is not one to replace the table with."""


def _check(price_list: PriceList, *, sold: set[str], accept_drops: bool) -> None:
    if not price_list.tlds:
        raise _Refused("The provider's price list was empty.")
    incomplete = sorted(tld for tld, prices in price_list.tlds.items() if not prices.register or not prices.renew)
    if incomplete:
        raise _Refused(f"The provider's price list has no register or renew prices for {_dotted(incomplete)}.")
    negative = sorted(tld for tld, prices in price_list.tlds.items() if any(a < 0 for a in _amounts(prices)))
    if negative:
        raise _Refused(f"The provider's price list has negative prices for {_dotted(negative)}.")
    if price_list.privacy_protection is not None and price_list.privacy_protection < 0:
        raise _Refused("The provider's price list has a negative WHOIS privacy price.")
    if price_list.currency != "USD":
        raise _Refused(f"The provider quoted {price_list.currency}, not USD.")
    dropped = sold - set(price_list.tlds)
    if sold and not accept_drops and len(dropped) > len(sold) * MAX_DROPPED_SHARE:
        raise _Refused(
            f"The provider's price list leaves out {len(dropped)} of the {len(sold)} TLDs we sell, which looks "
            "like a partial answer. Run `manage.py sync_prices --accept-drops` if that is intended."
        )


def _amounts(prices: TldPrices) -> Iterator[Decimal]:
    for op in TLD_OPERATIONS:
        yield from getattr(prices, op.value).values()


def _dotted(tlds: list[str]) -> str:
    return ", ".join(f".{t}" for t in tlds)


def prices_sync(*, accept_drops: bool = False) -> SyncResult:
    """Fetch the provider's cost prices and store them; on any failure keep the last table and say why."""
    started = timezone.now()
    sold = set(Tld.objects.filter(sold=True).values_list("name", flat=True))
    try:
        price_list = gateway().pricing()
        _check(price_list, sold=sold, accept_drops=accept_drops)
    except GatewayError as err:
        # provider_message is for staff (never a secret: the gateway keeps keys out of its errors).
        reason = err.provider_message or err.message
        return _failed(started=started, message=f"The provider's price list could not be fetched: {reason}")
    except (InvalidOperation, ValueError) as err:
        return _failed(started=started, message=f"The provider's price list could not be read: {err}")
    except _Refused as err:
        return _failed(started=started, message=str(err))
    try:
        return _store(price_list, started=started, sold=sold)
    except IntegrityError:
        # Two syncs at once (the admin button during a scheduled run) both adding a new TLD: one wins.
        return _failed(started=started, message="Another price sync was storing prices at the same time; run it again.")


def _failed(*, started: dt.datetime, message: str) -> SyncResult:
    logger.error("price sync failed, last cost table kept", extra={"reason": message})
    PriceSync.objects.create(started_at=started, finished_at=timezone.now(), ok=False, message=message)
    return SyncResult(ok=False, message=message)


def _store(price_list: PriceList, *, started: dt.datetime, sold: set[str]) -> SyncResult:
    now = timezone.now()
    currency = price_list.currency
    # Rows are written in bulk (a few queries, not one per TLD and term): a full price list is thousands of rows.
    with transaction.atomic():
        tlds = {t.name: t for t in Tld.objects.select_for_update()}
        added = sorted(set(price_list.tlds) - set(tlds))
        tlds.update((t.name, t) for t in Tld.objects.bulk_create([Tld(name=name) for name in added]))
        Tld.objects.filter(name__in=list(price_list.tlds), sold=False).update(sold=True, dropped_at=None)
        _store_catalogue_fields(price_list, tlds)
        quoted_tlds = {tlds[name].pk for name in price_list.tlds}
        existing = {(c.tld_id, c.operation, c.years): c for c in CostPrice.objects.all() if c.tld_id in quoted_tlds}
        quoted: set[tuple[int, str, int]] = set()
        changed = 0
        to_create: list[CostPrice] = []
        to_update: list[CostPrice] = []
        for name, prices in price_list.tlds.items():
            tld = tlds[name]
            for op in TLD_OPERATIONS:
                for years, amount in getattr(prices, op.value).items():
                    quoted.add((tld.pk, op.value, years))
                    row = existing.get((tld.pk, op.value, years))
                    if row is None:
                        to_create.append(
                            CostPrice(
                                tld=tld, operation=op.value, years=years, amount=amount, currency=currency,
                                fetched_at=now, changed_at=now,
                            )
                        )  # fmt: skip
                        continue
                    if row.amount != amount or row.currency != currency or not row.current:
                        row.changed_at = now
                        changed += 1
                    row.amount, row.currency, row.current, row.fetched_at = amount, currency, True, now
                    to_update.append(row)
        # A term the provider no longer quotes is no longer sold; the row stays as history.
        stale = [row for key, row in existing.items() if key not in quoted and row.current]
        for row in stale:
            row.current = False
        changed += len(to_create) + len(stale)
        CostPrice.objects.bulk_update(
            [*to_update, *stale], ["amount", "currency", "current", "fetched_at", "changed_at"], batch_size=500
        )
        CostPrice.objects.bulk_create(to_create)
        dropped = sorted(sold - set(price_list.tlds))
        Tld.objects.filter(name__in=dropped).update(sold=False, dropped_at=now)
        warnings = _rules_below_cost()
        message = _summary(
            tld_count=len(price_list.tlds),
            changed=changed,
            added=added,
            dropped=dropped,
            privacy=price_list.privacy_protection,
        )
        PriceSync.objects.create(
            started_at=started, finished_at=timezone.now(), ok=True, message=" ".join([message, *warnings]),
            tld_count=len(price_list.tlds), changed_count=changed, dropped=" ".join(dropped),
            privacy_cost=price_list.privacy_protection,
        )  # fmt: skip
    logger.info(
        "price sync done", extra={"tlds": len(price_list.tlds), "changed": changed, "added": added, "dropped": dropped}
    )
    for warning in warnings:
        logger.warning("price rule below cost after sync", extra={"detail": warning})
    display_price_book_forget()  # this process shows the new prices at once; others within seconds
    return SyncResult(
        ok=True,
        message=message,
        tld_count=len(price_list.tlds),
        changed_count=changed,
        added=added,
        dropped=dropped,
        warnings=warnings,
    )


def _store_catalogue_fields(price_list: PriceList, tlds: dict[str, Tld]) -> None:
    """What the catalogue shape says of each TLD (privacy offered, restrictions); the map shape says neither, so
    its TLDs are left as not said."""
    changed = []
    for name, prices in price_list.tlds.items():
        tld = tlds[name]
        if (tld.privacy_available, tld.restrictions) != (prices.privacy_available, prices.restrictions):
            tld.privacy_available, tld.restrictions = prices.privacy_available, prices.restrictions
            changed.append(tld)
    Tld.objects.bulk_update(changed, ["privacy_available", "restrictions"], batch_size=500)


def _summary(*, tld_count: int, changed: int, added: list[str], dropped: list[str], privacy: Decimal | None) -> str:
    parts = [f"Prices of {tld_count} TLDs fetched, {changed} changed."]

    if added:
        parts.append(f"New: {_dotted(added)}.")
    if dropped:
        parts.append(f"No longer sold (the provider dropped them): {_dotted(dropped)}.")
    parts.append(f"WHOIS privacy: {privacy} USD a year." if privacy is not None else "No WHOIS privacy price quoted.")
    return " ".join(parts)


def _rules_below_cost() -> list[str]:
    """Rules that the new costs have put below cost: prices fall back to the default markup until staff fix them."""
    book = price_book()
    warnings = []
    for rule in PriceRule.objects.all():
        problem = book.below_cost(key=(rule.tld, rule.operation))
        if problem:
            warnings.append(f"Rule “{rule}”: {problem} The default markup is used instead until it is changed.")
    return warnings
