"""The Source over a DB-API connection to Oracle (python-oracledb, or the simulator's face).

All work runs on the one connection it is given: the session NLS is set once on it, and each
LogMiner window is a session on it. Dictionary entries are cached per table until
``refresh_table``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pyarrow as pa

from extractor.dictionary import SupplementalLogging, TableDef
from extractor.logminer_row import LogMinerRow
from extractor.nls import NlsSettings
from extractor.source.base import RedoLogInUse, SnapshotPoint
from extractor.source.errors import SourceError
from extractor.source.oracle import dictionary, queries, redo_logs
from extractor.source.oracle.errors import full_code, raise_unhandled
from extractor.source.oracle.logminer_session import (
    DEFAULT_ARRAYSIZE,
    contents_rows,
    logminer_session,
)
from extractor.source.oracle.snapshot import read_snapshot

log = logging.getLogger(__name__)


class OracleSource:
    """A :class:`~extractor.source.base.Source` reading Oracle through ``connection``."""

    def __init__(
        self,
        connection: Any,
        *,
        nls: NlsSettings | None = None,
        logminer_arraysize: int = DEFAULT_ARRAYSIZE,
    ) -> None:
        self._connection = connection
        self._nls = nls or NlsSettings()
        self._arraysize = logminer_arraysize
        self._tables: dict[tuple[str, str], TableDef] = {}
        self._database_logging: SupplementalLogging | None = None
        self._window_logs: tuple[RedoLogInUse, ...] = ()
        _check_nls(self._nls)
        self._run("ALTER SESSION", lambda cur: cur.execute(self._nls.alter_session_sql()))

    @property
    def nls(self) -> NlsSettings:
        return self._nls

    @property
    def connection(self) -> Any:
        return self._connection

    def current_scn(self) -> int:
        return int(self._fetch_value(queries.CURRENT_SCN, {}, "the current SCN query"))

    def list_tables(
        self, patterns: Sequence[tuple[str, str]] = (), names: Sequence[tuple[str, str]] = ()
    ) -> list[TableDef]:
        found = set(
            self._run("the table list query", lambda c: dictionary.list_table_names(c, patterns))
        )
        found.update((owner.upper(), name.upper()) for owner, name in names)
        return [self.table(owner, name) for owner, name in sorted(found)]

    def table(self, owner: str, name: str) -> TableDef:
        key = (owner, name)
        cached = self._tables.get(key)
        if cached is None:
            level = self._database_supplemental_logging()
            cached = self._run(
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
        # Read the SCN before V$TRANSACTION: a transaction that starts after that read has a
        # START_SCN at or above it, so mining from min(open starts, that SCN) sees it whole.
        before = self.current_scn()
        oldest_open = self._fetch_value(
            queries.OPEN_TRANSACTIONS_START_SCN, {"at_scn": before}, "the V$TRANSACTION query"
        )
        scn = self.current_scn()
        start = before if oldest_open is None else min(int(oldest_open), before)
        return SnapshotPoint(scn=scn, mining_start_scn=start)

    def open_transaction_start_scn(self, at_scn: int) -> int | None:
        """From V$TRANSACTION now: transactions open at ``at_scn`` that have committed since
        are not listed; :meth:`snapshot_point` avoids that race."""
        value = self._fetch_value(
            queries.OPEN_TRANSACTIONS_START_SCN, {"at_scn": at_scn}, "the V$TRANSACTION query"
        )
        return None if value is None else int(value)

    def snapshot_batches(
        self, table: TableDef, scn: int, batch_rows: int, after_rowid: str | None = None
    ) -> Iterator[pa.RecordBatch]:
        return read_snapshot(self._connection, table, scn, batch_rows, after_rowid)

    def mine(
        self, start_scn: int, end_scn: int, tables: Sequence[TableDef]
    ) -> AbstractContextManager[Iterator[LogMinerRow]]:
        return self._mine(start_scn, end_scn, tables)

    @contextmanager
    def _mine(
        self, start_scn: int, end_scn: int, tables: Sequence[TableDef]
    ) -> Iterator[Iterator[LogMinerRow]]:
        candidates = self._run(
            "the redo log queries",
            lambda c: redo_logs.read_log_catalog(c, start_scn, end_scn),
        )
        logs = redo_logs.select_logs(candidates, start_scn, end_scn)
        self._window_logs = tuple(
            RedoLogInUse(r.thread, r.sequence, r.name, r.online) for r in logs
        )
        log.debug("mining SCN %d..%d from %d log(s)", start_scn, end_scn, len(logs))
        with logminer_session(self._connection, logs, start_scn, end_scn) as cursor:
            yield contents_rows(cursor, start_scn, end_scn, tables, self._arraysize)

    def last_window_logs(self) -> Sequence[RedoLogInUse]:
        return self._window_logs

    def close(self) -> None:
        self._connection.close()

    def _database_supplemental_logging(self) -> SupplementalLogging:
        if self._database_logging is None:
            self._database_logging = self._run(
                "the V$DATABASE query", dictionary.database_supplemental_logging
            )
        return self._database_logging

    def _fetch_value(self, statement: str, binds: dict[str, object], what: str) -> Any:
        def fetch(cursor: Any) -> Any:
            cursor.execute(statement, binds)
            row = cursor.fetchone()
            return None if row is None else row[0]

        return self._run(what, fetch)

    def _run(self, what: str, work: Any) -> Any:
        cursor = self._connection.cursor()
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


def _check_nls(nls: NlsSettings) -> None:
    for value in nls.to_json().values():
        if "'" in value:
            raise SourceError(
                f"NLS setting {value!r} holds a quote", fix="fix the nls section of oracdc.yml"
            )
