"""One row of V$LOGMNR_CONTENTS, as every source (Oracle, simulator, replay) yields it.

Field names are the Oracle column names in lower case; ``to_json`` / ``from_json`` use
the Oracle names exactly as the replay-bundle ``logminer.jsonl`` contract does.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

import msgspec


class OperationCode(IntEnum):
    """V$LOGMNR_CONTENTS.OPERATION_CODE values: every code Oracle documents for the view, and
    the codes working connectors see in practice (27, 29, 68/70/71, 91-93). What the extractor
    does with each one is ``change_builder.DISPOSITIONS`` (docs/transactions.md)."""

    INTERNAL = 0
    INSERT = 1
    DELETE = 2
    UPDATE = 3
    DDL = 5
    START = 6
    COMMIT = 7
    SELECT_LOB_LOCATOR = 9
    LOB_WRITE = 10
    LOB_TRIM = 11
    SELECT_FOR_UPDATE = 25
    REPLICATION_MARKER = 27
    LOB_ERASE = 28
    LOB_ERASE_OBSERVED = 29  # the code LOB erases carry in practice
    MISSING_SCN = 34
    ROLLBACK = 36
    XML_DOC_BEGIN = 68
    XML_DOC_WRITE = 70
    XML_DOC_END = 71
    EXTENDED_STRING_BEGIN = 91  # VARCHAR2/RAW over 4000 bytes (MAX_STRING_SIZE = EXTENDED)
    EXTENDED_STRING_WRITE = 92
    EXTENDED_STRING_END = 93
    UNSUPPORTED = 255


# Rows that open, end or interrupt transactions rather than change a row: the mining query
# keeps them for every transaction (queries.LOGMNR_CONTENTS), whatever table it touched.
TRANSACTION_CONTROL_CODES: frozenset[OperationCode] = frozenset(
    {
        OperationCode.START,
        OperationCode.COMMIT,
        OperationCode.REPLICATION_MARKER,
        OperationCode.MISSING_SCN,
        OperationCode.ROLLBACK,
    }
)
TRANSACTION_END_CODES: frozenset[OperationCode] = frozenset(
    {OperationCode.COMMIT, OperationCode.ROLLBACK}
)

# OPERATION text Oracle writes for each code (68/70/71 as observed; 27, 29 and 91-93 are not
# documented by Oracle: the text is the connectors' name for them).
OPERATION_NAMES: dict[int, str] = {
    0: "INTERNAL",
    1: "INSERT",
    2: "DELETE",
    3: "UPDATE",
    5: "DDL",
    6: "START",
    7: "COMMIT",
    9: "SEL_LOB_LOCATOR",
    10: "LOB_WRITE",
    11: "LOB_TRIM",
    25: "SELECT_FOR_UPDATE",
    27: "REPLICATION_MARKER",
    28: "LOB_ERASE",
    29: "LOB_ERASE",
    34: "MISSING_SCN",
    36: "ROLLBACK",
    68: "XML DOC BEGIN",
    70: "XML DOC WRITE",
    71: "XML DOC END",
    91: "EXTENDED_STRING_BEGIN",
    92: "EXTENDED_STRING_WRITE",
    93: "EXTENDED_STRING_END",
    255: "UNSUPPORTED",
}

# Column order of V$LOGMNR_CONTENTS used by the bundle contract and the Oracle query.
LOGMINER_COLUMNS: tuple[str, ...] = (
    "SCN",
    "START_SCN",
    "COMMIT_SCN",
    "TIMESTAMP",
    "COMMIT_TIMESTAMP",
    "XID",
    "OPERATION",
    "OPERATION_CODE",
    "SEG_OWNER",
    "TABLE_NAME",
    "ROW_ID",
    "RS_ID",
    "SSN",
    "CSF",
    "ROLLBACK",
    "STATUS",
    "INFO",
    "USERNAME",
    "SQL_REDO",
)

# The ROW_ID LogMiner shows on rows that belong to no row: START, COMMIT, ROLLBACK,
# UNSUPPORTED, and the INSERT of a row whose LOB value follows it (the row's real ROWID comes
# with the next row of the statement: the UPDATE writing the LOB, or an INTERNAL row).
NO_ROW_ID = "AAAAAAAAAAAAAAAAAA"
# How a ROWID of an object as a whole ends (file, block and slot all zero): on INTERNAL rows
# that belong to no row.
OBJECT_ROW_ID_SUFFIX = "A" * 12

# An optional column of the bundle contract and the Oracle query (rows without it stay valid).
DATA_OBJ_COLUMN = "DATA_OBJ#"


class LogMinerRow(msgspec.Struct, frozen=True, gc=False):
    """A V$LOGMNR_CONTENTS row. Timestamps are ISO 8601 text, as in the bundle.

    ``rs_id`` keeps Oracle's padding (e.g. ``" 0x000c5d.00000271.0010 "``); use
    ``extractor.redo_position.RedoPosition.of`` for an orderable value.

    A frozen ``msgspec.Struct`` rather than a dataclass: one is built for every row read,
    ~0.05 us against ~1.4 us for a frozen dataclass (docs/performance.md). Copy with
    ``msgspec.structs.replace``.
    """

    scn: int
    start_scn: int | None
    commit_scn: int | None
    timestamp: str | None
    commit_timestamp: str | None
    xid: str
    operation: str
    operation_code: int
    seg_owner: str | None
    table_name: str | None
    row_id: str | None
    rs_id: str
    ssn: int
    csf: int
    rollback: int
    status: int
    info: str | None
    username: str | None
    sql_redo: str | None
    # DATA_OBJ#: the object id (ALL_OBJECTS.OBJECT_ID) of the changed table, when the source
    # reads it; optional in bundles (``"DATA_OBJ#"``), written only when known.
    data_obj: int | None = None

    def to_json(self) -> dict[str, Any]:
        raw = {name: getattr(self, name.lower()) for name in LOGMINER_COLUMNS}
        if self.data_obj is not None:
            raw[DATA_OBJ_COLUMN] = self.data_obj
        return raw

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> LogMinerRow:
        """Build a row from Oracle-named keys; raises KeyError/ValueError/TypeError.

        Written flat (positional, no helper calls): it runs for every LogMiner row read."""
        get = raw.get
        code = int(raw["OPERATION_CODE"])
        return cls(
            int(raw["SCN"]),
            None if (start_scn := get("START_SCN")) is None else int(start_scn),
            None if (commit_scn := get("COMMIT_SCN")) is None else int(commit_scn),
            None if (timestamp := get("TIMESTAMP")) is None else str(timestamp),
            None if (commit_time := get("COMMIT_TIMESTAMP")) is None else str(commit_time),
            str(raw["XID"]),
            str(get("OPERATION") or OPERATION_NAMES.get(code, "")),
            code,
            None if (owner := get("SEG_OWNER")) is None else str(owner),
            None if (table := get("TABLE_NAME")) is None else str(table),
            None if (row_id := get("ROW_ID")) is None else str(row_id),
            str(raw["RS_ID"]),
            int(get("SSN") or 0),
            int(get("CSF") or 0),
            int(get("ROLLBACK") or 0),
            int(get("STATUS") or 0),
            None if (info := get("INFO")) is None else str(info),
            None if (username := get("USERNAME")) is None else str(username),
            None if (sql_redo := get("SQL_REDO")) is None else str(sql_redo),
            None if (data_obj := get(DATA_OBJ_COLUMN)) is None else int(data_obj),
        )
