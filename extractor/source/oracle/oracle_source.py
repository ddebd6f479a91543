"""The Source over a DB-API connection to Oracle (python-oracledb, or the simulator's face).

Mining runs on the connection it is given: the session NLS is set once on it, and each
LogMiner window is a session on it. The dictionary and snapshot reads run on the catalog
connection: the same one, except for a session in CDB$ROOT mining one PDB, whose second
connection is switched into that PDB (:mod:`extractor.source.oracle.container`). Dictionary
entries are cached per table until ``refresh_table``.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any, cast

import pyarrow as pa

from extractor.dictionary import SupplementalLogging, TableDef
from extractor.errors import MissingRedoLogError, SourceError, TableNotFoundError
from extractor.incarnation import PdbIncarnation, SourceIncarnation
from extractor.logminer_row import LogMinerRow, OperationCode
from extractor.nls import NlsSettings
from extractor.parse.ddl_statements import drops_table, table_rename
from extractor.source.base import RedoLogInUse, SnapshotPoint
from extractor.source.oracle import dictionary, queries, redo_logs
from extractor.source.oracle.container import (
    WHOLE_DATABASE,
    MiningScope,
    enter_pdb,
    mining_scope,
    read_container,
    server_release,
)
from extractor.source.oracle.driver_errors import full_code, raise_unhandled
from extractor.source.oracle.logminer_session import (
    DEFAULT_ARRAYSIZE,
    DEFAULT_RETRY_ATTEMPTS,
    DEFAULT_RETRY_DELAY_SECONDS,
    contents_rows,
    logminer_session,
    parse_utc_offset,
    retryable_code,
)
from extractor.source.oracle.snapshot import (
    DEFAULT_CHUNK_BLOCKS,
    count_rows_as_of,
    read_row_as_of,
    read_snapshot,
)

log = logging.getLogger(__name__)
ROW_ARCHIVAL_RELEASE = (12, 1)  # In-Database Archiving (ROW ARCHIVAL) came with 12c
_DDL = int(OperationCode.DDL)
_NOT_READABLE = frozenset({"ORA-00942", "ORA-01031"})  # no such view here, or no grant


class OracleSource:
    """A :class:`~extractor.source.base.Source` reading Oracle through ``connection``."""

    def __init__(
        self,
        connection: Any,
        *,
        catalog_connection: Any = None,
        scope: MiningScope = WHOLE_DATABASE,
        nls: NlsSettings | None = None,
        logminer_arraysize: int = DEFAULT_ARRAYSIZE,
        snapshot_chunk_blocks: int = DEFAULT_CHUNK_BLOCKS,
        retry_attempts: int = DEFAULT_RETRY_ATTEMPTS,
        retry_delay_seconds: float = DEFAULT_RETRY_DELAY_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._connection = connection
        self._catalog_connection = connection if catalog_connection is None else catalog_connection
        self._scope = scope
        self._retry_attempts = retry_attempts
        self._retry_delay_seconds = retry_delay_seconds
        self._sleep = sleep
        self._snapshot_chunk_blocks = snapshot_chunk_blocks
        self._nls = nls or NlsSettings()
        self._arraysize = logminer_arraysize
        self._tables: dict[tuple[str, str], TableDef] = {}
        self._database_logging: SupplementalLogging | None = None
        self._window_logs: tuple[RedoLogInUse, ...] = ()
        self._session_start: int | None = None  # of the last session
        self._session_starts_gone: set[int] = set()  # where a session could not start
        self._objects: dict[int, tuple[str, str]] = {}  # OBJECT_ID -> (owner, table) mined
        self._objects_read: set[tuple[str, str]] = set()  # tables whose OBJECT_ID was read
        # Tables with a DDL row since their OBJECT_ID was read (a DROP and CREATE gives the
        # name a new one): read again before the next window.
        self._objects_to_reread: set[tuple[str, str]] = set()
        # Partitioned tables: their OBJECT_IDs are read again before every window, as an
        # interval (or automatic list) partition is created with no DDL row of the table.
        self._partitioned: set[tuple[str, str]] = set()
        self._dropped_objects: set[int] = set()  # OBJECT_IDs gone from the catalog
        self._pdb_unreadable_said = False  # warned that V$PDB_INCARNATION cannot be read
        _check_nls(self._nls)
        self._run("ALTER SESSION", lambda cur: cur.execute(self._nls.alter_session_sql()))
        if self._catalog_connection is not connection:
            self._catalog("ALTER SESSION", lambda cur: cur.execute(self._nls.alter_session_sql()))
        release = server_release(getattr(self._catalog_connection, "version", None))
        if release >= ROW_ARCHIVAL_RELEASE or release == (0, 0):  # (0, 0): unknown, try
            # archived rows of ROW ARCHIVAL tables too, as the redo has them (docs/types.md)
            self._catalog("ROW ARCHIVAL VISIBILITY", lambda c: c.execute(queries.SEE_ARCHIVED_ROWS))

    @property
    def nls(self) -> NlsSettings:
        return self._nls

    @property
    def connection(self) -> Any:
        """The mining connection (V$ views, LogMiner)."""
        return self._connection

    @property
    def catalog_connection(self) -> Any:
        """The connection in the tables' container (dictionary, ``AS OF`` reads)."""
        return self._catalog_connection

    @property
    def scope(self) -> MiningScope:
        return self._scope

    def current_scn(self) -> int:
        return int(self._fetch_value(queries.CURRENT_SCN, {}, "the current SCN query"))

    @property
    def snapshots_at_any_scn(self) -> bool:
        return True

    def incarnation(self) -> SourceIncarnation:
        """The database's incarnation (V$DATABASE) and, when the tables are in a PDB, the
        PDB's (V$PDB_INCARNATION, asked in the PDB; None, with a warning once, when it
        cannot be read: a PDB flashback is then not seen)."""

        def fetch(cursor: Any) -> SourceIncarnation:
            cursor.execute(queries.INCARNATION, {})
            dbid, resetlogs_change, resetlogs_time = cursor.fetchone()
            return SourceIncarnation(int(dbid), int(resetlogs_change), str(resetlogs_time))

        database: SourceIncarnation = self._run("the V$DATABASE incarnation query", fetch)
        if not self._scope.in_pdb:
            return database
        pdb: PdbIncarnation | None = self._catalog("the V$PDB_INCARNATION query", self._pdb)
        return database if pdb is None else replace(database, pdb=pdb)

    def _pdb(self, cursor: Any) -> PdbIncarnation | None:
        try:
            cursor.execute(queries.PDB_INCARNATION, {})
            row = cursor.fetchone()
        except Exception as error:
            if full_code(error) not in _NOT_READABLE:
                raise
            reason = f"it cannot be read ({full_code(error)})"
        else:
            if row is not None:
                dbid, number, scn, opened_scn = row
                return PdbIncarnation(int(dbid), int(number), int(scn), int(opened_scn))
            reason = "it has no CURRENT row for the PDB"
        if not self._pdb_unreadable_said:
            self._pdb_unreadable_said = True
            log.warning(
                "V$PDB_INCARNATION: %s, so a flashback of the PDB is not seen; fix: GRANT "
                "SELECT ON V_$PDB_INCARNATION to the extractor's user in the PDB "
                "(SELECT_CATALOG_ROLE covers it), then oracdc check",
                reason,
            )
        return None

    def minable_scn(self) -> int:
        """MIN(LAST_REDO_CHANGE#) of the open redo threads (the current SCN if none is)."""
        written = self._fetch_value(queries.MINABLE_SCN, {}, "the V$THREAD query")
        return self.current_scn() if written is None else int(written)

    def list_tables(
        self, patterns: Sequence[tuple[str, str]] = (), names: Sequence[tuple[str, str]] = ()
    ) -> list[TableDef]:
        found = set(
            self._catalog(
                "the table list query", lambda c: dictionary.list_table_names(c, patterns)
            )
        )
        found.update((owner.upper(), name.upper()) for owner, name in names)
        return [self.table(owner, name) for owner, name in sorted(found)]

    def table(self, owner: str, name: str) -> TableDef:
        key = (owner, name)
        cached = self._tables.get(key)
        if cached is None:
            level = self._database_supplemental_logging()
            cached = self._catalog(
                f"the dictionary queries of {owner}.{name}",
                lambda c: dictionary.read_table(c, owner, name, level),
            )
            self._tables[key] = cached
        return cached

    def refresh_table(self, owner: str, name: str) -> TableDef:
        self._tables.pop((owner, name), None)
        self._database_logging = None
        return self.table(owner, name)

    def snapshot_point(self, tables: Sequence[TableDef]) -> SnapshotPoint:
        # Read the SCN before GV$TRANSACTION (every RAC instance's transactions): one that
        # starts after that read has a START_SCN at or above it, so mining from min(open
        # starts, that SCN) sees it whole.
        before = self.current_scn()
        oldest_open = self.open_transaction_start_scn(before)
        scn = self.current_scn()
        start = before if oldest_open is None else min(int(oldest_open), before)
        return SnapshotPoint(scn=scn, mining_start_scn=start)

    def open_transaction_start_scn(self, at_scn: int) -> int | None:
        """From GV$TRANSACTION now: transactions open at ``at_scn`` that have committed since
        are not listed; :meth:`snapshot_point` avoids that race."""
        value = self._fetch_value(
            queries.OPEN_TRANSACTIONS_START_SCN,
            {"at_scn": at_scn},
            "the GV$TRANSACTION query",
            self._catalog_connection,  # in the PDB: a root session sees its own only
        )
        return None if value is None else int(value)

    def snapshot_batches(
        self, table: TableDef, scn: int, batch_rows: int, after_rowid: str | None = None
    ) -> Iterator[pa.RecordBatch]:
        return read_snapshot(
            self._catalog_connection,
            table,
            scn,
            batch_rows,
            after_rowid,
            chunk_blocks=self._snapshot_chunk_blocks,
        )

    def snapshot_row_count(self, table: TableDef, scn: int) -> int:
        """How many rows ``table`` holds as of ``scn`` (a snapshot's check of its read)."""
        count: int = self._catalog(
            f"the row count of {table.qualified_name} as of SCN {scn}",
            lambda c: count_rows_as_of(c, table, scn),
        )
        return count

    def row_as_of(self, table: TableDef, row_id: str, scn: int) -> dict[str, object] | None:
        """One row by ROWID ``AS OF`` ``scn`` (None: no row there then); used to tell apart
        the readings of an ambiguous SQL_REDO statement."""
        row: dict[str, object] | None = self._catalog(
            f"the AS OF read of one row of {table.qualified_name}",
            lambda c: read_row_as_of(c, table, scn, row_id),
        )
        return row

    def mine(
        self,
        start_scn: int,
        end_scn: int,
        tables: Sequence[TableDef],
        session_start_scn: int | None = None,
    ) -> AbstractContextManager[Iterator[LogMinerRow]]:
        session_start = start_scn if session_start_scn is None else session_start_scn
        return self._mine(start_scn, end_scn, tables, min(session_start, start_scn))

    @contextmanager
    def _mine(
        self, start_scn: int, end_scn: int, tables: Sequence[TableDef], session_start_scn: int
    ) -> Iterator[Iterator[LogMinerRow]]:
        rows = self._rows_with_retries(start_scn, end_scn, tables, session_start_scn)
        try:
            # The session starts (and fails: a missing log) on entry, as before any row.
            first = next(rows, None)
            yield rows if first is None else itertools.chain((first,), rows)
        finally:
            rows.close()  # ends the LogMiner session when the caller stops early

    def _rows_with_retries(
        self, start_scn: int, end_scn: int, tables: Sequence[TableDef], session_start_scn: int
    ) -> Generator[LogMinerRow, None, None]:
        """The window's rows, from a session started at ``session_start_scn``; a transient
        error (logminer_session.RETRYABLE_CODES) starts a new session there, after a
        doubling delay, at most ``retry_attempts`` times, whose rows are read from where the
        rows stopped. Rows come in SCN order: it reads from the SCN of the last row handed on
        and skips the rows of that SCN already handed on (by identity: see _Position).

        When the session cannot start at ``session_start_scn`` for redo missing below the
        rows' start (the log selection says so; ORA-01291 from ``START_LOGMNR`` does not say
        where), a session where the rows are read from is tried at once, before any retry:
        the redo back to the oldest open transaction may be gone while the window's is not.
        If that one fails too, the retries go on from ``session_start_scn``."""
        position = _Position(start_scn)
        failures = 0
        given_up: tuple[int, str] | None = None  # (session start, why) while its fallback runs
        while True:
            try:
                self._session_start = session_start_scn
                with self._session(session_start_scn, position.scn, end_scn, tables) as rows:
                    if given_up is not None:  # the fallback session started: say so, once
                        self._warn_session_start_gone(*given_up, position.scn)
                        given_up = None
                    for row in rows:
                        if position.is_new(row):
                            if row.operation_code == _DDL:
                                self._after_ddl(row)
                            yield row
                if self._objects_to_reread:  # now, so that the window's checkpoint has them
                    self._object_ids(tables)
                return
            except SourceError as error:
                if (
                    given_up is None
                    and session_start_scn < position.scn
                    and _missing_below(error, position.scn)
                ):
                    given_up = (session_start_scn, cast(MissingRedoLogError, error).detail)
                    session_start_scn = position.scn
                    position.restart()
                    continue
                if given_up is not None:  # the rows' own redo is missing too
                    session_start_scn, given_up = given_up[0], None
                code = retryable_code(error)
                if code is None or failures >= self._retry_attempts:
                    raise
                delay = self._retry_delay_seconds * 2**failures
                failures += 1
                log.warning(
                    "mining SCN %d..%d failed with %s; retry %d of %d from SCN %d in %.1f s",
                    start_scn, end_scn, code, failures, self._retry_attempts, position.scn, delay,
                )  # fmt: skip
                self._sleep(delay)
                position.restart()

    def _warn_session_start_gone(
        self, session_start_scn: int, why: str, read_from_scn: int
    ) -> None:
        """Said once per session start: while the oldest open transaction stays open, every
        window meets it again."""
        if session_start_scn in self._session_starts_gone:
            return
        self._session_starts_gone.add(session_start_scn)
        log.warning(
            "LogMiner cannot start at SCN %d, the first SCN of the oldest open transaction "
            "(%s): windows are mined from their own start while it stays open. LogMiner may "
            "then show its changes, or the undo of its rolled-back changes, as UNSUPPORTED "
            "(quarantined, or a rolled-back change landed), and a restart cannot resume "
            "before it ends; restore the logs from SCN %d (oracdc status lists the "
            "transaction)",
            session_start_scn, why, session_start_scn,
            extra={"session_start_scn": session_start_scn, "read_from_scn": read_from_scn},
        )  # fmt: skip

    def last_session_start_scn(self) -> int | None:
        """Where the last ``mine``'s LogMiner session started (None before the first)."""
        return self._session_start

    def check_redo_available(self, start_scn: int, end_scn: int) -> bool:
        """MissingRedoLogError when the redo logs do not cover ``start_scn..end_scn``: the
        check ``mine`` makes before it starts LogMiner, without starting it. False when it
        cannot be made (mining inside a PDB, where LogMiner finds its own logs)."""
        if not self._scope.add_logs:
            return False
        candidates = self._run(
            "the redo log queries", lambda c: redo_logs.read_log_catalog(c, start_scn, end_scn)
        )
        threads = self._run("the V$THREAD query", redo_logs.read_threads)
        redo_logs.select_logs(candidates, start_scn, end_scn, threads)
        return True

    @contextmanager
    def _session(
        self, session_start_scn: int, start_scn: int, end_scn: int, tables: Sequence[TableDef]
    ) -> Iterator[Iterator[LogMinerRow]]:
        """A LogMiner session over ``session_start_scn..end_scn`` (its logs added) yielding
        the rows of ``start_scn..end_scn``."""
        logs: list[redo_logs.RedoLog] = []
        if self._scope.add_logs:
            candidates = self._run(
                "the redo log queries",
                lambda c: redo_logs.read_log_catalog(c, session_start_scn, end_scn),
            )
            threads = self._run("the V$THREAD query", redo_logs.read_threads)
            logs = redo_logs.select_logs(candidates, session_start_scn, end_scn, threads)
        self._window_logs = tuple(
            RedoLogInUse(r.thread, r.sequence, r.name, r.online) for r in logs
        )
        log.debug(
            "mining SCN %d..%d in a session from SCN %d, %d log(s)",
            start_scn, end_scn, session_start_scn, len(logs),
        )  # fmt: skip
        object_ids = self._object_ids(tables)
        offset = self.server_utc_offset()  # per window: follows a daylight saving change
        with logminer_session(self._connection, logs, session_start_scn, end_scn) as cursor:
            # DDL of every owner with a table replicated before (a dropped table is no longer
            # listed; its DROP, or a CREATE again, must still be mined)
            remembered = {owner for owner, _ in self._objects.values()}
            yield contents_rows(
                cursor, start_scn, end_scn, tables, self._arraysize, object_ids, offset,
                self._scope.pdb, sorted(remembered),
            )  # fmt: skip

    def server_utc_offset(self) -> timedelta:
        """The server's OS time zone offset now: V$LOGMNR_CONTENTS timestamps are in it."""
        text = self._fetch_value(queries.SERVER_UTC_OFFSET, {}, "the server time zone query")
        return parse_utc_offset(str(text))

    def table_for_object(self, object_id: int) -> tuple[str, str] | None:
        """(owner, table) of a mined table by its OBJECT_ID (DATA_OBJ# of its redo rows)."""
        return self._objects.get(object_id)

    def mined_objects(self) -> Mapping[int, tuple[str, str]]:
        """Every OBJECT_ID -> (owner, table) learnt so far (a copy; it only grows): the
        mining process sends it to the extracting process (``mining_process``)."""
        return dict(self._objects)

    def table_object_ids(self, owner: str, name: str) -> tuple[int, ...]:
        """The OBJECT_IDs of the table and of its partitions and subpartitions now (empty
        when it does not exist)."""
        try:
            object_ids: tuple[int, ...] = self._catalog(
                f"the object id query of {owner}.{name}",
                lambda c: dictionary.table_object_ids(c, owner, name),
            )
        except TableNotFoundError:
            return ()
        return object_ids

    def remember_objects(self, objects: Mapping[int, tuple[str, str]]) -> None:
        """OBJECT_IDs a table had (kept in the checkpoint): rows of a table dropped or
        renamed since, still to be mined, carry them. A table's current id is read anyway."""
        for object_id, table in objects.items():
            self._objects.setdefault(object_id, table)

    def _after_ddl(self, row: LogMinerRow) -> None:
        """A DDL row passed: its table's OBJECT_ID is read again before the next window.
        A DROP TABLE forgets the table's ids: every row of the dropped table came before it
        (an open transaction holding one of its rows blocks the drop). A rename moves the
        ids of the old name to the new one: the renamed table's later rows (and earlier
        ones, which LogMiner names by the new name) are not the old name's."""
        renamed = table_rename(row.sql_redo, row.seg_owner)
        if renamed is None:
            if row.table_name is None:
                return
            table = (row.seg_owner or "", row.table_name)
            self._reread_if_mined(table)
            if drops_table(row.sql_redo):
                for dropped in [n for n, named in self._objects.items() if named == table]:
                    del self._objects[dropped]
            return
        owner, old, new = renamed
        for object_id, table in self._objects.items():
            if table == (owner, old):
                self._objects[object_id] = (owner, new)
        self._reread_if_mined((owner, old))
        self._reread_if_mined((owner, new))

    def _reread_if_mined(self, table: tuple[str, str]) -> None:
        """Read the OBJECT_ID of ``table`` again if it is read at all (a mined table)."""
        if table in self._objects_read:
            self._objects_to_reread.add(table)

    def object_dropped(self, object_id: int) -> bool:
        """True when no object has OBJECT_ID ``object_id`` any more: a dropped table, purged
        (one in the recycle bin keeps its id under its ``BIN$…`` name). Ids are not reused,
        so a dropped one is remembered."""
        if object_id in self._dropped_objects:
            return True
        exists = self._catalog(
            f"the query of object {object_id}",
            lambda c: dictionary.object_exists(c, object_id),
        )
        if not exists:
            self._dropped_objects.add(object_id)
        return not exists

    def _object_ids(self, tables: Sequence[TableDef]) -> list[int]:
        """The OBJECT_IDs of ``tables`` for the mining query: each table's current ones (its
        partitions' and subpartitions' too), read once and again after a DDL row of it (a
        table dropped and created again under its name has a new one; a partition added or
        split has one), before every window for a partitioned table (an interval partition
        comes with no DDL row); and earlier ones (remembered, or read before) until its DROP
        TABLE passes (:meth:`_after_ddl`): rows of a dropped table (or partition) mined after
        its drop carry its old id. Read after the window's end SCN is fixed, so every
        partition that holds a row of the window is listed, unless dropped since."""
        listed = {(t.owner, t.name) for t in tables}
        for gone in self._objects_to_reread - listed:  # read afresh if it is listed again
            self._objects_to_reread.discard(gone)
            self._objects_read.discard(gone)
        for table in tables:
            key = (table.owner, table.name)
            if (
                key in self._objects_read
                and key not in self._objects_to_reread
                and key not in self._partitioned
            ):
                continue
            self._objects_to_reread.discard(key)
            self._objects_read.add(key)
            # none: dropped since it was listed: mined by name (and old ids)
            object_ids = self.table_object_ids(table.owner, table.name)
            for object_id in object_ids:
                self._objects[object_id] = key
            if len(object_ids) > 1:
                self._partitioned.add(key)
            else:
                self._partitioned.discard(key)
        return sorted(n for n, key in self._objects.items() if key in listed)

    def last_window_logs(self) -> Sequence[RedoLogInUse]:
        return self._window_logs

    def close(self) -> None:
        try:
            if self._catalog_connection is not self._connection:
                self._catalog_connection.close()
        finally:
            self._connection.close()

    def _database_supplemental_logging(self) -> SupplementalLogging:
        if self._database_logging is None:
            self._database_logging = self._catalog(
                "the V$DATABASE query", dictionary.database_supplemental_logging
            )
        return self._database_logging

    def _fetch_value(
        self, statement: str, binds: dict[str, object], what: str, connection: Any = None
    ) -> Any:
        def fetch(cursor: Any) -> Any:
            cursor.execute(statement, binds)
            row = cursor.fetchone()
            return None if row is None else row[0]

        return self._run(what, fetch, connection)

    def _catalog(self, what: str, work: Any) -> Any:
        """``work`` on the catalog connection (see :meth:`_run`)."""
        return self._run(what, work, self._catalog_connection)

    def _run(self, what: str, work: Any, connection: Any = None) -> Any:
        """``work(cursor)`` on the mining connection (or ``connection``); an Oracle error
        becomes a SourceError naming ``what``."""
        cursor = (connection or self._connection).cursor()
        try:
            return work(cursor)
        except SourceError:
            raise
        except Exception as error:
            if full_code(error) is None:
                raise
            raise_unhandled(error, what)
        finally:
            cursor.close()


