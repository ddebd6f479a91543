"""Redo events and the V$LOGMNR_CONTENTS rows LogMiner shows for them.

The database appends one :class:`RedoEvent` per redo record as work happens; rows are
rendered on demand under the session NLS settings, with SQL_REDO over 4000 bytes split into
CSF continuation rows that share RS_ID and SSN.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from msgspec.structs import replace

from extractor.dictionary import TableDef
from extractor.logminer_row import NO_ROW_ID, OPERATION_NAMES, LogMinerRow, OperationCode
from extractor.nls import NlsSettings
from extractor.sim.column_values import StoredValue
from extractor.sim.redo_render import delete_sql, insert_sql, update_sql

SQL_REDO_MAX_BYTES = 4000
DDL_INFO = "USER DDL (PlSql=0 RecDep=0)"
UNSUPPORTED_INFO = "Object or Data type Unsupported"
MISMATCH_INFO = "Dictionary Version Mismatch"  # rows LogMiner cannot name (STATUS 2)

_FIXED_SQL = {
    OperationCode.START: "set transaction read write;",
    OperationCode.COMMIT: "commit;",
    OperationCode.ROLLBACK: "rollback;",
    OperationCode.UNSUPPORTED: "Unsupported",
}

# Rows without a statement (SQL_REDO NULL): a replication marker, a hole in the redo.
_NO_STATEMENT_CODES = frozenset({OperationCode.REPLICATION_MARKER, OperationCode.MISSING_SCN})

# Rows rendered from their text with their own ROW_ID: a LOB value written out of line (no
# ROWID) and the INTERNAL row that ends its statement (the row's ROWID, no table).
_TEXT_CODES = frozenset(
    {OperationCode.SELECT_LOB_LOCATOR, OperationCode.LOB_WRITE, OperationCode.INTERNAL}
)


@dataclass(frozen=True, slots=True)
class RedoEvent:
    """One logical change as recorded in redo (not yet rendered)."""

    scn: int
    xid: str
    code: OperationCode
    rs_id: str
    ssn: int
    timestamp: datetime
    username: str
    table: TableDef | None = None
    row_id: str | None = None
    columns: tuple[str, ...] = ()  # INSERT column list / UPDATE SET columns
    before: Mapping[str, StoredValue] | None = None
    after: Mapping[str, StoredValue] | None = None
    empty_lobs: bool = False
    rollback: int = 0
    text: str | None = None  # DDL statement as issued
    start_scn: int | None = None  # COMMIT rows only
    commit_scn: int | None = None
    commit_timestamp: datetime | None = None
    info: str | None = None  # INFO when not the code's usual one (e.g. INTERNAL DDL)
    object_id: int | None = None  # the OBJECT_ID of the table (incarnation) it changed
    # The OBJECT_ID of the partition whose row it changed (None: not partitioned): DATA_OBJ#.
    partition_id: int | None = None
    status: int = 0  # V$LOGMNR_CONTENTS.STATUS (1291 on a MISSING_SCN row)

    @property
    def data_obj(self) -> int | None:
        """DATA_OBJ# of its rows: the object whose segment the row is in."""
        return self.object_id if self.partition_id is None else self.partition_id


def render_rows(
    event: RedoEvent,
    nls: NlsSettings,
    *,
    rowid_in_statement: bool = True,
    undoubled_quotes: bool = False,
) -> list[LogMinerRow]:
    """The V$LOGMNR_CONTENTS rows of one event: one row, or a CSF chain (without the
    ``ROWID = '...'`` predicate in SQL_REDO when not ``rowid_in_statement``; with the
    apostrophes inside its string values not doubled when ``undoubled_quotes``, as LogMiner
    sometimes writes them: Debezium's DBZ-8034)."""
    sql = _sql_redo(event, nls, rowid_in_statement=rowid_in_statement)
    if undoubled_quotes and event.code in (
        OperationCode.INSERT,
        OperationCode.UPDATE,
        OperationCode.DELETE,
    ):
        sql = sql.replace("''", "'")
    table = event.table
    is_dml = event.code in (OperationCode.INSERT, OperationCode.UPDATE, OperationCode.DELETE)
    base = {
        "scn": event.scn,
        "start_scn": event.start_scn,
        "commit_scn": event.commit_scn,
        "timestamp": event.timestamp.isoformat(timespec="seconds"),
        "commit_timestamp": (
            event.commit_timestamp.isoformat(timespec="seconds")
            if event.commit_timestamp is not None
            else None
        ),
        "xid": event.xid,
        "operation": OPERATION_NAMES[int(event.code)],
        "operation_code": int(event.code),
        "seg_owner": table.owner if table is not None else None,
        "table_name": table.name if table is not None else None,
        "row_id": _row_id(event) if is_dml or event.code in _TEXT_CODES else NO_ROW_ID,
        "rs_id": event.rs_id,
        "ssn": event.ssn,
        "rollback": event.rollback,
        "status": event.status,
        "info": event.info or _info(event.code),
        "username": event.username,
    }
    if event.code in _NO_STATEMENT_CODES:
        return [LogMinerRow(csf=0, sql_redo=None, **base)]  # type: ignore[arg-type]
    pieces = split_sql_redo(sql)
    last = len(pieces) - 1
    return [
        LogMinerRow(csf=1 if i < last else 0, sql_redo=piece, **base)  # type: ignore[arg-type]
        for i, piece in enumerate(pieces)
    ]


