"""Cursor paging in the order rows were made (their primary key), and the `month` filter.

Every list runs in ascending id order and its cursor is the last id returned: a row made after a client began
paging (a payment captured, a ledger entry booked late for an earlier month) always comes after every cursor
already handed out, so paging to the end never skips a row nor shows one twice, and a client that keeps its last
cursor picks up exactly the new rows next time. The cursor is opaque to clients (base64 of the position), so the
order may change later without breaking them.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.conf import settings
from django.db.models import Model, QuerySet
from ninja.errors import HttpError

M = TypeVar("M", bound=Model)
T = TypeVar("T")

PAGE_SIZE = 50
PAGE_SIZE_MAX = 200
# 2000-01 to 2099-12: every month this store can have books for, and no year a datetime cannot hold.
MONTH_PATTERN = r"^20\d{2}-(0[1-9]|1[0-2])$"
# The largest id a database row can have (a signed 64-bit integer): a larger one in a URL is a 400 or a 404.
ID_MAX = 2**63 - 1
_CURSOR = re.compile(r"after:(\d{1,19})")


def cursor_for(pk: int) -> str:
    return base64.urlsafe_b64encode(f"after:{pk}".encode()).decode().rstrip("=")


def cursor_position(cursor: str) -> int:
    """The id a cursor stands after (0: from the start). A cursor we did not hand out is a 400."""
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    found = _CURSOR.fullmatch(text)
    if found is None or int(found.group(1)) > ID_MAX:
        raise HttpError(400, "Unknown cursor: pass back a next_cursor this API returned, or none to start.")
    return int(found.group(1))


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
