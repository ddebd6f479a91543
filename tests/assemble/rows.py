"""Hand-built V$LOGMNR_CONTENTS rows in Oracle's documented format (docs/logminer.md §1).

RS_ID is padded with spaces like Oracle's (``' 0x000c5d.00000271.0010 '``), XID is 16 hex
characters, ROW_ID 18 characters, SQL_REDO as LogMiner writes it.
"""

from __future__ import annotations

from extractor.logminer_row import OPERATION_NAMES, LogMinerRow

XID_A = "0a0014000f2b0000"
XID_B = "0b001b00a1030000"
XID_C = "0c00090012dd0000"

ROWID_1 = "AAASZHAAEAAAACXAAA"
ROWID_2 = "AAASZHAAEAAAACXAAB"


def rs_id(block: int, offset: int = 0x10, sequence: int = 0xC5D) -> str:
    """Oracle's padded RS_ID text for a redo record address."""
    return f" 0x{sequence:06x}.{block:08x}.{offset:04x} "


def row(
    code: int,
    xid: str,
    scn: int,
    *,
    block: int | None = None,
    ssn: int = 0,
    csf: int = 0,
    rollback: int = 0,
    status: int = 0,
    row_id: str | None = None,
    sql_redo: str | None = None,
    timestamp: str | None = "2024-02-14T10:58:02",
    info: str | None = None,
) -> LogMinerRow:
    is_data = code not in (6, 7, 36, 34)
    return LogMinerRow(
        scn=scn,
        start_scn=None,
        commit_scn=None,
        timestamp=timestamp,
        commit_timestamp=None,
        xid=xid,
        operation=OPERATION_NAMES.get(code, "UNKNOWN"),
        operation_code=code,
        seg_owner="SCOTT" if is_data else None,
        table_name="EMP" if is_data else None,
        row_id=row_id,
        rs_id=rs_id(scn if block is None else block),
        ssn=ssn,
        csf=csf,
        rollback=rollback,
        status=status,
        info=info,
        username="SCOTT",
        sql_redo=sql_redo,
    )


def start(xid: str, scn: int) -> LogMinerRow:
    return row(6, xid, scn, sql_redo="set transaction read write;")


def commit(xid: str, scn: int, *, block: int | None = None) -> LogMinerRow:
    return row(7, xid, scn, block=block, sql_redo="commit;")


def rollback_all(xid: str, scn: int) -> LogMinerRow:
    return row(36, xid, scn, sql_redo="rollback;")


def insert(xid: str, scn: int, empno: int, *, row_id: str = ROWID_1) -> LogMinerRow:
    return row(
        1,
        xid,
        scn,
        row_id=row_id,
        sql_redo=f'insert into "SCOTT"."EMP"("EMPNO","ENAME") values (\'{empno}\',\'E{empno}\');',
    )


def update(xid: str, scn: int, ename: str, *, row_id: str = ROWID_1) -> LogMinerRow:
    return row(
        3,
        xid,
        scn,
        row_id=row_id,
        sql_redo=f'update "SCOTT"."EMP" set "ENAME" = \'{ename}\' where ROWID = \'{row_id}\';',
    )


def undo(xid: str, scn: int, *, row_id: str = ROWID_1) -> LogMinerRow:
    """A compensating row of a savepoint rollback (ROLLBACK = 1) for ``row_id``."""
    return row(
        3,
        xid,
        scn,
        rollback=1,
        row_id=row_id,
        sql_redo=f'update "SCOTT"."EMP" set "ENAME" = \'OLD\' where ROWID = \'{row_id}\';',
    )
