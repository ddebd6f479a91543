"""Rows of the two audit tables beside the staging tables: quarantined changes, DDL history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from extractor.logminer_row import LogMinerRow

ERRORS_TABLE: Final = "_oracdc_errors"
SCHEMA_HISTORY_TABLE: Final = "_oracdc_schema_history"

# (column, Spark type) of each audit table, in table order.
ERRORS_COLUMNS: Final[tuple[tuple[str, str], ...]] = (
    ("owner", "STRING"),
    ("table_name", "STRING"),
    ("scn", "BIGINT"),
    ("xid", "STRING"),
    ("rs_id", "STRING"),
    ("ssn", "BIGINT"),
    ("operation_code", "INT"),
    ("reason", "STRING"),
    ("sql_redo", "STRING"),
    ("batch_id", "BIGINT"),
    ("extracted_at", "TIMESTAMP"),
)
SCHEMA_HISTORY_COLUMNS: Final[tuple[tuple[str, str], ...]] = (
    ("ddl", "STRING"),
    ("owner", "STRING"),
    ("table_name", "STRING"),
    ("scn", "BIGINT"),
    ("commit_scn", "BIGINT"),
    ("applied", "BOOLEAN"),
    ("batch_id", "BIGINT"),
    ("extracted_at", "TIMESTAMP"),
)


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
