"""Snapshot reads: ``SELECT ... FROM t AS OF SCN :scn`` in ROWID order, as Arrow batches.

Each column is selected with an expression that makes python-oracledb hand back a lossless
value (reference §5), then converted to the ``spark_types`` representation:

- NUMBER(p,s) landing as DECIMAL: the column itself, fetched as ``Decimal`` through an output
  type handler (python-oracledb would otherwise give int or float);
- plain NUMBER, FLOAT and any NUMBER landing as STRING: ``TO_CHAR(c, 'TM9')`` (the session
  sets NLS_NUMERIC_CHARACTERS to '.,'), turned into canonical decimal text;
- TIMESTAMP WITH [LOCAL] TIME ZONE: ``SYS_EXTRACT_UTC(c)`` (the driver drops the zone);
- TIMESTAMP(n > 6) with or without zone: ``TO_CHAR`` with ``FFn`` (the driver keeps only
  microseconds);
- CLOB / NCLOB / BLOB: fetched inline as LONG / LONG RAW, not as LOB locators;
- everything else as it comes.

Chunks and resume: the table is read one ROWID range at a time, each range a run of whole
extents (``DBA_EXTENTS``, bounds computed by ``DBMS_ROWID.ROWID_CREATE``) of at most
``chunk_blocks`` blocks, so Oracle scans only those blocks and sorts one chunk, never the
whole table (which needs TEMP space, ORA-01652, and makes the ``AS OF`` read longer,
ORA-01555). Ranges are read in ROWID order and sorted by ROWID inside, so the rows come in
ROWID order as a whole: the caller resumes after the last landed row with ``after_rowid``
(ranges ending before it are skipped, the one holding it gets ``ROWID > :after_rowid``), and a
crash costs at most one batch. Rows of extents allocated after the snapshot SCN are not
visible ``AS OF`` it, so reading the extents as they are now is enough. Without access to
``DBA_EXTENTS`` (ORA-00942 / ORA-01031), or for a table without extents of its own (an
index-organized table), the reader falls back to one query sorted by ROWID, with a warning.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import oracledb
import pyarrow as pa

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import (
    NumberChoiceError,
    OracdcError,
    ScnNotYetValidError,
    SnapshotTooOldError,
    TableDefinitionChangedError,
    TableNotFoundError,
    UnfetchableValueError,
)
from extractor.source.arrow_schema import snapshot_batch
from extractor.source.oracle import queries
from extractor.source.oracle.driver_errors import error_message, full_code, raise_unhandled
from extractor.source.rowid_order import rowid_sort_key
from extractor.spark_types import landed_decimal_scale, spark_type
from extractor.values import (
    canonical_decimal_text,
    interval_ds_text,
    interval_ym_text,
    rounded_to_scale,
)

Converter = Callable[[Any], object]

_TIMESTAMP = re.compile(r"^TIMESTAMP(?:\((\d)\))?( WITH( LOCAL)? TIME ZONE)?$")
_FETCH_MAX = 10_000
# Default chunk size: 4096 blocks (32 MiB of 8 KiB blocks) per ROWID-range query.
DEFAULT_CHUNK_BLOCKS = 4096
_NO_EXTENT_ACCESS = frozenset({"ORA-00942", "ORA-01031"})

LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RowidRange:
    """A chunk of a snapshot read: ROWIDs from ``low`` to ``high`` (inclusive)."""

    low: str
    high: str


def select_expression(column: ColumnDef) -> str:
    """The select-list expression that reads ``column`` losslessly."""
    quoted = queries.quote_identifier(column.name)
    data_type = column.data_type.upper().strip()
    if data_type in ("NUMBER", "FLOAT") and spark_type(column) == "STRING":
        return queries.EXPR_NUMBER_TEXT.format(column=quoted)
    match = _TIMESTAMP.match(data_type)
    if match:
        digits = int(match.group(1)) if match.group(1) else 6
        with_zone = match.group(2) is not None
        if digits > 6:
            template = queries.EXPR_UTC_TIMESTAMP_TEXT if with_zone else queries.EXPR_TIMESTAMP_TEXT
            return template.format(column=quoted, digits=digits)
        if with_zone:
            return queries.EXPR_UTC.format(column=quoted)
    return queries.EXPR_COLUMN.format(column=quoted)


def snapshot_statement(table: TableDef, resume: bool, ranged: bool = False) -> str:
    """The AS OF SCN query of ``table`` (binds ``:scn``; ranged: ``:low_rowid`` and
    ``:high_rowid``; resuming: ``:after_rowid``)."""
    if ranged:
        template = queries.SNAPSHOT_RANGE_AFTER_ROWID if resume else queries.SNAPSHOT_RANGE
    else:
        template = queries.SNAPSHOT_AFTER_ROWID if resume else queries.SNAPSHOT
    select_list = ", ".join(select_expression(c) for c in table.columns)
    return template.format(
        select_list=select_list, table=queries.qualified_name(table.owner, table.name)
    )


def row_as_of_statement(table: TableDef) -> str:
    """The query of one row of ``table`` by ROWID ``AS OF`` an SCN (binds ``:scn``,
    ``:row_id``), with the snapshot's select list."""
    select_list = ", ".join(select_expression(c) for c in table.columns)
    return queries.ROW_AS_OF.format(
        select_list=select_list, table=queries.qualified_name(table.owner, table.name)
    )


