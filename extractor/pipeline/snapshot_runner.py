"""Snapshots: every selected table not snapshotted yet is read ``AS OF`` one SCN (its own, for
a replay bundle's tables), chunk by chunk, each chunk checkpointed with its resume token, then
a reset marker retires every older version of the table (``docs/extraction.md``).

A table's snapshot at SCN S covers every transaction committed at or before S; the stream
runner drops that table's changes from those transactions and applies later ones (the
handover: mining starts at the oldest transaction open at S).

A table's first start follows its snapshot mode (``snapshot_modes``): ``no_data`` lands only
the reset marker at S. A table taken again (``pending`` in the checkpoint: row-moving DDL,
``oracdc snapshot --force``, a redo gap under ``when_needed``) is always read in full. When
every streamed table starts at once, mining restarts at the new handover, not below it: the
redo below may be gone, and the snapshots cover it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import (
    OracdcError,
    SnapshotTooOldError,
    TableDefinitionChangedError,
    TableNotFoundError,
)
from extractor.keys import consolidation_key
from extractor.land.staging_writer import StagingWriter
from extractor.pipeline.incarnation_guard import wait_for_scn_above
from extractor.pipeline.lander import Lander
from extractor.pipeline.progress import Progress
from extractor.pipeline.stats_observer import StatsObserver
from extractor.pipeline.table_registry import TableRegistry
from extractor.source.base import SnapshotPoint, Source
from extractor.state.checkpoint import Checkpoint, CheckpointStore, TableSnapshotState

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class SnapshotResult:
    tables: tuple[str, ...]
    rows: int
    retried: tuple[str, ...] = ()  # not read: taken again at a newer SCN (a WARNING says why)

    def then(self, later: SnapshotResult) -> SnapshotResult:
        tried = (*self.retried, *later.retried)
        retried = tuple(dict.fromkeys(n for n in tried if n not in later.tables))
        return SnapshotResult(self.tables + later.tables, self.rows + later.rows, retried)


class _ReadShortError(Exception):
    """A snapshot's read gave another number of rows than the source counts at its SCN."""

    def __init__(self, scn: int, rows_read: int, counted: int) -> None:
        super().__init__(scn, rows_read, counted)
        self.scn = scn
        self.rows_read = rows_read
        self.counted = counted


def _needs_start(checkpoint: Checkpoint, table: TableDef) -> bool:
    """Never started, or waiting to be snapshotted again."""
    state = checkpoint.tables.get(table.qualified_name)
    return state is None or state.status == "pending"


def snapshot_done(checkpoint: Checkpoint, table: TableDef) -> bool:
    state = checkpoint.tables.get(table.qualified_name)
    return state is not None and state.status == "done"


