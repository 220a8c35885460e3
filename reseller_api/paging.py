"""Cursor paging in the order rows were made (their primary key), and the `month` filter.

Every list runs in ascending id order and its cursor is the last id returned: a row made after a client began
paging (a payment captured, a ledger entry booked late for an earlier month) always comes after every cursor
already handed out, so paging to the end never skips a row nor shows one twice, and a client that keeps its last
cursor picks up exactly the new rows next time. Clients are told to treat the cursor as opaque (it is the last id
today), so the order may change later without breaking them; its form is exact in the schema (CURSOR_PATTERN), so
a cursor the schema accepts is one the API accepts.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.conf import settings
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)
T = TypeVar("T")

PAGE_SIZE = 50
PAGE_SIZE_MAX = 200
# 2000-01 to 2099-12: every month this store can have books for, and no year a datetime cannot hold.
MONTH_PATTERN = r"^20\d{2}-(0[1-9]|1[0-2])$"
# The largest id a database row can have (a signed 64-bit integer): a larger one in a URL is a 400.
ID_MAX = 2**63 - 1
# Up to 18 digits: every cursor is below ID_MAX.
CURSOR_PATTERN = r"^[0-9]{0,18}$"


def cursor_for(pk: int) -> str:
    return str(pk)


def cursor_position(cursor: str) -> int:
    """The id a cursor stands after (0: from the start); CURSOR_PATTERN has checked its form."""
    return int(cursor) if cursor else 0


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str
    has_more: bool


def page_of(rows: QuerySet[M], *, cursor: str, limit: int, out: Callable[[M], T]) -> Page[T]:
    """One page of `rows` after `cursor`, each made into its schema by `out`."""
    after = cursor_position(cursor)
    found = list(rows.filter(pk__gt=after).order_by("pk")[:limit])
    last = found[-1].pk if found else after
    return Page(items=[out(row) for row in found], next_cursor=cursor_for(last), has_more=len(found) == limit)


def month_bounds(month: str) -> tuple[dt.datetime, dt.datetime]:
    """`YYYY-MM` as [start, end) in the site's time zone, where the ledger's reports cut months too. (billing's own
    helper is not imported: this app reads billing's models only.)"""
    year, number = int(month[:4]), int(month[5:7])
    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    start = dt.datetime(year, number, 1, tzinfo=zone)
    return start, dt.datetime(year + number // 12, number % 12 + 1, 1, tzinfo=zone)
