"""The tests' oracle: a replica compared with the source at one SCN, row by row and column by
column (``oracdc verify`` compares digests instead: extractor/verify/).

The source side is read through ``Source.snapshot_batches`` (``SELECT … AS OF SCN`` on Oracle,
the versioned tables of the simulator, a bundle's snapshot); the replica side through Spark.
Both are keyed by the table's consolidation key (``keys.consolidation_key``) and values are
compared in one normal form (NaN equal to NaN, instants in UTC, bytes as bytes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from extractor.dictionary import TableDef
from extractor.keys import consolidation_key
from extractor.source.base import Source
from extractor.staging_contract import replica_model_name, spark_column_name

Key = tuple[Any, ...]


@dataclass(frozen=True)
class TableComparison:
    """The result for one table: counts and the first differences (capped)."""

    table: str
    source_rows: int
    replica_rows: int
    missing: int
    extra: int
    changed: int
    examples: tuple[str, ...] = field(default_factory=tuple)

    @property
    def matches(self) -> bool:
        return self.missing == self.extra == self.changed == 0


def compare_table(
    table: TableDef,
    source: Source,
    spark: Any,
    replica_schema: str,
    scn: int,
    *,
    batch_rows: int = 50_000,
    max_examples: int = 20,
) -> TableComparison:
    """Compare ``table``'s replica in ``replica_schema`` with the source as of ``scn``."""
    columns = [spark_column_name(c) for c in table.column_names]
    key = consolidation_key(table)
    expected: dict[Key, dict[str, Any]] = {}
    for batch in source.snapshot_batches(table, scn, batch_rows):
        for row in batch.to_pylist():
            expected[tuple(row[k] for k in key)] = {c: row.get(c) for c in columns}
    name = f"{replica_schema}.{replica_model_name(table.owner, table.name)}"
    replica_frame = spark.table(name)
    if "_deleted" in replica_frame.columns:
        replica_frame = replica_frame.where("not coalesce(_deleted, false)")
    actual: dict[Key, dict[str, Any]] = {}
    for row in replica_frame.select(*sorted(set(columns) | set(key))).toArrow().to_pylist():
        actual[tuple(row[k] for k in key)] = {c: row.get(c) for c in columns}
    return _compare(table.qualified_name, expected, actual, max_examples)


def _compare(
    name: str,
    expected: Mapping[Key, Mapping[str, Any]],
    actual: Mapping[Key, Mapping[str, Any]],
    max_examples: int,
) -> TableComparison:
    missing = extra = changed = 0
    examples: list[str] = []

    def note(text: str) -> None:
        if len(examples) < max_examples:
            examples.append(text)

    for key, row in expected.items():
        other = actual.get(key)
        if other is None:
            missing += 1
            note(f"missing key {key}")
            continue
        differing = [c for c in row if normal_form(row[c]) != normal_form(other.get(c))]
        if differing:
            changed += 1
            note(
                f"key {key}: "
                + ", ".join(f"{c} source={row[c]!r} replica={other.get(c)!r}" for c in differing)
            )
    for key in actual:
        if key not in expected:
            extra += 1
            note(f"extra key {key}")
    return TableComparison(
        name, len(expected), len(actual), missing, extra, changed, tuple(examples)
    )


def normal_form(value: Any) -> Any:
    """One comparable form for a value read from the source or from Spark."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, Decimal) and value.is_finite():
        return value.normalize()
    return value
