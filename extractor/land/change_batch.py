"""Arrow landing batches following the staging contract, built column by column.

``change_batch`` turns typed change rows (``ChangeRecord``) of one table into one Arrow table;
``snapshot_batch`` turns an Arrow batch read by a snapshot into the same shape. Both produce
exactly ``staging_schema.staging_arrow_schema(table)``.

With the C extension built, each column's values are read from the records in one pass and
most columns' Arrow buffers are filled in C (``arrow_buffers``); pyarrow converts the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

from extractor.change_record import ChangeRecord
from extractor.dictionary import TableDef
from extractor.errors import LandingError
from extractor.land.arrow_buffers import array_from_buffers
from extractor.land.staging_schema import (
    METADATA_ARROW_TYPES,
    staging_arrow_schema,
)
from extractor.parse import implementation
from extractor.source.arrow_schema import ROWID_COLUMN, arrow_schema
from extractor.staging_contract import spark_column_name


def change_batch(
    table: TableDef,
    records: Sequence[ChangeRecord],
    *,
    batch_id: int,
    extracted_at: datetime,
) -> pa.Table:
    """The staging rows of ``records`` (all of ``table``), in the order given.

    A column a record does not carry is NULL and missing from its ``_present``; a full image
    has ``_present`` NULL. Raises ``LandingError`` for a record of another table, a value
    that does not fit its column's Arrow type, or a column the dictionary does not know.
    """
    _check_aware("extracted_at", extracted_at)
    _check_records_belong(table, records)
    schema = staging_arrow_schema(table)
    count = len(records)
    values_by_column = _values_by_column(records, tuple(c.name for c in table.columns))
    columns: list[pa.Array] = [
        _source_column(table, field, values)
        for field, values in zip(arrow_schema(table), values_by_column, strict=True)
    ]
    fields = dict(zip(_RECORD_FIELDS, _attributes(records, _RECORD_FIELDS), strict=True))
    columns += [
        _metadata_array("_op", fields["op"]),
        _metadata_array("_scn", fields["scn"]),
        _metadata_array("_commit_scn", fields["commit_scn"]),
        _metadata_array("_redo_pos", fields["redo_pos"]),
        pc.utf8_trim_whitespace(_metadata_array("_rs_id", fields["rs_id"])),
        _metadata_array("_ssn", fields["ssn"]),
        _metadata_array("_xid", fields["xid"]),
        _metadata_array("_row_id", fields["row_id"]),
        _metadata_array("_commit_ts", fields["commit_ts"]),
        _metadata_array("_present", _present_lists(table, records)),
        _constant("_batch_id", batch_id, count),
        _constant("_extracted_at", extracted_at, count),
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def snapshot_batch(
    table: TableDef,
    batch: pa.RecordBatch | pa.Table,
    *,
    snapshot_scn: int,
    snapshot_ts: datetime,
    batch_id: int,
    extracted_at: datetime,
    read: TableDef | None = None,
) -> pa.Table:
    """Staging rows (``_op='r'``) of a snapshot read at ``snapshot_scn``, without a row loop.

    ``batch`` holds the source columns (lower-case names, as ``Source.snapshot_batches`` yields
    them) and the ROWID as ``_row_id``; source columns of another Arrow type are cast.
    ``read``: the source's definition (default ``table``); a column of ``table`` it does not
    have (dropped from the source, kept in staging) is NULL; one it has must be in ``batch``.
    """
    _check_aware("snapshot_ts", snapshot_ts)
    _check_aware("extracted_at", extracted_at)
    by_name = {name: batch.column(i) for i, name in enumerate(batch.schema.names)}
    count = batch.num_rows
    read_names = None if read is None else {spark_column_name(n) for n in read.column_names}
    columns: list[pa.Array | pa.ChunkedArray] = [
        _snapshot_source_column(table, field, by_name)
        if read_names is None or field.name in read_names
        else pa.nulls(count, field.type)
        for field in arrow_schema(table)
    ]
    columns += [
        _constant("_op", "r", count),
        _constant("_scn", snapshot_scn, count),
        _constant("_commit_scn", snapshot_scn, count),
        _constant("_redo_pos", 0, count),
        pa.nulls(count, METADATA_ARROW_TYPES["_rs_id"]),
        pa.nulls(count, METADATA_ARROW_TYPES["_ssn"]),
        pa.nulls(count, METADATA_ARROW_TYPES["_xid"]),
        _snapshot_row_ids(table, by_name),
        _constant("_commit_ts", snapshot_ts, count),
        pa.nulls(count, METADATA_ARROW_TYPES["_present"]),
        _constant("_batch_id", batch_id, count),
        _constant("_extracted_at", extracted_at, count),
    ]
    return pa.Table.from_arrays(columns, schema=staging_arrow_schema(table))


def _values_by_column(
    records: Sequence[ChangeRecord], names: tuple[str, ...]
) -> list[list[object]]:
    """Each column's values over ``records`` (None where a record does not carry it): in one
    pass in C when the extension is built and every record's values are a dict."""
    value_maps = [r.values for r in records]
    compiled = implementation.compiled
    if compiled is not None:
        columns: list[list[object]] | None = compiled.columns_of(value_maps, names)
        if columns is not None:
            return columns
    return [[values.get(name) for values in value_maps] for name in names]


# The change records' fields that metadata columns hold, read in one pass.
_RECORD_FIELDS = (
    "op",
    "scn",
    "commit_scn",
    "redo_pos",
    "rs_id",
    "ssn",
    "xid",
    "row_id",
    "commit_ts",
)