def read_row_as_of(cursor: Any, table: TableDef, scn: int, row_id: str) -> dict[str, object] | None:
    """The row at ``row_id`` as of ``scn`` (column name -> value, in the snapshot's
    representation), None when no row is there at that SCN. Raises SnapshotTooOldError
    (undo gone, or the table changed since: ORA-01466, or ORA-00904 for a column of ``table``
    dropped since) and TableNotFoundError like a snapshot read."""
    converters = [column_converter(c) for c in table.columns]
    cursor.outputtypehandler = output_type_handler
    try:
        cursor.execute(row_as_of_statement(table), {"scn": scn, "row_id": row_id})
        row = cursor.fetchone()
        # converted here, as a snapshot read converts its rows: a BC year of a TIMESTAMP(7..9)
        # read as text is refused by its converter and mapped like the driver's own refusal
        values = None if row is None else _convert(row, converters)[: len(table.columns)]
    except Exception as error:
        if full_code(error) == "ORA-00904":  # a column of the cached dictionary is gone
            raise SnapshotTooOldError(
                table.qualified_name,
                scn,
                "the table's columns changed since (ORA-00904 invalid identifier)",
            ) from error
        _raise_mapped(error, table, scn)
        raise  # not reached: _raise_mapped raises
    if values is None:
        return None
    return {column.name: value for column, value in zip(table.columns, values, strict=True)}


def count_rows_as_of(cursor: Any, table: TableDef, scn: int) -> int:
    """``COUNT(*)`` of ``table`` as of ``scn``: the rows a snapshot read at ``scn`` must have
    read. Raises like a snapshot read (SnapshotTooOldError, TableNotFoundError)."""
    statement = queries.VERIFY_COUNT.format(table=queries.qualified_name(table.owner, table.name))
    try:
        cursor.execute(statement, {"scn": scn})
        row = cursor.fetchone()
    except Exception as error:
        _raise_mapped(error, table, scn)
        raise  # not reached: _raise_mapped raises
    return int(row[0])


def output_type_handler(cursor: Any, metadata: Any) -> Any:
    """NUMBER as Decimal; LOBs inline (python-oracledb's documented handler signature)."""
    type_code = metadata.type_code
    if type_code is oracledb.DB_TYPE_NUMBER:
        return cursor.var(Decimal, arraysize=cursor.arraysize)
    if type_code is oracledb.DB_TYPE_CLOB:
        return cursor.var(oracledb.DB_TYPE_LONG, arraysize=cursor.arraysize)
    if type_code is oracledb.DB_TYPE_NCLOB:
        return cursor.var(oracledb.DB_TYPE_LONG_NVARCHAR, arraysize=cursor.arraysize)
    if type_code is oracledb.DB_TYPE_BLOB:
        return cursor.var(oracledb.DB_TYPE_LONG_RAW, arraysize=cursor.arraysize)
    return None


