"""The source side of ``oracdc verify``: counts and digests ``AS OF SCN``.

On Oracle (and the simulator behind its DB-API face) the digests are computed by the
database with :data:`~extractor.source.oracle.queries.VERIFY_DIGESTS`, one bucket range per
query, so only keys and 64-character digests travel. Other sources (replay bundles) are read
with ``snapshot_batches`` and digested in Python by the same rules
(:mod:`extractor.verify.canonical`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import VerifyError
from extractor.source.base import Source
from extractor.source.oracle import queries
from extractor.source.oracle.driver_errors import full_code
from extractor.source.oracle.snapshot import _raise_mapped, select_expression
from extractor.verify import canonical
from extractor.verify.digest_rows import (
    BucketRange,
    DigestRow,
    VerifyColumn,
    key_columns,
    value_columns,
)

_FETCH_ROWS = 5_000


def text_expression(column: VerifyColumn) -> str:
    """The Oracle expression giving the canonical text of ``column`` (not for LOB/RAW)."""
    quoted = (
        "ROWID" if column.oracle_name == "ROWID" else queries.quote_identifier(column.oracle_name)
    )
    data_type = column.data_type
    if column.spark_type == "BINARY":
        return queries.VERIFY_TEXT_BINARY_KEY.format(column=quoted)
    if column.landed_scale is not None:  # number_as decimal(38,s): the value rounded to s
        return queries.VERIFY_TEXT_NUMBER.format(column=f"ROUND({quoted}, {column.landed_scale})")
    if data_type in ("NUMBER", "FLOAT") and column.spark_type == "DOUBLE":
        return queries.VERIFY_TEXT_DOUBLE.format(column=quoted)  # number_as double
    if data_type in ("NUMBER", "FLOAT"):
        return queries.VERIFY_TEXT_NUMBER.format(column=quoted)
    if data_type in ("BINARY_FLOAT", "BINARY_DOUBLE"):
        return queries.VERIFY_TEXT_DOUBLE.format(column=quoted)
    if data_type == "DATE":
        return queries.VERIFY_TEXT_DATE.format(column=quoted)
    if data_type.startswith("TIMESTAMP"):
        with_zone = "TIME ZONE" in data_type
        if column.spark_type == "STRING":  # TIMESTAMP(n > 6): the snapshot's own text,
            # without the space SYYYY puts before an AD year (the snapshot's converter takes
            # it off); a BC year keeps its sign, which no landed value has
            return f"LTRIM({select_expression(ColumnDef(column.oracle_name, 1, data_type))})"
        template = queries.VERIFY_TEXT_UTC_TIMESTAMP if with_zone else queries.VERIFY_TEXT_TIMESTAMP
        return template.format(column=quoted)
    if data_type.startswith("INTERVAL YEAR"):
        return queries.VERIFY_TEXT_INTERVAL_YM.format(column=quoted)
    if data_type.startswith("INTERVAL DAY"):
        return queries.VERIFY_TEXT_INTERVAL_DS.format(column=quoted)
    if data_type in ("NCHAR", "NVARCHAR2"):
        return queries.VERIFY_TEXT_NATIONAL.format(column=quoted)
    if data_type in ("ROWID", "UROWID"):
        return queries.VERIFY_TEXT_ROWID.format(column=quoted)
    if data_type in ("LONG", "LONG RAW"):
        raise VerifyError(
            f"column {column.oracle_name} is {data_type}: SQL functions cannot read it",
            fix="leave the table out of verify (--tables) or convert the column to a LOB",
        )
    return quoted


def digest_expression(column: VerifyColumn) -> str:
    """The Oracle expression giving the column digest of ``column``."""
    if column.data_type in ("LONG", "LONG RAW"):
        text_expression(column)  # raises
    quoted = (
        "ROWID" if column.oracle_name == "ROWID" else queries.quote_identifier(column.oracle_name)
    )
    if column.data_type in ("CLOB", "NCLOB", "BLOB"):
        return queries.VERIFY_DIGEST_LOB.format(column=quoted)
    if column.spark_type == "BINARY":
        return queries.VERIFY_DIGEST_TEXT.format(column=quoted, text=quoted)
    return queries.VERIFY_DIGEST_TEXT.format(column=quoted, text=text_expression(column))


def combined_expression(expressions: Sequence[str]) -> str:
    return queries.VERIFY_DIGEST_COMBINED.format(digests=" || ',' || ".join(expressions))


def count_statement(table: TableDef) -> str:
    return queries.VERIFY_COUNT.format(table=queries.qualified_name(table.owner, table.name))


def digest_statement(table: TableDef, per_column: bool) -> str:
    """The VERIFY_DIGESTS query of ``table``: group digests, or one digest per column."""
    keys = key_columns(table)
    columns = value_columns(table)
    column_digests = [digest_expression(c) for c in columns]
    if per_column:
        digests = column_digests
    else:
        digests = [
            combined_expression(column_digests[i : i + canonical.GROUP_SIZE])
            for i in range(0, len(column_digests), canonical.GROUP_SIZE)
        ]
    return queries.VERIFY_DIGESTS.format(
        key_list=", ".join(f"{text_expression(k)} AS K{i}" for i, k in enumerate(keys, 1)),
        key_digest=combined_expression([digest_expression(k) for k in keys]),
        digest_list=", ".join(f"{d} AS D{i}" for i, d in enumerate(digests, 1)),
        table=queries.qualified_name(table.owner, table.name),
    )


class SourceDigests:
    """Counts and digests of the source's tables as of one SCN."""

    def __init__(self, source: Source, scn: int, batch_rows: int = 50_000) -> None:
        self._source = source
        self._scn = scn
        self._batch_rows = batch_rows
        # The connection in the tables' container (OracleSource.catalog_connection).
        self._connection: Any = getattr(source, "catalog_connection", None)

    def count(self, table: TableDef) -> int:
        if self._connection is None:
            return sum(b.num_rows for b in self._snapshot(table))
        rows = self._query(table, count_statement(table), {"scn": self._scn})
        return int(rows[0][0])

    def digests(
        self, table: TableDef, buckets: BucketRange, *, per_column: bool = False
    ) -> Iterator[DigestRow]:
        if self._connection is None:
            yield from self._python_digests(table, buckets, per_column)
            return
        binds: dict[str, object] = {
            "scn": self._scn,
            "bucket_lo": buckets.low,
            "bucket_hi": buckets.high,
        }
        width = len(key_columns(table))
        for row in self._query(table, digest_statement(table, per_column), binds):
            yield DigestRow(
                tuple(None if v is None else str(v) for v in row[:width]),
                str(row[width]),
                tuple(str(v) for v in row[width + 1 :]),
            )

    def _query(self, table: TableDef, statement: str, binds: dict[str, object]) -> list[Any]:
        cursor = self._connection.cursor()
        try:
            cursor.arraysize = _FETCH_ROWS
            cursor.execute(statement, binds)
            return list(cursor.fetchall())
        except Exception as error:
            if full_code(error) is None:
                raise
            _raise_mapped(error, table, self._scn)
            raise
        finally:
            cursor.close()

    def _snapshot(self, table: TableDef) -> Iterator[Any]:
        return self._source.snapshot_batches(table, self._scn, self._batch_rows)

    def _python_digests(
        self, table: TableDef, buckets: BucketRange, per_column: bool
    ) -> Iterator[DigestRow]:
        for batch in self._snapshot(table):
            for row in batch.to_pylist():
                digest = python_digest_row(table, row, per_column)
                if buckets.low <= canonical.bucket_of(digest.key_digest) <= buckets.high:
                    yield digest


def python_digest_row(table: TableDef, row: dict[str, Any], per_column: bool) -> DigestRow:
    """The digests of one row in its ``spark_types`` representation (Spark column names)."""
    keys = key_columns(table)
    column_digests = [
        canonical.column_digest(c.spark_type, row.get(c.spark_name)) for c in value_columns(table)
    ]
    return DigestRow(
        tuple(canonical.key_text(k.spark_type, row.get(k.spark_name)) for k in keys),
        canonical.combine(
            [canonical.column_digest(k.spark_type, row.get(k.spark_name)) for k in keys]
        ),
        tuple(column_digests if per_column else canonical.groups(column_digests)),
    )
