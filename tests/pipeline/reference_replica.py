"""A deliberately simple, independent consolidation of staging rows, for tests only.

It applies the staging contract's rules in Python (order by commit SCN, change SCN, redo
position; a full image replaces the row; a partial image overwrites the columns it carries;
a delete removes the key when the key's version came from the delete's ROWID; a table reset
marker removes every key) so that extractor tests can compare what landed with the
simulator's truth without going through dbt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from extractor.dictionary import TableDef
from extractor.keys import consolidation_key
from extractor.staging_contract import spark_column_name


def consolidate(
    table: TableDef, rows: Iterable[Mapping[str, Any]]
) -> dict[tuple[Any, ...], dict[str, Any]]:
    key_columns = consolidation_key(table)
    columns = [spark_column_name(c) for c in table.column_names]
    replica: dict[tuple[Any, ...], dict[str, Any]] = {}
    row_ids: dict[tuple[Any, ...], str | None] = {}  # the ROWID each key's version came from
    # A reset marker sorts before rows at its own position: it removes only what precedes it.
    ordered = sorted(
        rows,
        key=lambda r: (r["_commit_scn"], r["_scn"], r["_redo_pos"], r["_op"] != "t"),
    )
    for row in ordered:
        if row["_op"] == "t":
            replica.clear()
            row_ids.clear()
            continue
        key = tuple(row[k] for k in key_columns)
        if row["_op"] == "d":
            # A delete retires the key's version only when that version came from the same
            # physical row: in `update t set id = id + 1` the delete of key 2 (row 2 leaving
            # it) follows the arrival of row 1 under key 2, which must stay.
            holder = row_ids.get(key)
            if holder is None or row["_row_id"] is None or holder == row["_row_id"]:
                replica.pop(key, None)
                row_ids.pop(key, None)
            continue
        if row["_present"] is None:
            replica[key] = {c: row.get(c) for c in columns}
        else:
            current = dict(replica.get(key, dict.fromkeys(columns)))
            for column in row["_present"]:
                current[column] = row.get(column)
            replica[key] = current
        row_ids[key] = row["_row_id"]
    return replica


def truth_by_key(
    table: TableDef, truth_rows: Sequence[Mapping[str, Any]]
) -> dict[tuple[Any, ...], dict[str, Any]]:
    key_columns = consolidation_key(table)
    result = {}
    for row in truth_rows:
        values = {spark_column_name(c): row.get(c) for c in table.column_names}
        lookup = {**values, "_row_id": row["ROWID"]}
        result[tuple(lookup[k] for k in key_columns)] = values
    return result


def normalized(value: Any) -> Any:
    """One comparable form for values read back from Spark and values of the simulator."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, Decimal):
        return value.normalize() if value == value else value
    return value


def differences(
    expected: Mapping[tuple[Any, ...], Mapping[str, Any]],
    actual: Mapping[tuple[Any, ...], Mapping[str, Any]],
    limit: int = 10,
) -> list[str]:
    """Human-readable differences (missing, extra, changed columns), at most ``limit``."""
    found: list[str] = []
    for key in sorted(set(expected) | set(actual), key=repr):
        if key not in actual:
            found.append(f"missing {key}: {dict(expected[key])}")
        elif key not in expected:
            found.append(f"extra {key}: {dict(actual[key])}")
        else:
            for column, value in expected[key].items():
                got = actual[key].get(column)
                if normalized(value) != normalized(got):
                    found.append(f"{key}.{column}: expected {value!r}, got {got!r}")
        if len(found) >= limit:
            break
    return found