def column_converter(column: ColumnDef) -> Converter:
    """Fetched value (of :func:`select_expression`) -> ``spark_types`` representation."""
    spark = spark_type(column)
    data_type = column.data_type.upper().strip()
    scale = landed_decimal_scale(column)
    if scale is not None:
        return _rounding(column.name, scale)
    if data_type in ("NUMBER", "FLOAT") and spark == "DOUBLE":
        return lambda value: float(_decimal(value))  # number_as: double
    if data_type in ("NUMBER", "FLOAT"):
        return _number_text if spark == "STRING" else _decimal
    if spark == "STRING" and _TIMESTAMP.match(data_type):
        return _signed_timestamp_text  # TIMESTAMP(7..9): EXPR_TIMESTAMP_TEXT
    if spark == "TIMESTAMP":
        return _utc
    if spark == "TIMESTAMP_NTZ":
        return _naive
    if data_type.startswith("INTERVAL YEAR"):
        return _interval_ym
    if data_type.startswith("INTERVAL DAY"):
        return _interval_ds
    if spark == "BINARY":
        return _binary
    if spark in ("FLOAT", "DOUBLE"):
        return _float
    return _text


def read_snapshot(
    connection: Any,
    table: TableDef,
    scn: int,
    batch_rows: int,
    after_rowid: str | None = None,
    *,
    chunk_blocks: int = DEFAULT_CHUNK_BLOCKS,
) -> Iterator[pa.RecordBatch]:
    """Batches of ``table`` as of ``scn`` in ROWID order; see the module docstring."""
    ranges = table_chunks(connection, table, chunk_blocks)
    if ranges is None:
        yield from _read_query(connection, table, scn, batch_rows, after_rowid, None)
        return
    after_key = None if after_rowid is None else rowid_sort_key(after_rowid)
    for chunk in ranges:
        if after_key is not None and rowid_sort_key(chunk.high) <= after_key:
            continue  # landed before the crash
        resume = after_rowid if after_key is not None else None
        yield from _read_query(connection, table, scn, batch_rows, resume, chunk)
        after_key = after_rowid = None


def table_chunks(connection: Any, table: TableDef, chunk_blocks: int) -> list[RowidRange] | None:
    """The table's extents merged into ROWID ranges of at most ``chunk_blocks`` blocks (an
    extent larger than that is a range of its own), in ROWID order; None when the extents
    cannot be read or the table has none of its own."""
    cursor = connection.cursor()
    try:
        cursor.execute(queries.TABLE_EXTENTS, {"owner": table.owner, "table_name": table.name})
        extents = [(str(low), str(high), int(blocks)) for low, high, blocks in cursor.fetchall()]
    except Exception as error:
        if full_code(error) not in _NO_EXTENT_ACCESS:
            raise_unhandled(error, f"the extent list of {table.qualified_name}")
        LOG.warning(
            "cannot read DBA_EXTENTS (%s): snapshot of %s sorts the whole table by ROWID; "
            "grant SELECT_CATALOG_ROLE to read it in chunks",
            full_code(error),
            table.qualified_name,
        )
        return None
    finally:
        cursor.close()
    if not extents:
        return None
    extents.sort(key=lambda extent: rowid_sort_key(extent[0]))
    chunks: list[RowidRange] = []
    low, high, blocks = extents[0]
    for next_low, next_high, next_blocks in extents[1:]:
        same_segment = rowid_sort_key(next_low)[0] == rowid_sort_key(low)[0]
        if same_segment and blocks + next_blocks <= chunk_blocks:
            high, blocks = next_high, blocks + next_blocks
            continue
        chunks.append(RowidRange(low, high))
        low, high, blocks = next_low, next_high, next_blocks
    chunks.append(RowidRange(low, high))
    return chunks


