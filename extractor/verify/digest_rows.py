"""What each side of a verification yields: per key, its digests (and how to show it)."""

from __future__ import annotations

from dataclasses import dataclass

from extractor.dictionary import TableDef
from extractor.keys import ROW_ID_KEY, consolidation_key
from extractor.spark_types import landed_decimal_scale, spark_type
from extractor.staging_contract import spark_column_name


@dataclass(frozen=True)
class DigestRow:
    """One key of one side: shown as ``key`` (canonical texts), compared by digests.

    ``digests`` holds the row's group digests, or its column digests when asked for
    per-column digests (to name the columns of a changed key)."""

    key: tuple[str | None, ...]
    key_digest: str
    digests: tuple[str, ...]


@dataclass(frozen=True)
class VerifyColumn:
    """A column as verification sees it: Oracle name, Spark name, Oracle and Spark types."""

    oracle_name: str
    spark_name: str
    data_type: str
    spark_type: str
    landed_scale: int | None = None  # number_as decimal(38,s): the source value rounded to s


@dataclass(frozen=True)
class BucketRange:
    """Inclusive range of key buckets (0..4095): one chunk of a verification."""

    low: int
    high: int


def value_columns(table: TableDef) -> tuple[VerifyColumn, ...]:
    return tuple(
        VerifyColumn(
            c.name, spark_column_name(c.name), c.data_type.upper().strip(), spark_type(c),
            landed_decimal_scale(c),
        )
        for c in table.columns
    )  # fmt: skip


def key_columns(table: TableDef) -> tuple[VerifyColumn, ...]:
    """The consolidation key; ``_row_id`` stands for Oracle's ROWID."""
    by_spark = {c.spark_name: c for c in value_columns(table)}
    return tuple(
        VerifyColumn("ROWID", ROW_ID_KEY, "ROWID", "STRING")
        if name == ROW_ID_KEY
        else by_spark[name]
        for name in consolidation_key(table)
    )
