"""``number_as``: the Spark type unbounded NUMBER and FLOAT columns land as (docs/types.md).

``string`` (the default) keeps every value exactly; ``double`` keeps about 15-17 significant
digits; ``decimal(38,s)`` rounds to s decimals (as Oracle's ROUND) and cannot hold a value
with more than 38-s digits before the point (such a change is quarantined, such a snapshot
row fails the snapshot). Chosen globally (``number_as``) and per column (``number_as`` in a
``columns`` entry); applied to the dictionary as ``ColumnDef.landed_as``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import ConfigError
from extractor.spark_types import is_unbounded_number

NUMBER_CHOICES: Final = "string, double or decimal(38,s) with s from 0 to 38"
_DECIMAL = re.compile(r"^decimal\(\s*38\s*,\s*(\d{1,2})\s*\)$")


def parse_number_choice(raw: Any, at: str) -> str | None:
    """The Spark type of a ``number_as`` value (None: STRING); ConfigError otherwise."""
    text = str(raw).strip().lower() if isinstance(raw, str) else None
    if text == "string":
        return None
    if text == "double":
        return "DOUBLE"
    match = _DECIMAL.match(text or "")
    if match and int(match.group(1)) <= 38:
        return f"DECIMAL(38,{int(match.group(1))})"
    raise ConfigError(
        f"{at}: {raw!r} is not a number_as choice",
        fix=f"use {NUMBER_CHOICES} (docs/types.md says what each loses)",
    )


def with_number_choices(
    table: TableDef,
    default: str | None,
    per_column: Mapping[str, str | None],
    keep: frozenset[str] = frozenset(),
) -> TableDef:
    """``table`` with ``landed_as`` set on its unbounded NUMBER / FLOAT columns: the column's
    own choice, else ``default``; the columns in ``keep`` stay exact (STRING)."""
    if default is None and not per_column:
        return table
    columns = tuple(
        c if c.name in keep else _chosen(c, per_column.get(c.name, default)) for c in table.columns
    )
    return table if columns == table.columns else replace(table, columns=columns)


def _chosen(column: ColumnDef, landed_as: str | None) -> ColumnDef:
    if not is_unbounded_number(column) or column.landed_as == landed_as:
        return column
    return replace(column, landed_as=landed_as)