def _missing_below(error: SourceError, read_from_scn: int) -> bool:
    """Whether ``error`` may be redo missing below ``read_from_scn`` only: the log selection's
    gap ends below it, or ``START_LOGMNR`` failed with ORA-01291 (it does not say where)."""
    if not isinstance(error, MissingRedoLogError):
        return False
    if error.last_scn is not None and error.last_scn < read_from_scn:
        return True
    return retryable_code(error) == "ORA-01291"


class _Position:
    """Where a window's rows stopped: the SCN of the last row handed on and which rows of that
    SCN were handed on. A restarted session from that SCN skips those rows by identity, not
    by count: on RAC, LogMiner's merge of several threads' rows at one SCN is not documented
    to be the same in every session."""

    def __init__(self, start_scn: int) -> None:
        self.scn = start_scn
        self._handed_on: Counter[tuple[object, ...]] = Counter()  # rows of self.scn handed on
        self._to_skip: Counter[tuple[object, ...]] = Counter()  # of those, not yet seen again

    def is_new(self, row: LogMinerRow) -> bool:
        if row.scn != self.scn:
            self.scn, self._handed_on, self._to_skip = row.scn, Counter(), Counter()
        identity = _identity(row)
        if self._to_skip[identity] > 0:
            self._to_skip[identity] -= 1
            return False
        self._handed_on[identity] += 1
        return True

    def restart(self) -> None:
        self._to_skip = Counter(self._handed_on)


