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
from typing import Any

from extractor.dictionary import TableDef
from extractor.logminer_row import LogMinerRow
from extractor.source.errors import MissingRedoLogError
from extractor.source.oracle import queries
from extractor.source.oracle.errors import full_code, raise_unhandled
from extractor.source.oracle.redo_logs import RedoLog

log = logging.getLogger(__name__)

START_OPTIONS = queries.DICT_FROM_ONLINE_CATALOG
DEFAULT_ARRAYSIZE = 5_000
_MISSING_LOG_CODES = frozenset({"ORA-01291", "ORA-01292"})


@contextmanager
def logminer_session(
    connection: Any, logs: Sequence[RedoLog], start_scn: int, end_scn: int
) -> Iterator[Any]:
    """Add ``logs``, start LogMiner over ``start_scn..end_scn`` and yield the cursor; always
    end the session. ORA-01291/01292 become MissingRedoLogError."""
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
) -> Iterator[LogMinerRow]:
    """The session's V$LOGMNR_CONTENTS rows for ``tables`` (see queries.LOGMNR_CONTENTS)."""
    cursor.arraysize = arraysize
    cursor.prefetchrows = arraysize + 1
    owners = sorted({t.owner for t in tables})
    names = sorted(f"{t.owner}.{t.name}" for t in tables)
    binds = {
        "start_scn": start_scn,
        "end_scn": end_scn,
        "owner_list": queries.name_list(owners),
        "table_list": queries.name_list(names),
    }
    try:
        cursor.execute(queries.LOGMNR_CONTENTS, binds)
        while True:
            rows = cursor.fetchmany(arraysize)
            if not rows:
                return
            for row in rows:
                yield row_from_tuple(row)
    except Exception as error:
        _raise_mapped(error, "the V$LOGMNR_CONTENTS query", start_scn, end_scn)


def row_from_tuple(row: Sequence[Any]) -> LogMinerRow:
    """A LogMinerRow from a row of queries.LOGMNR_CONTENTS (its column order)."""
    (scn, start_scn, commit_scn, timestamp, commit_timestamp, xid, operation, code, owner,
     table, row_id, rs_id, ssn, csf, rollback, status, info, username, sql_redo) = row  # fmt: skip
    return LogMinerRow(
        scn=int(scn),
        start_scn=None if start_scn is None else int(start_scn),
        commit_scn=None if commit_scn is None else int(commit_scn),
        timestamp=timestamp,
        commit_timestamp=commit_timestamp,
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
    )


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
