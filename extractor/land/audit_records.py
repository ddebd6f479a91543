"""Rows of the audit tables beside the staging tables: quarantined changes, DDL history, and the
heartbeat (how far mining had got, and when: the freshness of tables without changes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pyarrow as pa

from extractor.land.staging_schema import UTC_TIMESTAMP
from extractor.logminer_row import LogMinerRow

ERRORS_TABLE: Final = "_oracdc_errors"
SCHEMA_HISTORY_TABLE: Final = "_oracdc_schema_history"
HEARTBEAT_TABLE: Final = "_oracdc_heartbeat"

# Each audit table's columns, in table order, declared once as Arrow; Spark types follow.
ERRORS_SCHEMA: Final = pa.schema(
    [
        ("owner", pa.string()),
        ("table_name", pa.string()),
        ("scn", pa.int64()),
        ("xid", pa.string()),
        ("rs_id", pa.string()),
        ("ssn", pa.int64()),
        ("operation_code", pa.int32()),
        ("reason", pa.string()),
        ("sql_redo", pa.string()),
        ("batch_id", pa.int64()),
        ("extracted_at", UTC_TIMESTAMP),
    ]
)
SCHEMA_HISTORY_SCHEMA: Final = pa.schema(
    [
        ("ddl", pa.string()),
        ("owner", pa.string()),
        ("table_name", pa.string()),
        ("scn", pa.int64()),
        ("commit_scn", pa.int64()),
        ("applied", pa.bool_()),
        ("batch_id", pa.int64()),
        ("extracted_at", UTC_TIMESTAMP),
    ]
)

# One row per heartbeat: every change committed up to mined_to_scn had landed at heartbeat_at.
HEARTBEAT_SCHEMA: Final = pa.schema(
    [
        ("mined_to_scn", pa.int64()),
        ("heartbeat_at", UTC_TIMESTAMP),
    ]
)

_SPARK_TYPES: Final[dict[pa.DataType, str]] = {
    pa.string(): "STRING",
    pa.int64(): "BIGINT",
    pa.int32(): "INT",
    pa.bool_(): "BOOLEAN",
    UTC_TIMESTAMP: "TIMESTAMP",
}


def spark_columns(schema: pa.Schema) -> tuple[tuple[str, str], ...]:
    """(column, Spark DDL type) of an audit table, in table order."""
    return tuple((field.name, _SPARK_TYPES[field.type]) for field in schema)


ERRORS_COLUMNS: Final = spark_columns(ERRORS_SCHEMA)
SCHEMA_HISTORY_COLUMNS: Final = spark_columns(SCHEMA_HISTORY_SCHEMA)
HEARTBEAT_COLUMNS: Final = spark_columns(HEARTBEAT_SCHEMA)


@dataclass(frozen=True, slots=True)
class QuarantinedChange:
    """A change the extractor could not land (unparsable SQL_REDO, UNSUPPORTED, bad value),
    kept with its raw text so it can be repaired and replayed."""

    owner: str | None
    table_name: str | None
    scn: int
    xid: str | None
    rs_id: str | None
    ssn: int | None
    operation_code: int | None
    reason: str
    sql_redo: str | None

    @classmethod
    def from_logminer_row(cls, row: LogMinerRow, reason: str) -> QuarantinedChange:
        """The quarantine entry of a V$LOGMNR_CONTENTS row (RS_ID trimmed)."""
        return cls(
            owner=row.seg_owner,
            table_name=row.table_name,
            scn=row.scn,
            xid=row.xid,
            rs_id=row.rs_id.strip(),
            ssn=row.ssn,
            operation_code=row.operation_code,
            reason=reason,
            sql_redo=row.sql_redo,
        )


@dataclass(frozen=True, slots=True)
class SchemaChange:
    """A DDL statement seen in the redo, and whether the extractor applied it to staging."""

    ddl: str
    owner: str | None
    table_name: str | None
    scn: int
    commit_scn: int | None
    applied: bool