def _identity(row: LogMinerRow) -> tuple[object, ...]:
    """A row as two sessions both show it: the XID's undo segment and slot (a later session
    may show the sequence as FFFFFFFF), its redo record and piece, and its content."""
    return (row.xid[:8].upper(), row.rs_id, row.ssn, row.csf, row.operation_code,
            row.rollback, row.row_id, row.sql_redo)  # fmt: skip


def _check_nls(nls: NlsSettings) -> None:
    for value in nls.to_json().values():
        if "'" in value:
            raise SourceError(
                f"NLS setting {value!r} holds a quote", fix="fix the nls section of oracdc.yml"
            )


def open_oracle_source(
    connect: Callable[[], Any],
    *,
    pdb: str | None = None,
    source_class: type[OracleSource] | None = None,
    **options: Any,
) -> OracleSource:
    """An OracleSource on ``connect()``, in the mining scope its container calls for
    (:func:`~extractor.source.oracle.container.mining_scope`): a session in CDB$ROOT with
    ``pdb`` gets a second ``connect()`` switched into that PDB for the catalog. ``options``
    go to :class:`OracleSource`, or to ``source_class``, a subclass of it."""
    connection = connect()
    catalog = None
    try:
        scope = mining_scope(read_container(connection), getattr(connection, "version", None), pdb)
        if scope.pdb is not None:
            catalog = connect()
            enter_pdb(catalog, scope.pdb)
        log.info("Oracle source: %s", scope.describe())
        make = OracleSource if source_class is None else source_class
        return make(connection, catalog_connection=catalog, scope=scope, **options)
    except BaseException:
        if catalog is not None:
            catalog.close()
        connection.close()
        raise
