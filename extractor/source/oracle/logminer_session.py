"""One LogMiner session: ADD_LOGFILE, START_LOGMNR, the V$LOGMNR_CONTENTS query, END_LOGMNR.

Options: DICT_FROM_ONLINE_CATALOG only. COMMITTED_DATA_ONLY is off (it buffers whole
transactions in the database's memory; the extractor assembles transactions itself), and
NO_ROWID_IN_STMT is off too: SQL_REDO keeps ``and ROWID = '...'`` exactly as Oracle writes it
by default, so statements look the same from every source (the ROW_ID column carries the
ROWID either way). LogMiner state lives in the database session, so the whole session runs
on one connection, and END_LOGMNR runs on exit whatever happened (ORA-01307, no active
session, is ignored there).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from extractor.dictionary import TableDef
from extractor.errors import MissingRedoLogError
from extractor.logminer_row import LogMinerRow
from extractor.source.oracle import queries
from extractor.source.oracle.driver_errors import full_code, raise_unhandled
from extractor.source.oracle.redo_logs import RedoLog

log = logging.getLogger(__name__)

START_OPTIONS = queries.DICT_FROM_ONLINE_CATALOG
DEFAULT_ARRAYSIZE = 5_000
_MISSING_LOG_CODES = frozenset({"ORA-01291", "ORA-01292"})
# Errors that pass when the window is mined again a little later: ORA-01291 (a log not yet
# available: being archived), ORA-00310 / ORA-00334 (an online log switched and overwritten
# while it was mined; its archived copy is read next time).
RETRYABLE_CODES = frozenset({"ORA-01291", "ORA-00310", "ORA-00334"})
DEFAULT_RETRY_ATTEMPTS = 4  # delays 1, 2, 4, 8 s: 15 s in all
DEFAULT_RETRY_DELAY_SECONDS = 1.0


@contextmanager
def logminer_session(
    connection: Any, logs: Sequence[RedoLog], start_scn: int, end_scn: int
) -> Iterator[Any]:
    """Add ``logs``, start LogMiner over ``start_scn..end_scn`` and yield the cursor; always
    end the session. ORA-01291/01292 become MissingRedoLogError. No ``logs``: a session in a
    PDB (19c+), where START_LOGMNR picks the logs of the SCN range itself."""
    cursor = connection.cursor()
    try:
        try:
            for index, redo_log in enumerate(logs):
                options = queries.LOGMNR_NEW if index == 0 else queries.LOGMNR_ADDFILE
                cursor.callproc(
                    queries.ADD_LOGFILE,
                    keyword_parameters={"logfilename": redo_log.name, "options": options},
                )
            cursor.callproc(
                queries.START_LOGMNR,
                keyword_parameters={
                    "startscn": start_scn,
                    "endscn": end_scn,
                    "options": START_OPTIONS,
                },
            )
        except Exception as error:
            _raise_mapped(error, "DBMS_LOGMNR.START_LOGMNR", start_scn, end_scn)
        yield cursor
    finally:
        _end_logminer(cursor)
        cursor.close()


def contents_rows(
    cursor: Any,
    start_scn: int,
    end_scn: int,
    tables: Sequence[TableDef],
    arraysize: int = DEFAULT_ARRAYSIZE,
    object_ids: Sequence[int] = (),
    server_utc_offset: timedelta = timedelta(0),
    pdb: str | None = None,
    ddl_owners: Sequence[str] = (),
) -> Iterator[LogMinerRow]:
    """The session's V$LOGMNR_CONTENTS rows for ``tables`` and, whatever name LogMiner gives
    them, for the objects ``object_ids`` (see queries.LOGMNR_CONTENTS), with the DDL rows of
    the tables' owners and ``ddl_owners``, of the PDB ``pdb`` only when set (a session in
    CDB$ROOT); their timestamps, server time (``server_utc_offset`` ahead of UTC), converted
    to UTC."""
    cursor.arraysize = arraysize
    cursor.prefetchrows = arraysize + 1
    owners = sorted({t.owner for t in tables} | set(ddl_owners))
    names = sorted((t.owner, t.name) for t in tables)
    statement, binds = queries.logminer_contents_query(
        owners, names, sorted(object_ids), pdb, internal_rows=any(t.has_lob_columns for t in tables)
    )
    binds.update(start_scn=start_scn, end_scn=end_scn)
    try:
        cursor.execute(statement, binds)
        while True:
            rows = cursor.fetchmany(arraysize)
            if not rows:
                return
            for row in rows:
                yield row_from_tuple(row, server_utc_offset)
    except Exception as error:
        _raise_mapped(error, "the V$LOGMNR_CONTENTS query", start_scn, end_scn)


def row_from_tuple(row: Sequence[Any], server_utc_offset: timedelta = timedelta(0)) -> LogMinerRow:
    """A LogMinerRow from a row of queries.LOGMNR_CONTENTS (its column order); timestamps
    from server time to UTC."""
    (scn, start_scn, commit_scn, timestamp, commit_timestamp, xid, operation, code, owner,
     table, row_id, rs_id, ssn, csf, rollback, status, info, username, sql_redo,
     data_obj) = row  # fmt: skip
    return LogMinerRow(
        scn=int(scn),
        start_scn=None if start_scn is None else int(start_scn),
        commit_scn=None if commit_scn is None else int(commit_scn),
        timestamp=utc_text(timestamp, server_utc_offset),
        commit_timestamp=utc_text(commit_timestamp, server_utc_offset),
        xid=str(xid),
        operation=str(operation),
        operation_code=int(code),
        seg_owner=owner,
        table_name=table,
        row_id=row_id,
        rs_id=str(rs_id),
        ssn=int(ssn or 0),
        csf=int(csf or 0),
        rollback=int(rollback or 0),
        status=int(status or 0),
        info=info,
        username=username,
        sql_redo=sql_redo,
        data_obj=None if data_obj is None else int(data_obj),
    )


def parse_utc_offset(text: str) -> timedelta:
    """``TO_CHAR(SYSTIMESTAMP, 'TZH:TZM')`` (``+05:30``, ``-03:00``) as a timedelta."""
    sign = -1 if text.strip().startswith("-") else 1
    hours, minutes = text.strip().lstrip("+-").split(":")
    return sign * timedelta(hours=int(hours), minutes=int(minutes))


def utc_text(server_text: Any, server_utc_offset: timedelta) -> str | None:
    """A ``YYYY-MM-DDTHH:MI:SS`` server-time text as UTC text (None stays None)."""
    if server_text is None:
        return None
    if not server_utc_offset:
        return str(server_text)
    utc = datetime.fromisoformat(str(server_text)) - server_utc_offset
    return utc.strftime("%Y-%m-%dT%H:%M:%S")


def retryable_code(error: BaseException) -> str | None:
    """The ORA code of a transient LogMiner error (RETRYABLE_CODES) behind ``error``."""
    seen: BaseException | None = error
    while seen is not None:
        code = full_code(seen)
        if code in RETRYABLE_CODES:
            return code
        seen = seen.__cause__
    return None


def _raise_mapped(error: Exception, statement: str, start_scn: int, end_scn: int) -> None:
    code = full_code(error)
    if code in _MISSING_LOG_CODES:
        raise MissingRedoLogError(
            start_scn, end_scn, f"{statement} failed with {code} (missing log file)"
        ) from error
    if code is None:
        raise error
    raise_unhandled(error, statement)


def _end_logminer(cursor: Any) -> None:
    try:
        cursor.callproc(queries.END_LOGMNR)
    except Exception as error:
        if full_code(error) == "ORA-01307":  # no session was active: nothing to end
            return
        log.warning("DBMS_LOGMNR.END_LOGMNR failed: %s", error)
