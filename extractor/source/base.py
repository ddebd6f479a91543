"""The ``Source`` protocol: what the extraction loop asks of Oracle, the simulator or a bundle.

Conventions every implementation follows:

- SCN ranges are inclusive at both ends, as ``DBMS_LOGMNR.START_LOGMNR`` mines them.
- ``snapshot_point`` gives the snapshot SCN ``S`` and the SCN to start mining from so that
  transactions open at ``S`` are seen from their first change (reference §4); the loop emits
  only transactions whose COMMIT SCN is above ``S``.
- Snapshot batches are read in ROWID order. Every batch carries the Oracle columns (lower-case
  names, Arrow types from :func:`~extractor.source.arrow_schema.arrow_schema`) plus
  ``_row_id``; its last ``_row_id`` is the resume token: a crash after landing a batch resumes
  with ``after_rowid=<that ROWID>`` and reads only the rows after it.
- ``mine`` yields the V$LOGMNR_CONTENTS rows of one window (one LogMiner session, all
  tables, started at the oldest open transaction's first SCN or the window's start): START
  (6), COMMIT (7), ROLLBACK (36) and MISSING_SCN (34) rows of every transaction, DDL (5)
  rows of the configured owners, and every row of the given tables, in LogMiner's order.
  The session ends when the context manager exits, also on errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import pyarrow as pa

from extractor.dictionary import TableDef
from extractor.errors import (
    MissingRedoLogError,
    SnapshotTooOldError,
    SourceConnectionError,
    SourceError,
    TableNotFoundError,
)
from extractor.incarnation import SourceIncarnation
from extractor.logminer_row import LogMinerRow
from extractor.nls import NlsSettings

__all__ = [
    "MissingRedoLogError",
    "RedoLogInUse",
    "SnapshotPoint",
    "SnapshotTooOldError",
    "Source",
    "SourceConnectionError",
    "SourceError",
    "TableNotFoundError",
]


@dataclass(frozen=True)
class SnapshotPoint:
    """A consistent snapshot SCN and the SCN from which mining must start (inclusive).

    ``table_scns`` (``OWNER.TABLE`` -> SCN) names tables whose snapshot is at another SCN
    than ``scn`` (a replay bundle's own snapshot files); ``mining_start_scn`` then covers the
    handover of every table. Oracle snapshots all tables asked for together at ``scn``.
    """

    scn: int
    mining_start_scn: int
    table_scns: Mapping[str, int] = field(default_factory=dict)

    def scn_of(self, table: TableDef) -> int:
        """The snapshot SCN of ``table``: its changes committed at or before it are dropped."""
        return self.table_scns.get(table.qualified_name, self.scn)


@dataclass(frozen=True, slots=True)
class RedoLogInUse:
    """One redo log file a LogMiner window read."""

    thread: int
    sequence: int
    name: str
    online: bool

    def describe(self) -> str:
        kind = "online" if self.online else "archived"
        return f"thread {self.thread} sequence {self.sequence} ({kind}) {self.name}".rstrip()


@runtime_checkable
class Source(Protocol):
    """A readable Oracle: dictionary, snapshots AS OF an SCN, LogMiner rows by SCN window."""

    @property
    def nls(self) -> NlsSettings:
        """The NLS settings under which ``mine`` renders SQL_REDO."""
        ...

    def current_scn(self) -> int:
        """V$DATABASE.CURRENT_SCN (a bundle: its largest recorded SCN)."""
        ...

    @property
    def snapshots_at_any_scn(self) -> bool:
        """True when a table can be snapshotted again at the current SCN (a database);
        False for a replay bundle, which holds each table at one SCN only."""
        ...

    def incarnation(self) -> SourceIncarnation | None:
        """V$DATABASE.DBID, RESETLOGS_CHANGE# and RESETLOGS_TIME: the database and its
        incarnation (None: the source cannot tell, a replay bundle)."""
        ...

    def minable_scn(self) -> int:
        """The highest SCN whose redo every open thread has written (V$THREAD
        LAST_REDO_CHANGE#; a bundle: its largest recorded SCN). A mining window never ends
        above it: LogMiner reads redo still in a log buffer as absent."""
        ...

    def list_tables(
        self, patterns: Sequence[tuple[str, str]] = (), names: Sequence[tuple[str, str]] = ()
    ) -> list[TableDef]:
        """Tables matching any ``(owner, table)`` wildcard pattern, plus the explicitly named
        ones (a named table that does not exist raises TableNotFoundError); sorted by
        owner and name, each listed once."""
        ...

    def table(self, owner: str, name: str) -> TableDef:
        """The dictionary entry of one table, cached after the first lookup."""
        ...

    def refresh_table(self, owner: str, name: str) -> TableDef:
        """Drop the cached entry (after DDL) and look the table up again."""
        ...

    def snapshot_point(self, tables: Sequence[TableDef]) -> SnapshotPoint:
        """The SCN to snapshot ``tables`` at (``SnapshotPoint.scn_of``: per table), and where
        mining must start for the handover of all of them."""
        ...

    def open_transaction_start_scn(self, at_scn: int) -> int | None:
        """The smallest START_SCN of transactions open at ``at_scn`` (None when none)."""
        ...

    def snapshot_batches(
        self, table: TableDef, scn: int, batch_rows: int, after_rowid: str | None = None
    ) -> Iterator[pa.RecordBatch]:
        """The committed rows of ``table`` as of ``scn``, in ROWID order, ``batch_rows`` at a
        time, starting after ``after_rowid`` when resuming. Raises SnapshotTooOldError."""
        ...

    def mine(
        self,
        start_scn: int,
        end_scn: int,
        tables: Sequence[TableDef],
        session_start_scn: int | None = None,
    ) -> AbstractContextManager[Iterator[LogMinerRow]]:
        """The rows of ``start_scn..end_scn`` (inclusive) for ``tables``, from one LogMiner
        session that starts at ``session_start_scn`` (<= ``start_scn``; default
        ``start_scn``): the first SCN of the oldest transaction still open, so that LogMiner
        reads every transaction it renders from its start. Raises MissingRedoLogError when
        redo for the rows' range is gone (with only the redo below ``start_scn`` gone, a
        source may start the session later instead: ``OracleSource``)."""
        ...

    def last_window_logs(self) -> Sequence[RedoLogInUse]:
        """The redo logs the last ``mine`` read (empty before the first window, or when the
        source has no log catalog)."""
        ...

    def close(self) -> None:
        """Release the connection or files; the source is unusable afterwards."""
        ...


@runtime_checkable
class WorkloadBetweenCycles(Protocol):
    """A source whose database changes between two sync cycles because the source itself
    runs the changes: the simulator's saved database (``source.transactions_per_cycle``).
    ``run_cycle`` asks it to go on before each cycle; a real Oracle changes on its own."""

    def advance_workload(self) -> int:
        """Run one cycle's changes; returns the transactions run."""
        ...
