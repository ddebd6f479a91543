"""The staging table's columns, in Arrow and in Spark DDL, derived from ``staging_contract``.

Source columns come first, in dictionary (COLUMN_ID) order and lower case, then the metadata
columns of ``staging_contract.METADATA_COLUMNS``. Arrow types of source columns come from
``extractor.source.arrow_schema`` (the one Oracle -> Arrow mapping); this module adds the Arrow
types of the metadata columns, which must match their Spark types.
"""

from __future__ import annotations

from typing import Final

import pyarrow as pa

from extractor.dictionary import TableDef
from extractor.source.arrow_schema import arrow_schema
from extractor.spark_types import spark_type
from extractor.staging_contract import METADATA_COLUMNS, spark_column_name

UTC_TIMESTAMP: Final = pa.timestamp("us", tz="UTC")

# Arrow type of each metadata column, matching its Spark type in METADATA_COLUMNS.
METADATA_ARROW_TYPES: Final[dict[str, pa.DataType]] = {
    "_op": pa.string(),
    "_scn": pa.int64(),
    "_commit_scn": pa.int64(),
    "_redo_pos": pa.decimal128(38, 0),
    "_rs_id": pa.string(),
    "_ssn": pa.int64(),
    "_xid": pa.string(),
    "_row_id": pa.string(),
    "_commit_ts": UTC_TIMESTAMP,
    "_present": pa.list_(pa.string()),
    "_batch_id": pa.int64(),
    "_extracted_at": UTC_TIMESTAMP,
}

if tuple(METADATA_ARROW_TYPES) != tuple(name for name, _, _ in METADATA_COLUMNS):
    raise AssertionError("METADATA_ARROW_TYPES is out of step with staging_contract")

METADATA_SCHEMA: Final = pa.schema(
    [pa.field(name, arrow_type) for name, arrow_type in METADATA_ARROW_TYPES.items()]
)


def staging_arrow_schema(table: TableDef) -> pa.Schema:
    """The Arrow schema of a landing batch of ``table``: source columns, then metadata."""
    source = arrow_schema(table)
    return pa.schema(list(source) + list(METADATA_SCHEMA))


def staging_spark_columns(table: TableDef) -> tuple[tuple[str, str], ...]:
    """(column name, Spark DDL type) of the staging table of ``table``, in table order."""
    source = tuple((spark_column_name(c.name), spark_type(c)) for c in table.columns)
    metadata = tuple((name, spark_ddl) for name, spark_ddl, _ in METADATA_COLUMNS)
    return source + metadata
