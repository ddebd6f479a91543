"""A deliberately simple, independent consolidation of staging rows, for tests only.

It applies the staging contract's rules in Python (order by commit SCN, change SCN, redo
position; a full image replaces the row; a partial image overwrites the columns it carries;
a delete removes the key) so that extractor tests can compare what landed with the
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
    ordered = sorted(rows, key=lambda r: (r["_commit_scn"], r["_scn"], r["_redo_pos"]))
    for row in ordered:
        key = tuple(row[k] for k in key_columns)
        if row["_op"] == "d":
            replica.pop(key, None)
            continue
        if row["_present"] is None:
            replica[key] = {c: row.get(c) for c in columns}
        else:
            current = dict(replica.get(key, dict.fromkeys(columns)))
            for column in row["_present"]:
                current[column] = row.get(column)
            replica[key] = current
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