def unnamed_rows(rows: list[LogMinerRow], table: TableDef, object_id: int) -> list[LogMinerRow]:
    """The rows of one DML event as LogMiner shows them when its dictionary cannot name the
    object: SEG_OWNER ``UNKNOWN``, TABLE_NAME ``OBJ# <id>``, columns ``"COL <n>"`` in SQL_REDO,
    STATUS 2 and INFO set. (Oracle also writes the values as ``HEXTORAW`` of their stored
    bytes; the simulator keeps the literals: nothing reads them.)"""
    sql = "".join(r.sql_redo or "" for r in rows)
    sql = sql.replace(f'"{table.owner}"."{table.name}"', f'"UNKNOWN"."OBJ# {object_id}"')
    for position, column in enumerate(table.columns, start=1):
        sql = sql.replace(f'"{column.name}"', f'"COL {position}"')
    pieces = split_sql_redo(sql)
    last = len(pieces) - 1
    first = replace(
        rows[0], seg_owner="UNKNOWN", table_name=f"OBJ# {object_id}", status=2,
        info=MISMATCH_INFO, data_obj=object_id,
    )  # fmt: skip
    return [
        replace(first, csf=1 if i < last else 0, sql_redo=piece) for i, piece in enumerate(pieces)
    ]


def renamed_rows(rows: list[LogMinerRow], table: TableDef, name_now: str) -> list[LogMinerRow]:
    """The rows of one DML event of a table renamed since (or dropped into the recycle bin,
    ``BIN$…``), as a LogMiner session with the online catalog shows them: under the table's
    name now (in TABLE_NAME and SQL_REDO), its column names kept."""
    sql = "".join(r.sql_redo or "" for r in rows)
    sql = sql.replace(f'"{table.owner}"."{table.name}"', f'"{table.owner}"."{name_now}"')
    pieces = split_sql_redo(sql)
    last = len(pieces) - 1
    first = replace(rows[0], table_name=name_now)
    return [
        replace(first, csf=1 if i < last else 0, sql_redo=piece) for i, piece in enumerate(pieces)
    ]


def split_sql_redo(sql: str, max_bytes: int = SQL_REDO_MAX_BYTES) -> list[str]:
    """Cut SQL_REDO into pieces of at most ``max_bytes`` UTF-8 bytes, never inside a
    character; concatenating the pieces gives the statement back."""
    encoded = sql.encode("utf-8")
    if len(encoded) <= max_bytes:
        return [sql]
    pieces = []
    start = 0
    while start < len(encoded):
        end = min(start + max_bytes, len(encoded))
        while end < len(encoded) and (encoded[end] & 0xC0) == 0x80:
            end -= 1  # back off to a character boundary
        pieces.append(encoded[start:end].decode("utf-8"))
        start = end
    return pieces


def _row_id(event: RedoEvent) -> str | None:
    """An INSERT whose LOB values follow it (``EMPTY_CLOB()`` in SQL_REDO) shows no ROWID:
    its ROWID comes with the UPDATE that writes the LOB (what Oracle's LogMiner writes and
    Debezium's LogMiner adapter handles: an empty ROW_ID merged with the next row's)."""
    if event.code is OperationCode.INSERT and event.empty_lobs and not event.rollback:
        return NO_ROW_ID
    return event.row_id


def _info(code: OperationCode) -> str | None:
    if code is OperationCode.DDL:
        return DDL_INFO
    if code is OperationCode.UNSUPPORTED:
        return UNSUPPORTED_INFO
    return None


def _sql_redo(event: RedoEvent, nls: NlsSettings, *, rowid_in_statement: bool = True) -> str:
    code = event.code
    if code in _NO_STATEMENT_CODES:
        return ""  # a marker or a redo hole carries no statement (rendered with SQL_REDO NULL)
    if code is OperationCode.DDL:
        return event.text or ""
    fixed = _FIXED_SQL.get(code)
    if fixed is not None:
        return fixed
    if code in _TEXT_CODES:
        return event.text or ""
    table, row_id = event.table, event.row_id
    if table is None or row_id is None:
        raise ValueError(f"DML event without table or ROWID: {event}")
    if code is OperationCode.INSERT:
        return insert_sql(table, event.columns, event.after or {}, nls, empty_lobs=event.empty_lobs)
    stated_rowid = row_id if rowid_in_statement else None
    before, after = event.before or {}, event.after or {}
    if code is OperationCode.UPDATE:
        return update_sql(table, event.columns, before, after, stated_rowid, nls)
    return delete_sql(table, before, stated_rowid, nls)
