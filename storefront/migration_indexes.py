"""Indexes that migrations create with SQL of their own: on another app's table (auth's users, the task queue's
results), on an expression (a case-insensitive prefix search), or without touching a model another branch edits.
Not part of any model's state, so `makemigrations` never sees them; each is dropped again when migrated back."""

from __future__ import annotations

from collections.abc import Callable

from django.db import migrations


def prefix_search_index(*, table: str, column: str, name: str) -> migrations.RunPython:
    """For the admin's `^field` search (istartswith). On PostgreSQL Django writes it `UPPER("col"::text) LIKE
    UPPER('q%')`, which this index (pattern operators) answers; elsewhere a plain index of UPPER(col)."""

    def create(apps: object, schema_editor: object) -> None:
        connection = schema_editor.connection  # type: ignore[attr-defined]
        if connection.vendor == "postgresql":
            expression = f'UPPER("{column}"::text) text_pattern_ops'
        else:
            expression = f'UPPER("{column}")'
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ({expression})')  # type: ignore[attr-defined]

    return migrations.RunPython(create, _drop(name), elidable=False)


def plain_index(*, table: str, columns: str, name: str, postgresql_only: bool = False) -> migrations.RunPython:
    """An index on `columns` (SQL: '"created_at", "id"'); `postgresql_only` for one other databases cannot make."""

    def create(apps: object, schema_editor: object) -> None:
        if postgresql_only and schema_editor.connection.vendor != "postgresql":  # type: ignore[attr-defined]
            return
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ({columns})')  # type: ignore[attr-defined]

    return migrations.RunPython(create, _drop(name), elidable=False)


def _drop(name: str) -> Callable[[object, object], None]:
    def drop(apps: object, schema_editor: object) -> None:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')  # type: ignore[attr-defined]

    return drop