def _attributes(records: Sequence[ChangeRecord], names: tuple[str, ...]) -> list[list[object]]:
    """Each of ``names``' values over ``records``: in one pass in C when the extension is
    built."""
    compiled = implementation.compiled
    if compiled is not None and type(records) is list:
        columns: list[list[object]] = compiled.attributes_of(records, names)
        return columns
    return [[getattr(record, name) for record in records] for name in names]


def _source_column(table: TableDef, field: pa.Field, values: Sequence[object]) -> pa.Array:
    """``values`` as ``field``'s Arrow array: from buffers the C code fills when it takes
    them all as they are (``arrow_buffers``), else converted by pyarrow."""
    built = array_from_buffers(values, field.type)
    if built is not None:
        return built
    try:
        if pa.types.is_decimal128(field.type):
            return _decimal_column(field.type, values)
        return pa.array(values, type=field.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError) as error:
        raise LandingError(
            f"{table.qualified_name}: a value of column {field.name} does not fit {field.type}: "
            f"{error}",
            fix="check the type mapping of this column in spark_types and the parsed values",
        ) from error


def _decimal_column(arrow_type: pa.DataType, values: Sequence[object]) -> pa.Array:
    """A decimal128 column of Decimal values, through their text: Arrow converts a Decimal
    object in ~0.6 us, its text in ~0.15 us. The same values, and the same refusals (a value
    with more digits than the type holds), as ``pa.array(values, type=arrow_type)``, which
    still converts anything that is not a plain decimal text of at most the type's precision
    in digits: Arrow's text cast wraps around instead of refusing near 38 digits, and reads
    exponents differently (tests/land/test_change_batch.py)."""
    if not all(value is None or type(value) is Decimal for value in values):
        return pa.array(values, type=arrow_type)
    texts = pa.array([None if value is None else str(value) for value in values], pa.string())
    digits = pc.max(pc.utf8_length(pc.replace_substring_regex(texts, "[-.]", ""))).as_py()
    whole = pc.max(pc.utf8_length(pc.replace_substring_regex(texts, r"^-|\..*$", ""))).as_py()
    if (
        (digits or 0) > arrow_type.precision
        or (whole or 0) > arrow_type.precision - arrow_type.scale
        or pc.any(pc.match_substring(texts, "E")).as_py()
    ):
        return pa.array(values, type=arrow_type)
    return texts.cast(arrow_type)


def _metadata_array(name: str, values: Sequence[object]) -> pa.Array:
    arrow_type = METADATA_ARROW_TYPES[name]
    built = array_from_buffers(values, arrow_type)
    return built if built is not None else pa.array(values, type=arrow_type)


def _constant(name: str, value: object, count: int) -> pa.Array:
    return pa.repeat(pa.scalar(value, type=METADATA_ARROW_TYPES[name]), count)


def _present_lists(table: TableDef, records: Sequence[ChangeRecord]) -> list[list[str] | None]:
    """``_present`` of each record; computed once per distinct set of carried columns."""
    known = {column.name: spark_column_name(column.name) for column in table.columns}
    order = {column.name: position for position, column in enumerate(table.columns)}
    cache: dict[tuple[str, ...], list[str]] = {}
    present: list[list[str] | None] = []
    for record in records:
        keys = tuple(record.values)
        names = cache.get(keys)
        if names is None:
            unknown = [key for key in keys if key not in known]
            if unknown:
                raise LandingError(
                    f"{table.qualified_name}: change at SCN {record.scn} carries columns "
                    f"unknown to the dictionary: {', '.join(unknown)}",
                    fix="refresh the dictionary of this table before landing its changes",
                )
            names = [known[key] for key in sorted(keys, key=order.__getitem__)]
            cache[keys] = names
        present.append(None if record.full_image else names)
    return present


def _check_records_belong(table: TableDef, records: Sequence[ChangeRecord]) -> None:
    if {(r.owner, r.table) for r in records} <= {(table.owner, table.name)}:
        return
    for record in records:
        if record.owner != table.owner or record.table != table.name:
            raise LandingError(
                f"change of {record.owner}.{record.table} at SCN {record.scn} given to the "
                f"batch of {table.qualified_name}",
                fix="group change records by table before landing",
            )


def _check_aware(name: str, moment: datetime) -> None:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise LandingError(
            f"{name} {moment.isoformat()} has no time zone",
            fix=f"pass {name} as an aware datetime (e.g. datetime.now(timezone.utc))",
        )


def _snapshot_source_column(
    table: TableDef,
    field: pa.Field,
    by_name: dict[str, pa.Array | pa.ChunkedArray],
) -> pa.Array | pa.ChunkedArray:
    column = by_name.get(field.name)
    if column is None:
        raise LandingError(
            f"{table.qualified_name}: snapshot batch lacks column {field.name}",
            fix="read every dictionary column in the snapshot query",
        )
    if column.type == field.type:
        return column
    try:
        return column.cast(field.type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise LandingError(
            f"{table.qualified_name}: snapshot column {field.name} of type {column.type} "
            f"cannot be cast to {field.type}: {error}",
            fix="check the snapshot reader's Arrow types against source.arrow_schema",
        ) from error


def _snapshot_row_ids(
    table: TableDef, by_name: dict[str, pa.Array | pa.ChunkedArray]
) -> pa.Array | pa.ChunkedArray:
    column = by_name.get(ROWID_COLUMN)
    if column is None:
        raise LandingError(
            f"{table.qualified_name}: snapshot batch has no {ROWID_COLUMN} column",
            fix="select ROWID with the source columns in the snapshot query",
        )
    return column if column.type == pa.string() else column.cast(pa.string())