class SnapshotRunner:
    """Takes the snapshots the checkpoint lacks; ``on_new_tables`` is called when tables
    join (their changes need mining from the new handover point)."""

    def __init__(
        self,
        config: OracdcConfig,
        source: Source,
        registry: TableRegistry,
        store: CheckpointStore,
        writer: StagingWriter,
        lander: Lander,
        observer: StatsObserver,
        *,
        on_new_tables: Callable[[], None],
    ) -> None:
        self._config = config
        self._source = source
        self._registry = registry
        self._store = store
        self._writer = writer
        self._lander = lander
        self._observer = observer
        self._on_new_tables = on_new_tables
        self._read_short_before: set[str] = set()  # tables whose read fell short once

    def snapshot(self) -> SnapshotResult:
        """Snapshot every selected table not snapshotted yet (resuming a cut-off one)."""
        tables = self._registry.resolve()
        for name, missing in self._registry.missing.items():
            if name not in self._store.current.tables:
                raise missing  # never replicated: misspelt, or not visible to the user
        self._retire_dropped({t.qualified_name for t in tables})
        if not tables:
            raise OracdcError(
                "no table of the source matches the configured tables",
                fix="check the tables list in oracdc.yml (OWNER.TABLE, wildcards * and ?)",
            )
        changed = [t for t in tables if self._mode_changed(t)]
        if changed:
            self.take_again(changed, "its snapshot mode changed since it started")
        self._record_unknown_keys(tables)
        rekeyed = [t for t in tables if self._key_changed(t)]
        if rekeyed:
            self.take_again(rekeyed, "its replica's key changed since its snapshot (docs/keys.md)")
        checkpoint = self._store.current
        new = [t for t in tables if _needs_start(checkpoint, t)]
        if new:
            checkpoint = self._start(checkpoint, new, {t.qualified_name for t in tables})
            tables = [self._registry.lookup(t.owner, t.name) or t for t in tables]  # as read there
        todo = [t for t in tables if checkpoint.tables[t.qualified_name].status != "done"]
        rows = 0
        taken: list[str] = []
        retried: list[str] = []
        for table in todo:
            try:
                rows += self._snapshot_table(table)
            except TableDefinitionChangedError as error:
                # Pinned to its SCN, it would fail at every cycle and hold every table back:
                # a newer SCN reads it (whatever landed of it is retired by that snapshot).
                self.take_again([table], f"{error}: at a newer SCN")
                retried.append(table.qualified_name)
                continue
            except _ReadShortError as short:
                self._read_short(table, short)
                retried.append(table.qualified_name)
                continue
            taken.append(table.qualified_name)
        return SnapshotResult(tuple(taken), rows, tuple(retried))

    def _mode_changed(self, table: TableDef) -> bool:
        """True when the table started under a mode its replica cannot follow into the one
        configured now: ``initial_only`` to streamed (its changes since were never mined) or
        back (the replica holds changes past its snapshot), ``no_data`` to any other (its
        replica lacks the rows older than its start)."""
        state = self._store.current.tables.get(table.qualified_name)
        if state is None or state.status == "pending":
            return False
        mode = self._config.snapshot_modes.mode_of(table.owner, table.name)
        return state.initial_only != (mode == "initial_only") or (
            state.no_data and mode != "no_data"
        )

    def _key_changed(self, table: TableDef) -> bool:
        """True when the table's replica key (``keys.consolidation_key``: a LOB column added
        or dropped, the supplemental logging or the primary key changed) is another than at
        its snapshot: the versions landed since are keyed the old way (partial images
        without the new key, under MINIMAL logging), so only a new snapshot, whose reset
        marker retires them, rebuilds the replica under the new key. A DDL row mined by this
        process sends the table back itself (``StreamRunner``); this catches a change made
        before the process read the dictionary. Not for an ``initial_only`` table (its
        staging holds snapshot rows only, full images a build under the new key reads), nor
        for a replay bundle (it holds one snapshot)."""
        state = self._store.current.tables.get(table.qualified_name)
        if state is None or state.status != "done" or not state.replica_key:
            return False
        if state.initial_only or not self._source.snapshots_at_any_scn:
            return False
        return state.replica_key != consolidation_key(table)

    def _record_unknown_keys(self, tables: Sequence[TableDef]) -> None:
        """A table snapshotted by an oracdc that kept no key gets its key now, so that a
        later change is seen (one made before this is not: docs/keys.md)."""
        checkpoint = self._store.current
        unknown = [
            t for t in tables
            if (state := checkpoint.tables.get(t.qualified_name)) is not None
            and state.status == "done" and not state.replica_key
        ]  # fmt: skip
        for table in unknown:
            state = checkpoint.tables[table.qualified_name]
            keyed = replace(state, replica_key=consolidation_key(table))
            checkpoint = checkpoint.with_table(table.qualified_name, keyed)
        if unknown:
            self._store.save(checkpoint)

    def take_again(self, tables: Sequence[TableDef], why: str) -> None:
        """Mark ``tables`` to be snapshotted again (in full) by the next ``snapshot()``; their
        changes are dropped until then (the new snapshot covers them)."""
        checkpoint = self._store.current
        for table in tables:
            LOG.warning("%s: snapshotted again: %s", table.qualified_name, why,
                        extra={"table": table.qualified_name})  # fmt: skip
            self._observer.resnapshot(table.qualified_name)
            checkpoint = checkpoint.with_table(table.qualified_name, TableSnapshotState("pending"))
        self._store.save(checkpoint)
        self._on_new_tables()

    def pending(self) -> bool:
        """True when a selected table has no finished snapshot: after streaming met
        row-moving DDL (the table left the checkpoint to be snapshotted again); when its
        replica key changed since its snapshot (``snapshot`` sends it back); also when such
        a table is no longer in the source (``snapshot`` retires it)."""
        checkpoint = self._store.current
        listed = self._registry.resolve()
        if not all(snapshot_done(checkpoint, t) for t in listed):
            return True
        if any(self._key_changed(t) for t in listed):  # snapshot() sends it back
            return True
        return bool(self._waiting_but_gone({t.qualified_name for t in listed}))

    def _waiting_but_gone(self, listed: set[str]) -> list[str]:
        """Selected tables of the checkpoint waiting for a snapshot (pending, or cut off
        while running) that the source does not list."""
        waiting = [
            name for name, state in self._store.current.tables.items()
            if state.status != "done" and name not in listed
            and self._registry.is_selected(*name.split(".", 1))
        ]  # fmt: skip
        return [n for n in waiting if not self._source_has(n)]

    def _source_has(self, qualified_name: str) -> bool:
        owner, table = qualified_name.split(".", 1)
        return self._registry.lookup(owner, table, refresh=True) is not None

    def _retire_dropped(self, listed: set[str]) -> None:
        """A table waiting for a snapshot that the source no longer has was dropped: its
        snapshot is empty. A reset marker at the current SCN empties its replica and the
        table is done from there (a table created again under its name is snapshotted when
        its CREATE TABLE is mined, ``StreamRunner``)."""
        for name in self._waiting_but_gone(listed):
            owner, table = name.split(".", 1)
            scn = self._source.current_scn()
            self._lander.land_reset_marker_of_a_dropped_table(owner, table, scn)
            state = self._store.current.tables[name]
            done = TableSnapshotState(
                "done", snapshot_scn=scn, added_at_scn=state.added_at_scn or scn
            )
            self._store.save(self._store.current.with_table(name, done))
            LOG.warning(
                "%s was dropped while waiting for a snapshot: its replica is emptied at SCN %d",
                name, scn, extra={"table": name, "scn": scn},
            )  # fmt: skip

    def _start(
        self, checkpoint: Checkpoint, tables: Sequence[TableDef], selected: set[str]
    ) -> Checkpoint:
        """Start ``tables`` at one snapshot point; ``selected``: every configured table.
        After a new incarnation of the source, the point is above every SCN landed from the
        earlier one (``Checkpoint.snapshot_above_scn``): the reset markers retire them."""
        if checkpoint.snapshot_above_scn is not None:
            wait_for_scn_above(
                self._source, checkpoint.snapshot_above_scn,
                self._config.mining.poll_interval_seconds,
            )  # fmt: skip
        point = self._source.snapshot_point(tables)
        # Their columns as the catalog has them now, at or after the point: one added before
        # it (after the dictionary was read, e.g. at this process's start) holds values the
        # snapshot must read, and its ADD COLUMN, below the mining start, is never mined.
        tables = [self._registry.lookup(t.owner, t.name, refresh=True) or t for t in tables]
        LOG.info(
            "snapshot of %d table(s) at SCN %d; mining starts at SCN %d",
            len(tables),
            point.scn,
            point.mining_start_scn,
        )
        _refuse_snapshots_below_landed(checkpoint, point, tables)
        modes = self._config.snapshot_modes
        starting = {t.qualified_name for t in tables}
        # Every streamed table starts now: nothing below the new handover is needed (a table
        # whose snapshot is running still needs mining from its own handover).
        restart = not any(
            checkpoint.tables[name].status != "pending" and modes.streams(*name.split(".", 1))
            for name in selected - starting
            if name in checkpoint.tables
        )
        for table in tables:
            self._writer.ensure_table(self._registry.staging_def(table))
            scn = point.scn_of(table)  # a bundle's tables may each have their own
            if scn != point.scn:
                LOG.info("snapshot of %s at its own SCN %d", table.qualified_name, scn)
            mode = modes.mode_of(table.owner, table.name)
            if mode == "no_data" and self._never_landed(checkpoint, table):
                state = self._start_without_data(table, scn)
            else:
                state = TableSnapshotState("running", snapshot_scn=scn, added_at_scn=scn,
                                           initial_only=mode == "initial_only")  # fmt: skip
            checkpoint = checkpoint.with_table(table.qualified_name, state)
        resume = point.mining_start_scn
        if checkpoint.resume_scn is not None and not restart:
            resume = min(resume, checkpoint.resume_scn)
        checkpoint = replace(checkpoint, resume_scn=resume, snapshot_above_scn=None)
        self._on_new_tables()
        return self._store.save(checkpoint)

    def _never_landed(self, checkpoint: Checkpoint, table: TableDef) -> bool:
        """A first start: not in the checkpoint and nothing in staging. A table whose staging
        rows outlived the checkpoint (``checkpoint.json`` moved aside or restored) is read in
        full: a reset marker alone would empty its replica."""
        if table.qualified_name in checkpoint.tables:
            return False
        return self._writer.landed_rows(self._registry.staging_def(table)) == 0

    def _start_without_data(self, table: TableDef, scn: int) -> TableSnapshotState:
        """``no_data``: a reset marker at the handover SCN (whatever staging held before is
        retired), no rows; the table streams from there."""
        LOG.info("%s: snapshot_mode no_data: streamed from SCN %d, no rows read",
                 table.qualified_name, scn)  # fmt: skip
        self._lander.land_reset_marker(table, scn)
        return TableSnapshotState(
            "done", snapshot_scn=scn, added_at_scn=scn, no_data=True,
            replica_key=consolidation_key(table),
        )  # fmt: skip

    def _check_count(self, table: TableDef, scn: int, rows_read: int) -> None:
        """_ReadShortError when the source counts another number of rows ``AS OF`` the
        snapshot SCN than the read gave: the ROWID ranges it read, planned from the extents
        as they were at read time, may miss rows of extents released since the SCN (``SHRINK
        SPACE``). Not checked where the source cannot count (a replay bundle: its snapshot
        file is the read) or no longer can (undo gone, DDL or a DROP since: said in a
        WARNING)."""
        count = getattr(self._source, "snapshot_row_count", None)
        if count is None:
            return
        try:
            counted = int(count(self._registry.policy(table).kept(table), scn))
        except (SnapshotTooOldError, TableNotFoundError) as error:  # undo gone, DDL, a DROP
            LOG.warning(
                "%s: its snapshot's rows could not be counted (%s): not checked",
                table.qualified_name, error, extra={"table": table.qualified_name},
            )  # fmt: skip
            return
        if counted != rows_read:
            raise _ReadShortError(scn, rows_read, counted)
        self._read_short_before.discard(table.qualified_name)

    def _read_short(self, table: TableDef, short: _ReadShortError) -> None:
        """The table taken again at a newer SCN, where the ranges are planned anew; a second
        miscount in this process stops the snapshot, loud (the read cannot be trusted)."""
        name = table.qualified_name
        why = (
            f"its snapshot read {short.rows_read} row(s) where Oracle counts {short.counted} "
            f"as of SCN {short.scn}"
        )
        self.take_again([table], f"{why}: at a newer SCN")  # never done with the short read
        if name in self._read_short_before:
            raise OracdcError(
                f"{name}: {why}, twice",
                fix="check the table's storage (an index-organized or external table?) and "
                "report it; the next run takes it again",
            )
        self._read_short_before.add(name)

    def _object_ids_of(self, table: TableDef) -> tuple[int, ...]:
        """The OBJECT_IDs of the table and its partitions, kept in the checkpoint: a process
        started after the table was dropped still mines the rows it had not (sources that
        mine by object id)."""
        read = getattr(self._source, "table_object_ids", None)
        return () if read is None else tuple(read(table.owner, table.name))

    def _snapshot_table(self, table: TableDef) -> int:
        name = table.qualified_name
        state = self._store.current.tables[name]
        snapshot_scn = state.snapshot_scn
        assert snapshot_scn is not None
        progress = Progress(f"snapshot {name}")
        progress.done = state.rows_landed
        # excluded columns are not even read
        for batch in self._source.snapshot_batches(
            self._registry.policy(table).kept(table),
            snapshot_scn,
            self._config.snapshot_batch_rows,
            state.resume_token,
        ):
            if batch.num_rows == 0:
                continue
            self._lander.land_snapshot_chunk(table, batch, snapshot_scn)
            last_row_id = batch.column("_row_id")[batch.num_rows - 1].as_py()
            state = replace(
                state, resume_token=last_row_id, rows_landed=state.rows_landed + batch.num_rows
            )
            self._store.save(self._store.current.with_table(name, state))
            progress.advance(batch.num_rows)
        self._check_count(table, snapshot_scn, state.rows_landed)
        self._lander.land_reset_marker(table, snapshot_scn)
        state = replace(
            state, status="done", object_ids=self._object_ids_of(table),
            replica_key=consolidation_key(table),
        )  # fmt: skip
        self._store.save(self._store.current.with_table(name, state))
        self._observer.save()
        progress.finish()
        return progress.done


def _refuse_snapshots_below_landed(
    checkpoint: Checkpoint, point: SnapshotPoint, tables: Sequence[TableDef]
) -> None:
    """A table added after streaming began needs every change committed after its snapshot,
    but transactions at or below the last landed commit are skipped as already emitted: a
    snapshot below it (a replay bundle's older file, a log-only table) would miss changes."""
    landed = checkpoint.last_commit
    if landed is None:
        return
    for table in tables:
        scn = point.scn_of(table)
        if scn < landed.scn:
            raise OracdcError(
                f"{table.qualified_name}: snapshot at SCN {scn} is older than the last change "
                f"landed (commit SCN {landed.scn}); its changes in between would be lost",
                fix=(
                    "give the table a snapshot at or above that SCN, or move checkpoint.json "
                    "aside to replicate every table again (docs/extraction.md)"
                ),
            )
