"""Admin lists that stay fast at 100,000 rows: a bounded count, no second count of the whole table, a page of rows.

Django's changelist counts the filtered rows (for the paginator) and, by default, the whole table as well (for
"5 results (100000 total)"): two sequential scans of a large table on every page. Here the filtered rows are
counted up to COUNT_CAP only (`SELECT COUNT(*) FROM (… LIMIT 10001)`, which stops early), the whole table not at
all. Past the cap the list says "10001 results" and pages that far; a filter or a search narrows it. The orderings
and filters staff use have indexes (each app's migrations); searches match the start of an indexed field (`^`).
"""

from __future__ import annotations

import functools
import operator
import uuid
from functools import cached_property
from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db.models import Q, QuerySet

COUNT_CAP = 10_000


class CappedCountPaginator(Paginator):
    """Counts at most COUNT_CAP + 1 rows: enough to page through the first COUNT_CAP, never a whole-table scan."""

    @cached_property
    def count(self) -> int:
        # The rows' own order is irrelevant to how many there are; dropping it lets the database stop early.
        rows: QuerySet[Any] = self.object_list  # type: ignore[assignment]  # the admin pages querysets only
        return rows.order_by()[: COUNT_CAP + 1].count()


class LargeListAdmin(admin.ModelAdmin):
    """An admin whose list may hold 100,000 rows and more.

    What a search looks in depends on what was typed: an email address searches `search_by_email` (the start of
    an indexed address), a number equals one of `search_by_number`, a UUID one of `search_by_uuid` (each an indexed
    column compared as it is stored, never as text), anything else `search_fields`. Each is an indexed field, on
    one table where it can be: an OR across joined tables makes the database read every row of both.
    """

    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    search_by_email: tuple[str, ...] = ()
    search_by_number: tuple[str, ...] = ()
    search_by_uuid: tuple[str, ...] = ()

    def get_search_fields(self, request: Any) -> Any:
        if "@" in request.GET.get("q", "") and self.search_by_email:
            return self.search_by_email
        return super().get_search_fields(request)

    def get_search_results(self, request: Any, queryset: Any, search_term: str) -> tuple[Any, bool]:
        # A pasted value often brings spaces along: they would match nothing.
        term = search_term.strip()
        exact: Any = None
        if term.isdigit() and len(term) <= 18 and self.search_by_number:
            exact = _any_equals(self.search_by_number, int(term))
        elif self.search_by_uuid:
            try:
                exact = _any_equals(self.search_by_uuid, uuid.UUID(term))
            except ValueError:
                pass
        if exact is not None:
            return queryset.filter(exact), False
        return super().get_search_results(request, queryset, term)


def _any_equals(fields: tuple[str, ...], value: object) -> Q:
    return functools.reduce(operator.or_, (Q(**{field: value}) for field in fields))
