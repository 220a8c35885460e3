"""One model row read with a plain SQL statement, for reads every request makes (the session, the signed-in user).

Building the ORM's query for such a read cost several times running it (docs/benchmarks.md). The statement is
composed from the model's own table and column names; values go in through each field's `get_db_prep_value` and
come out through the backend's and the field's converters, as the ORM's compiler does, so the instance is the one
`Model.objects.get(...)` would return.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from django.db import connections, models, router

M = TypeVar("M", bound=models.Model)

Condition = tuple[str, Literal["=", ">"], Any]


def model_row_read(model: type[M], *conditions: Condition) -> M | None:
    """The instance of `model` whose fields meet every (field name, "=" or ">", value), or None; "pk" names the
    primary key."""
    meta = model._meta
    alias = router.db_for_read(model)
    connection = connections[alias]
    quote = connection.ops.quote_name
    fields = meta.concrete_fields
    where, params = [], []
    for name, operator, value in conditions:
        field = meta.pk if name == "pk" else meta.get_field(name)
        if operator not in ("=", ">") or not isinstance(field, models.Field):
            raise ValueError(f"cannot read by {name} {operator}")
        where.append(f"{quote(field.column)} {operator} %s")
        params.append(field.get_db_prep_value(value, connection, prepared=False))
    sql = (
        f"SELECT {', '.join(quote(field.column) for field in fields)} FROM {quote(meta.db_table)} "  # noqa: S608
        f"WHERE {' AND '.join(where)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for field, value in zip(fields, row, strict=True):
        column = field.get_col(meta.db_table)
        for converter in (*connection.ops.get_db_converters(column), *column.get_db_converters(connection)):
            value = converter(value, column, connection)
        values.append(value)
    return model.from_db(alias, [field.attname for field in fields], values)
