"""Arrow schemas and record batches of snapshot rows, from the one type mapping.

Column names are the Oracle names in lower case (``staging_contract.spark_column_name``);
the ROWID travels as ``_row_id`` (the staging contract's name for it). Landing reuses
:func:`arrow_schema` so snapshot batches and staging tables agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pyarrow as pa

from extractor.dictionary import ColumnDef, TableDef
from extractor.spark_types import spark_type
from extractor.staging_contract import spark_column_name

ROWID_COLUMN = "_row_id"

_DECIMAL = re.compile(r"^DECIMAL\((\d+),(\d+)\)$")
_SIMPLE_TYPES: dict[str, pa.DataType] = {
    "STRING": pa.string(),
    "TIMESTAMP_NTZ": pa.timestamp("us"),
    "TIMESTAMP": pa.timestamp("us", tz="UTC"),
    "BINARY": pa.binary(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
}


def arrow_type(column: ColumnDef) -> pa.DataType:
    """The Arrow type of a column, per ``spark_types.spark_type``."""
    spark = spark_type(column)
    match = _DECIMAL.match(spark)
    if match:
        return pa.decimal128(int(match.group(1)), int(match.group(2)))
    return _SIMPLE_TYPES[spark]


def arrow_field(column: ColumnDef) -> pa.Field:
    return pa.field(spark_column_name(column.name), arrow_type(column), nullable=True)


def arrow_schema(table: TableDef) -> pa.Schema:
    """The source columns of ``table`` in COLUMN_ID order, Arrow-typed, lower-case names."""
    return pa.schema([arrow_field(c) for c in table.columns])


def snapshot_schema(table: TableDef) -> pa.Schema:
    """:func:`arrow_schema` plus the ``_row_id`` column snapshot batches carry."""
    return arrow_schema(table).append(pa.field(ROWID_COLUMN, pa.string(), nullable=False))


def snapshot_batch(table: TableDef, rows: Sequence[Sequence[object]]) -> pa.RecordBatch:
    """A record batch from rows of Python values (``spark_types`` representation), each row
    the table's columns in order followed by its ROWID."""
    schema = snapshot_schema(table)
    width = len(schema)
    columns: list[list[object]] = [[] for _ in range(width)]
    for row in rows:
        for index in range(width):
            columns[index].append(row[index])
    arrays = [
        pa.array(values, type=field.type) for values, field in zip(columns, schema, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
