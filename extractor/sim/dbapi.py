"""The simulator's DB-API 2.0 face: ``SimConnection`` / ``SimCursor`` answer exactly the
statements ``extractor.source.oracle.queries`` sends, from a :class:`SimDatabase`.

Statements are recognised by their normalised text (whitespace collapsed), never parsed as
general SQL; anything else raises :class:`UnknownStatementError` naming it. Oracle errors
are raised as real python-oracledb exceptions (ORA-00904, 00942, 01008, 01291, 01292, 01307,
01466, 01555, 08181), so the Oracle source running over a SimConnection is the code under
test. The session's NLS must be the database's (the simulator renders SQL_REDO under
``SimDatabase.nls`` only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from extractor.dictionary import TableDef
from extractor.logminer_row import LogMinerRow
from extractor.sim.database import SimDatabase
from extractor.sim.errors import SimUsageError, raise_oracle_error
from extractor.source.oracle import queries
from extractor.source.oracle.redo_logs import OPEN_ENDED_NEXT_CHANGE
from extractor.source.oracle.snapshot import select_expression, snapshot_statement
from extractor.source.rowid_order import rowid_sort_key

Row = tuple[Any, ...]
_BIND = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)")
_SNAPSHOT = re.compile(
    r'^SELECT (?P<select>.*), ROWIDTOCHAR\(ROWID\) FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" '
    r"AS OF SCN :scn (?:WHERE ROWID > CHARTOROWID\(:after_rowid\) )?ORDER BY ROWID$"
)
_VERIFY_COUNT = re.compile(
    r'^SELECT COUNT\(\*\) FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" AS OF SCN :scn$'
)
_VERIFY_DIGESTS = re.compile(
    r'^SELECT \* FROM \(SELECT .* FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" AS OF SCN :scn\) '
    r"WHERE TO_NUMBER\(SUBSTR\(KEY_DIGEST, 1, 3\), 'XXX'\) BETWEEN :bucket_lo AND :bucket_hi$"
)
_LOG_GROUP_TYPES = {"ALL": ["ALL COLUMN LOGGING"], "PRIMARY KEY": ["PRIMARY KEY LOGGING"]}


class UnknownStatementError(SimUsageError):
    """A statement the simulator does not answer (not one of queries.py's)."""


class SimConnection:
    """A connection to a simulated Oracle; one LogMiner session state, as a real session."""

    def __init__(self, db: SimDatabase) -> None:
        self.db = db
        self.closed = False
        self.logminer_files: list[str] = []
        self.logminer_range: tuple[int, int] | None = None
        self.statements: list[str] = []  # every statement and procedure sent, for tests

    def cursor(self) -> SimCursor:
        if self.closed:
            raise_oracle_error(3114, "not connected to ORACLE")
        return SimCursor(self)

    def close(self) -> None:
        self.closed = True

    def commit(self) -> None:
        """Nothing to commit: the extractor only reads."""

    def rollback(self) -> None:
        """Nothing to roll back: the extractor only reads."""


class SimCursor:
    """A cursor over a SimConnection (execute, callproc, fetch*, iteration)."""

    def __init__(self, connection: SimConnection) -> None:
        self.connection = connection
        self.arraysize = 100
        self.prefetchrows = 2
        self.outputtypehandler: Any = None
        self.rowcount = -1
        self._rows: list[Row] = []
        self._position = 0
        self._description: list[tuple[Any, ...]] | None = None
        self._handlers: dict[str, Callable[[Mapping[str, Any]], list[Row]]] = {
            queries.normalise(queries.CURRENT_SCN): self._current_scn,
            queries.normalise(queries.DATABASE_INFO): self._database_info,
            queries.normalise(queries.OPEN_TRANSACTIONS_START_SCN): self._open_transactions,
            queries.normalise(queries.LIST_TABLES): self._list_tables,
            queries.normalise(queries.TABLE_COLUMNS): self._table_columns,
            queries.normalise(queries.PRIMARY_KEY_COLUMNS): self._primary_key,
            queries.normalise(queries.LOG_GROUP_TYPES): self._log_groups,
            queries.normalise(queries.TABLE_OBJECT_IDS): self._object_ids,
            queries.normalise(queries.ARCHIVED_LOGS): self._archived_logs,
            queries.normalise(queries.ONLINE_LOGS): self._online_logs,
            queries.normalise(queries.LOGMNR_CONTENTS): self._logmnr_contents,
        }

    @property
    def db(self) -> SimDatabase:
        return self.connection.db

    @property
    def description(self) -> list[tuple[Any, ...]] | None:
        return self._description

    # -- DB-API ---------------------------------------------------------------------------

    def execute(
        self, statement: str, parameters: Mapping[str, Any] | None = None, **keyword: Any
    ) -> SimCursor:
        self._check_open()
        binds = dict(parameters or {}, **keyword)
        text = queries.normalise(statement)
        self.connection.statements.append(text)
        if text.upper().startswith("ALTER SESSION SET "):
            self._alter_session(text)
            self._set_result([], None)
            return self
        _check_binds(text, binds)
        handler = self._handlers.get(text)
        if handler is not None:
            self._set_result(handler(binds), None)
            return self
        verify = _VERIFY_COUNT.match(text) or _VERIFY_DIGESTS.match(text)
        if verify:
            self._set_result(self._verify(verify, text, binds), None)
            return self
        snapshot = _SNAPSHOT.match(text)
        if snapshot:
            self._set_result(self._snapshot(snapshot, text, binds), None)
            return self
        raise UnknownStatementError(f"the simulator does not answer this statement: {text}")

    def callproc(
        self,
        name: str,
        parameters: Sequence[Any] | None = None,
        keyword_parameters: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        self._check_open()
        args = {k.lower(): v for k, v in (keyword_parameters or {}).items()}
        self.connection.statements.append(name)
        if name == queries.ADD_LOGFILE:
            self._add_logfile(args)
        elif name == queries.START_LOGMNR:
            self._start_logmnr(args)
        elif name == queries.END_LOGMNR:
            self._end_logmnr()
        else:
            raise UnknownStatementError(f"the simulator has no procedure {name}")
        return list(parameters or [])

    def fetchone(self) -> Row | None:
        if self._position >= len(self._rows):
            return None
        row = self._rows[self._position]
        self._position += 1
        return row

    def fetchmany(self, size: int | None = None) -> list[Row]:
        count = self.arraysize if size is None else size
        rows = self._rows[self._position : self._position + count]
        self._position += len(rows)
        return rows

    def fetchall(self) -> list[Row]:
        rows = self._rows[self._position :]
        self._position = len(self._rows)
        return rows

    def __iter__(self) -> Iterator[Row]:
        while (row := self.fetchone()) is not None:
            yield row

    def var(self, typ: Any, size: int = 0, arraysize: int = 1) -> tuple[Any, int]:
        """Accepted for output type handlers; the simulator already returns final types."""
        return (typ, arraysize)

    def close(self) -> None:
        self._rows = []

    # -- statements -----------------------------------------------------------------------

    def _alter_session(self, text: str) -> None:
        wanted = queries.normalise(self.db.nls.alter_session_sql())
        if text != wanted:
            raise SimUsageError(
                f"the simulator renders SQL_REDO under its own NLS only; expected {wanted!r}, "
                f"got {text!r}"
            )

    def _current_scn(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(self.db.current_scn(),)]

    def _database_info(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(self.db.database_name, "ARCHIVELOG", "YES", "NO", "NO")]

    def _open_transactions(self, binds: Mapping[str, Any]) -> list[Row]:
        starts = [s for _, s in self.db.open_transactions() if s <= int(binds["at_scn"])]
        return [(min(starts) if starts else None,)]

    def _list_tables(self, binds: Mapping[str, Any]) -> list[Row]:
        owner_like = _like_regex(str(binds["owner_pattern"]))
        table_like = _like_regex(str(binds["table_pattern"]))
        return sorted(
            (t.owner, t.name)
            for t in self.db.tables()
            if owner_like.match(t.owner) and table_like.match(t.name)
        )

    def _find_table(self, binds: Mapping[str, Any]) -> TableDef | None:
        key = (binds["owner"], binds["table_name"])
        return next((t for t in self.db.tables() if (t.owner, t.name) == key), None)

    def _table_columns(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        if table is None:
            return []
        return [
            (c.name, c.column_id, c.data_type, c.data_length, c.data_precision, c.data_scale,
             "Y" if c.nullable else "N")
            for c in table.columns
        ]  # fmt: skip

    def _primary_key(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        return [] if table is None else [(name,) for name in table.primary_key]

    def _log_groups(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        if table is None:
            return []
        return [(kind,) for kind in _LOG_GROUP_TYPES.get(table.supplemental_logging, [])]

    def _object_ids(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        if table is None:
            return []
        object_id = self.db.object_id(table.owner, table.name)
        return [(object_id, object_id)]

    def _archived_logs(self, binds: Mapping[str, Any]) -> list[Row]:
        start, end = int(binds["start_scn"]), int(binds["end_scn"])
        rows = [
            (f.name, f.thread, f.sequence, f.first_change, f.next_change)
            for f in self.db.log_files()
            if not f.is_online
            and f.archived
            and f.status == "A"
            and f.next_change is not None
            and f.next_change > start
            and f.first_change <= end
        ]
        return sorted(rows, key=lambda r: (r[1], r[2]))

    def _online_logs(self, binds: Mapping[str, Any]) -> list[Row]:
        start, end = int(binds["start_scn"]), int(binds["end_scn"])
        rows = []
        for f in self.db.log_files():
            next_change = OPEN_ENDED_NEXT_CHANGE if f.next_change is None else f.next_change
            if f.is_online and next_change > start and f.first_change <= end:
                rows.append((f.name, f.thread, f.sequence, f.first_change, next_change, f.status))
        return sorted(rows, key=lambda r: (r[1], r[2]))

    def _logmnr_contents(self, binds: Mapping[str, Any]) -> list[Row]:
        if self.connection.logminer_range is None:
            raise_oracle_error(1306, "dbms_logmnr.start_logmnr() must be invoked before selecting")
        session_start, session_end = self.connection.logminer_range
        start = max(session_start, int(binds["start_scn"]))
        end = min(session_end, int(binds["end_scn"]))
        owners = str(binds["owner_list"])
        tables = str(binds["table_list"])
        rows = self.db.logminer_contents(start, end, log_names=self.connection.logminer_files)
        return [_contents_tuple(r) for r in rows if _selected(r, owners, tables)]

    def _snapshot(self, match: re.Match[str], text: str, binds: Mapping[str, Any]) -> list[Row]:
        owner, name = match.group("owner"), match.group("table")
        table = self.db.table(owner, name)  # ORA-00942 when unknown
        resume = "after_rowid" in binds
        if text != queries.normalise(snapshot_statement(table, resume)):
            raise_oracle_error(904, f"invalid identifier in the select list of {owner}.{name}")
        rows = self.db.snapshot_rows(owner, name, int(binds["scn"]))
        rows.sort(key=lambda r: rowid_sort_key(str(r["ROWID"])))
        if resume:
            after = rowid_sort_key(str(binds["after_rowid"]))
            rows = [r for r in rows if rowid_sort_key(str(r["ROWID"])) > after]
        utc_columns = {
            c.name for c in table.columns if select_expression(c).startswith("SYS_EXTRACT_UTC(")
        }
        return [
            (*(_fetched(row.get(c.name), c.name in utc_columns) for c in table.columns),
             row["ROWID"])
            for row in rows
        ]  # fmt: skip

    def _verify(self, match: re.Match[str], text: str, binds: Mapping[str, Any]) -> list[Row]:
        """VERIFY_COUNT / VERIFY_DIGESTS: computed from the truth by the canonical rules."""
        from extractor.source.oracle.snapshot import column_converter
        from extractor.staging_contract import spark_column_name
        from extractor.verify import canonical
        from extractor.verify.source_digest import (
            count_statement,
            digest_statement,
            python_digest_row,
        )

        table = self.db.table(match.group("owner"), match.group("table"))
        rows = self.db.snapshot_rows(table.owner, table.name, int(binds["scn"]))
        if text == queries.normalise(count_statement(table)):
            return [(len(rows),)]
        forms = {queries.normalise(digest_statement(table, flag)): flag for flag in (False, True)}
        if text not in forms:
            raise_oracle_error(904, f"invalid identifier in the verify query of {table.name}")
        utc_columns = {
            c.name for c in table.columns if select_expression(c).startswith("SYS_EXTRACT_UTC(")
        }
        converters = {c.name: column_converter(c) for c in table.columns}
        low, high = int(binds["bucket_lo"]), int(binds["bucket_hi"])
        answer: list[Row] = []
        for row in rows:
            values: dict[str, Any] = {"_row_id": str(row["ROWID"])}
            for column in table.columns:
                fetched = _fetched(row.get(column.name), column.name in utc_columns)
                converted = None if fetched is None else converters[column.name](fetched)
                values[spark_column_name(column.name)] = converted
            digest = python_digest_row(table, values, forms[text])
            if low <= canonical.bucket_of(digest.key_digest) <= high:
                answer.append((*digest.key, digest.key_digest, *digest.digests))
        return answer

    # -- DBMS_LOGMNR ----------------------------------------------------------------------

    def _add_logfile(self, args: Mapping[str, Any]) -> None:
        name = str(args["logfilename"])
        if int(args.get("options", queries.LOGMNR_ADDFILE)) == queries.LOGMNR_NEW:
            self.connection.logminer_files = []
            self.connection.logminer_range = None
        if name not in {f.name for f in self.db.log_files()}:
            raise_oracle_error(1284, f"file {name} cannot be opened")
        if name in self.connection.logminer_files:
            raise_oracle_error(1289, f"cannot add duplicate logfile {name}")
        self.connection.logminer_files.append(name)

    def _start_logmnr(self, args: Mapping[str, Any]) -> None:
        if not self.connection.logminer_files:
            raise_oracle_error(
                1292, "no log file has been specified for the current LogMiner session"
            )
        start, end = int(args["startscn"]), int(args["endscn"])
        # ORA-01291 now, as Oracle does, when the added logs miss part of the range.
        self.db.logminer_contents(
            start, min(end, self.db.current_scn()), log_names=self.connection.logminer_files
        )
        self.connection.logminer_range = (start, end)

    def _end_logmnr(self) -> None:
        if not self.connection.logminer_files and self.connection.logminer_range is None:
            raise_oracle_error(1307, "no LogMiner session is currently active")
        self.connection.logminer_files = []
        self.connection.logminer_range = None

    # -- helpers --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.connection.closed:
            raise_oracle_error(3114, "not connected to ORACLE")

    def _set_result(self, rows: list[Row], description: list[tuple[Any, ...]] | None) -> None:
        self._rows = rows
        self._position = 0
        self.rowcount = len(rows)
        width = len(rows[0]) if rows else 0
        self._description = description or [
            (f"COLUMN_{i + 1}", None, None, None, None, None, True) for i in range(width)
        ]


def _check_binds(text: str, binds: Mapping[str, Any]) -> None:
    wanted = set(_BIND.findall(_without_literals(text)))
    if wanted != set(binds):
        raise_oracle_error(
            1008, f"not all variables bound (statement wants {sorted(wanted)}, got {sorted(binds)})"
        )


def _without_literals(text: str) -> str:
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def _like_regex(pattern: str) -> re.Pattern[str]:
    """A LIKE pattern with ``\\`` as escape character, as a regular expression."""
    out = []
    index = 0
    while index < len(pattern):
        ch = pattern[index]
        if ch == "\\" and index + 1 < len(pattern):
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        index += 1
    return re.compile("^" + "".join(out) + "$", re.DOTALL)


def _selected(row: LogMinerRow, owner_list: str, table_list: str) -> bool:
    """The WHERE clause of queries.LOGMNR_CONTENTS (INSTR on the comma lists)."""
    if row.operation_code in (6, 7, 34, 36):
        return True
    if row.seg_owner is None:
        return False
    if row.operation_code == 5 and f",{row.seg_owner}," in owner_list:
        return True
    return row.table_name is not None and f",{row.seg_owner}.{row.table_name}," in table_list


def _contents_tuple(row: LogMinerRow) -> Row:
    """The row in LOGMNR_CONTENTS' select-list order (timestamps as TO_CHAR gives them)."""
    return (
        row.scn, row.start_scn, row.commit_scn, row.timestamp, row.commit_timestamp, row.xid,
        row.operation, row.operation_code, row.seg_owner, row.table_name, row.row_id, row.rs_id,
        row.ssn, row.csf, row.rollback, row.status, row.info, row.username, row.sql_redo,
    )  # fmt: skip


def _fetched(value: object, utc_expression: bool) -> object:
    """What python-oracledb returns for the snapshot expression: SYS_EXTRACT_UTC is naive."""
    if utc_expression and isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


__all__ = ["SimConnection", "SimCursor", "UnknownStatementError"]