def _read_query(
    connection: Any,
    table: TableDef,
    scn: int,
    batch_rows: int,
    after_rowid: str | None,
    chunk: RowidRange | None,
) -> Iterator[pa.RecordBatch]:
    converters = [column_converter(c) for c in table.columns]
    statement = snapshot_statement(table, resume=after_rowid is not None, ranged=chunk is not None)
    binds: dict[str, object] = {"scn": scn}
    if chunk is not None:
        binds["low_rowid"], binds["high_rowid"] = chunk.low, chunk.high
    if after_rowid is not None:
        binds["after_rowid"] = after_rowid
    cursor = connection.cursor()
    try:
        cursor.arraysize = max(1, min(batch_rows, _FETCH_MAX))
        cursor.prefetchrows = cursor.arraysize + 1
        cursor.outputtypehandler = output_type_handler
        try:
            cursor.execute(statement, binds)
            while rows := cursor.fetchmany(batch_rows):
                yield snapshot_batch(table, [_convert(row, converters) for row in rows])
        except Exception as error:
            _raise_mapped(error, table, scn)
    finally:
        cursor.close()


def _convert(row: Sequence[Any], converters: Sequence[Converter]) -> list[object]:
    values: list[object] = [
        None if value is None else convert(value)
        for value, convert in zip(row, converters, strict=False)
    ]
    values.append(str(row[-1]))
    return values


def _raise_mapped(error: Exception, table: TableDef, scn: int) -> None:
    code = full_code(error)
    name = table.qualified_name
    if code == "ORA-01555":
        raise SnapshotTooOldError(name, scn, "undo for that SCN is gone (ORA-01555)") from error
    if code == "ORA-08181":
        raise ScnNotYetValidError(name, scn, "not a valid SCN yet (ORA-08181)") from error
    if code == "ORA-01466":
        raise TableDefinitionChangedError(
            name, scn, "the table's definition is not older than that SCN (ORA-01466)"
        ) from error
    if code == "ORA-00942":
        raise TableNotFoundError(name, error_message(error)) from error
    if code is None and _out_of_datetime_range(error):
        dated = [c.name for c in table.columns if _DATED.match(c.data_type.upper())]
        raise UnfetchableValueError(name, dated, str(error)) from error
    if code is None:
        raise error
    raise_unhandled(error, f"snapshot read of {name}")


# The types whose values python-oracledb builds as ``datetime``, which has no year before 1.
_DATED = re.compile(r"DATE$|TIMESTAMP\b")


def _out_of_datetime_range(error: Exception) -> bool:
    """python-oracledb fetching a DATE or TIMESTAMP before 1 AD: ``datetime`` refuses the
    year (``ValueError: year -4712 is out of range``, or another year from a misread BC
    value: python-oracledb issues 345 and 400)."""
    return (
        isinstance(error, ValueError)
        and not isinstance(error, OracdcError)
        and re.match(r"year -?\d+ is out of range", str(error)) is not None
    )


def _rounding(name: str, scale: int) -> Converter:
    def rounded(value: Any) -> Decimal:
        try:
            return rounded_to_scale(_decimal(value), scale)
        except NumberChoiceError as error:
            raise NumberChoiceError(f"column {name}: {error}") from None

    return rounded


def _decimal(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _number_text(value: Any) -> str:
    return canonical_decimal_text(Decimal(str(value).strip()))


def _utc(value: Any) -> datetime:
    if value.tzinfo is not None:
        return value.astimezone(UTC)  # type: ignore[no-any-return]
    return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]


def _naive(value: Any) -> datetime:
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)  # type: ignore[no-any-return]
    return value  # type: ignore[no-any-return]


def _interval_ym(value: Any) -> str:
    if isinstance(value, str):
        return value
    return interval_ym_text(int(value.years) * 12 + int(value.months))


def _interval_ds(value: Any) -> str:
    if isinstance(value, timedelta):
        total = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
        return interval_ds_text(total * 1_000)
    return str(value)


def _binary(value: Any) -> bytes:
    return bytes(value)


def _float(value: Any) -> float:
    return float(value)


def _text(value: Any) -> str:
    return str(value)


def _signed_timestamp_text(value: Any) -> str:
    """A TIMESTAMP(7..9) read as ``SYYYY-…`` text: the space before an AD year taken off;
    a year before 1 AD is refused as python-oracledb refuses one it fetches (the read maps
    the ``ValueError`` to ``UnfetchableValueError``)."""
    text = str(value)
    if text.startswith("-"):
        year = text[1:].split("-", 1)[0]
        raise ValueError(f"year -{int(year)} is out of range")
    return text.lstrip(" ")
