"""Streaming: mine LogMiner windows from the checkpoint's ``resume_scn`` up to what every redo
thread has written, assemble committed transactions, turn them into change records, land
them, and checkpoint after each window.

Windows are read and transactions assembled by a feed (``extractor.assemble.window_miner``):
the inline ``WindowMiner`` or the mining process (``mining_process``), which hands on each
committed transaction and each window's end; this module builds, lands and checkpoints.

- Mining restarts at ``resume_scn``, at or below the first SCN of every transaction still open
  at the checkpoint, and skips transactions committed at or below ``last_commit``'s SCN: a
  window ends on a whole SCN, so the window that landed ``last_commit`` processed every commit
  of that SCN (RAC instances commit at one SCN in positions of different redo threads, which
  do not compare).
- A table's changes from transactions its snapshot covers (committed at or before its
  snapshot SCN) are dropped.
- Row-moving DDL sends its table back to be snapshotted (it leaves the checkpoint), and so
  do a CREATE TABLE or a rename into a replicated table's name, DDL that changes a table's
  replica key or its supplemental logging (docs/keys.md, "When the key changes"), and a row
  of its object purged since (docs/extraction.md, "Tables dropped, renamed or reloaded").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import NamedTuple

from extractor.assemble.records import CommittedTransaction
from extractor.assemble.window_miner import MinedWindow, TransactionFeed
from extractor.config import OracdcConfig
from extractor.errors import OracdcError
from extractor.keys import consolidation_key
from extractor.land.audit_records import QuarantinedChange, SchemaChange
from extractor.land.staging_writer import StagingWriter
from extractor.logminer_row import LogMinerRow
from extractor.parse.change_builder import ChangeBuilder, TransactionInfo, commit_time
from extractor.parse.ddl_statements import (
    changes_supplemental_logging,
    creates_table,
    is_row_moving,
)
from extractor.pipeline.fault_points import FaultHook, FaultPoint
from extractor.pipeline.lander import ChangesByTable, Lander
from extractor.pipeline.progress import Progress
from extractor.pipeline.snapshot_runner import snapshot_done
from extractor.pipeline.stats_observer import StatsObserver
from extractor.pipeline.table_registry import TableRegistry
from extractor.redo_position import CommitPosition
from extractor.source.base import Source
from extractor.state.checkpoint import Checkpoint, CheckpointStore, TableSnapshotState

LOG = logging.getLogger(__name__)

# Change records held before an intermediate landing inside one window (bounds memory).
_FLUSH_RECORDS = 100_000


@dataclass(frozen=True)
class StreamResult:
    """What one ``stream_once`` call did."""

    windows: int
    transactions: int
    change_rows: int
    quarantined: int
    mined_to_scn: int | None

    def then(self, later: StreamResult) -> StreamResult:
        """This call followed by ``later``, as one."""
        return StreamResult(
            self.windows + later.windows,
            self.transactions + later.transactions,
            self.change_rows + later.change_rows,
            self.quarantined + later.quarantined,
            later.mined_to_scn if later.mined_to_scn is not None else self.mined_to_scn,
        )


class StreamRunner:
    """Mines windows and lands their changes; keeps the open transactions between calls."""

    def __init__(
        self,
        config: OracdcConfig,
        source: Source,
        registry: TableRegistry,
        store: CheckpointStore,
        writer: StagingWriter,
        lander: Lander,
        observer: StatsObserver,
        builder: ChangeBuilder,
        feed: TransactionFeed,
        *,
        fault: FaultHook,
    ) -> None:
        self._config = config
        self._source = source
        self._registry = registry
        self._store = store
        self._writer = writer
        self._lander = lander
        self._observer = observer
        self._builder = builder
        self._fault = fault
        self._feed = feed
        self._feed_ready = False  # reset since the last close
        self._feed_tables: tuple[str, ...] = ()
        self._next_scn: int | None = None
        self._target_scn: int | None = None
        # Tables this process sent back for a change logged lower than the dictionary said
        # (logging_key_to_send_back), with their replica key then; by checkpointed windows
        # only (a window failed before its checkpoint sent nothing back).
        self._sent_back_for_logging: dict[str, tuple[str, ...]] = {}

    def stream_once(self, until_scn: int | None = None) -> StreamResult:
        """Mine from the checkpoint up to ``until_scn`` (default: the minable SCN, what every
        redo thread has written) and land."""
        checkpoint = self._store.current
        selected = self._registry.resolve()
        done = [t for t in selected if snapshot_done(checkpoint, t)]
        modes = self._config.snapshot_modes
        tables = [t for t in done if modes.streams(t.owner, t.name)]
        if done and not tables:
            LOG.info("nothing to mine: every table has snapshot_mode initial_only")
            return StreamResult(0, 0, 0, 0, checkpoint.mined_to_scn)
        waiting = [checkpoint.tables.get(t.qualified_name) for t in selected]
        if not tables and any(s is not None and s.status == "pending" for s in waiting):
            LOG.info("nothing to mine yet: the tables wait to be snapshotted (again)")
            return StreamResult(0, 0, 0, 0, checkpoint.mined_to_scn)
        if not tables:
            raise OracdcError(
                "no table has a finished snapshot to stream from",
                fix="run `oracdc snapshot` first (oracdc sync does both)",
            )
        if checkpoint.resume_scn is None:
            raise OracdcError("the checkpoint has no mining position", fix="run oracdc snapshot")
        table_names = tuple(sorted(t.qualified_name for t in tables))
        if not self._feed_ready or self._feed_tables != table_names or self._next_scn is None:
            self._reset_feed(checkpoint, table_names)
        assert self._next_scn is not None
        target = self._source.minable_scn() if until_scn is None else until_scn
        self._target_scn = target
        windows = transactions = change_rows = quarantined = 0
        progress = Progress("mining", max(target - self._next_scn + 1, 0))
        window = _WindowLanding(self, self._lander)
        try:
            for event in self._feed.mine(tables, self._next_scn, target):
                if isinstance(event, CommittedTransaction):
                    window.add_transaction(event)
                    continue
                self._finish_window(window, event)
                if event.window_end >= event.start_scn:  # else cut off: mined again, larger
                    windows += 1
                    transactions += window.transactions
                    change_rows += window.change_rows
                    quarantined += window.quarantined
                    progress.advance(event.window_end - event.start_scn + 1)
                    self._next_scn = event.window_end + 1
                window = _WindowLanding(self, self._lander)
        except BaseException:
            # The open transactions may be ahead of the checkpoint: rebuild from it.
            self.close()
            raise
        progress.finish()
        return StreamResult(
            windows, transactions, change_rows, quarantined, self._store.current.mined_to_scn
        )

    def restart_from_checkpoint(self) -> None:
        """Forget the open transactions: the next call mines again from the checkpoint (new
        tables need mining from their handover point). The feed is reset then (a mining
        process that has not mined yet is kept, warm)."""
        self._feed_ready = False

    def close(self) -> None:
        self._feed.close()
        self._feed_ready = False

    def _reset_feed(self, checkpoint: Checkpoint, table_names: tuple[str, ...]) -> None:
        emit_after = None
        if checkpoint.last_commit is not None:
            # Every commit at that SCN was processed (module docstring): skip them all.
            emit_after = CommitPosition.after_scn(checkpoint.last_commit.scn)
        self._feed.reset(emit_after, checkpoint.known_objects())
        self._feed_ready = True
        self._feed_tables = table_names
        self._next_scn = checkpoint.resume_scn

    def _finish_window(self, window: _WindowLanding, mined: MinedWindow) -> None:
        """Land what is left of the window and checkpoint its end."""
        window.finish()
        self._fault(FaultPoint.STREAM_BEFORE_CHECKPOINT)
        self._observer.abandoned(mined.abandoned)
        window_end = mined.window_end
        oldest_open = mined.oldest_open_scn
        resume = window_end + 1 if oldest_open is None else min(oldest_open, window_end + 1)
        checkpoint = self._forget_snapshots(self._store.current, window)
        checkpoint = checkpoint.with_objects(self._feed.mined_objects())
        self._store.save(
            replace(
                checkpoint,
                resume_scn=resume,
                mined_to_scn=window_end,
                last_commit=window.last_commit or checkpoint.last_commit,
            )
        )
        self._sent_back_for_logging.update(window.sent_back_for_logging)
        self._observer.window_mined(
            window_end=window_end,
            window_scns=mined.window_scns,
            rows_read=mined.rows_read,
            transactions=window.transactions,
            quarantined=window.quarantined,
            buffer=mined.buffer,
            oldest_open_scn=oldest_open,
            source_scn=self._target_scn,
            redo_logs=list(mined.redo_logs),
        )
        self._fault(FaultPoint.STREAM_AFTER_CHECKPOINT)

    # -- what a window's transactions become ----------------------------------------------

    def streams(self, qualified_name: str, commit_scn: int) -> bool:
        """True when the table's changes committed at ``commit_scn`` come from the stream:
        its snapshot is done and older (not while a re-snapshot is pending), and it is
        streamed at all (not ``initial_only``)."""
        after = self.streamed_after(qualified_name)
        return after is not None and commit_scn > after

    def streamed_after(self, qualified_name: str) -> int | None:
        """The SCN above which the table's commits come from the stream (-1: all of them);
        None when none do now (no finished snapshot, a re-snapshot pending, initial_only)."""
        state = self._store.current.tables.get(qualified_name)
        if state is None or state.status != "done":
            return None
        if not self._config.snapshot_modes.streams(*qualified_name.split(".", 1)):
            return None
        return -1 if state.snapshot_scn is None else state.snapshot_scn

    def snapshot_covers(self, qualified_name: str, commit_scn: int) -> bool:
        """True when the table's snapshot holds its changes committed at ``commit_scn``: one
        is pending (it will be taken later), or it was taken at or after that commit."""
        state = self._store.current.tables.get(qualified_name)
        if state is None:
            return False
        if state.status == "pending":
            return True
        return state.snapshot_scn is not None and commit_scn <= state.snapshot_scn

    def build(self, committed: CommittedTransaction) -> _TransactionChanges:
        info = TransactionInfo(
            committed.xid, committed.commit_scn, commit_time(committed.commit_timestamp)
        )
        changes = self._builder.build(info, committed.rows)
        ddl: list[SchemaChange] = []
        # renamed into a selected name: its rows were written under another; a row of its
        # object purged since, which the DROP that retires it may not be mined yet to do; or
        # an ambiguous statement whose row Oracle can no longer read AS OF its SCN
        sent_back = [
            _SentBack(f"{owner}.{name}", row, why)
            for rows, why in (
                (changes.renamed_into, "renamed another table into it"),
                (changes.let_go, "is a change of its object purged since"),
            )
            for owner, name, row in rows
        ]
        sent_back += [
            _SentBack(f"{owner}.{name}", row, f"is ambiguous and its row unreadable: {detail}")
            for owner, name, row, detail in changes.unreadable
        ]
        for row in changes.ddl_rows:
            schema_change, key_changed = self._apply_ddl(row, committed.commit_scn)
            ddl.append(schema_change)
            name = f"{row.seg_owner}.{row.table_name}"
            if self._created_again(row):
                sent_back.append(_SentBack(name, row, "created it again"))
            elif is_row_moving(row.sql_redo):
                sent_back.append(_SentBack(name, row, "changed its ROWIDs or rows without DML"))
            elif key_changed:
                sent_back.append(_SentBack(name, row, "changed its replica's key or logging"))
        logged_lower = [(f"{owner}.{name}", row) for owner, name, row in changes.logged_lower]
        return _TransactionChanges(
            changes.records, changes.quarantined, ddl, sent_back, logged_lower
        )

    def _created_again(self, row: LogMinerRow) -> bool:
        """A CREATE TABLE under a replicated name, mined after the table's snapshot (so an
        earlier table held the name). The new table's OBJECT_ID is read from today's
        catalog, which may have moved on: created, written, then dropped, purged or renamed
        away before this window was mined, its rows are not named by the table and not
        mined, and until that later DDL is mined the replica would lack them. A snapshot of
        whatever holds the name now is exact whatever happened since (a table only just
        created is empty or small). A replay bundle cannot be snapshotted again: there the
        new table replicates from its CREATE, by the ids its dictionary has."""
        return self._source.snapshots_at_any_scn and creates_table(row.sql_redo)

    def logging_key_to_send_back(self, qualified_name: str) -> tuple[str, ...] | None:
        """A change of the table came without what the primary key that keys its replica
        needs (the key's values; the whole row, moving it to another key): its logging was
        lower when it was written (lowered for the database: no DDL row). The table is read
        again (its key may be ROWID now); its replica key then: it is snapshotted again,
        and the new snapshot covers the change, whether the level is still lower or was
        raised again (the window records the key, kept once it is checkpointed). None (the
        change stays quarantined) when a checkpointed window of this process already sent
        it back for this and its key is still the one it had then: the dictionary and the
        redo disagree, and snapshotting again at every window would not end it."""
        owner, name = qualified_name.split(".", 1)
        table = self._registry.lookup(owner, name, refresh=True)
        if table is None:
            return None
        key = consolidation_key(table)
        if self._sent_back_for_logging.get(qualified_name) == key:
            return None
        return key

    def _apply_ddl(self, row: LogMinerRow, commit_scn: int) -> tuple[SchemaChange, bool]:
        """The DDL row applied to the table's definition and staging table; and whether it
        changed the replica's key (``keys.consolidation_key``), or the table's supplemental
        logging (dropped and added again, the key is the same, but the images in between
        may lack it)."""
        owner, name = row.seg_owner or "", row.table_name or ""
        before = self._registry.lookup(owner, name)
        after = self._registry.lookup(owner, name, refresh=True)
        applied = after is not None and before != after
        if after is not None:
            self._writer.ensure_table(self._registry.staging_def(after))
        LOG.info("DDL on %s.%s at SCN %d (applied: %s)", owner, name, row.scn, applied)
        key_changed = changes_supplemental_logging(row.sql_redo) or (
            before is not None
            and after is not None
            and consolidation_key(before) != consolidation_key(after)
        )
        schema_change = SchemaChange(
            ddl=row.sql_redo or "",
            owner=owner,
            table_name=name,
            scn=row.scn,
            commit_scn=commit_scn,
            applied=applied,
        )
        return schema_change, key_changed

    def _forget_snapshots(self, checkpoint: Checkpoint, window: _WindowLanding) -> Checkpoint:
        """Tables changed by row-moving DDL in the window, created again or renamed into, or
        whose replica key or supplemental logging changed, are marked pending in the
        checkpoint: the next ``snapshot()`` takes them again (a new SCN, a reset marker
        retiring the old ROWIDs, or the versions keyed the old way) and until then their
        changes are dropped (the new snapshot covers them)."""
        if not window.resnapshot:
            return checkpoint
        for name, (row, why) in window.resnapshot.items():
            LOG.warning(
                "%s: %s at SCN %d %s; the table is snapshotted again",
                name,
                " ".join((row.sql_redo or "").split())[:120],
                row.scn,
                why,
                extra={"table": name, "scn": row.scn},
            )
            self._observer.resnapshot(name)
        pending = TableSnapshotState("pending")  # read in full, whatever its snapshot mode
        kept = {k: pending if k in window.resnapshot else v for k, v in checkpoint.tables.items()}
        return replace(checkpoint, tables=kept)


_LOGGED_LOWER = "was written with less supplemental logging than its key needs"


class _SentBack(NamedTuple):
    """A table to snapshot again, the row that says so, and why (for the WARNING)."""

    name: str
    row: LogMinerRow
    why: str


@dataclass(frozen=True)
class _TransactionChanges:
    records: ChangesByTable
    quarantined: list[QuarantinedChange]
    ddl: list[SchemaChange]  # what applying each DDL row did
    # Tables to snapshot again, with the row that says why: row-moving DDL, a CREATE TABLE or
    # a rename into a selected name, a change of the replica key or of the supplemental
    # logging (DDL rows); a row of the table's object let go, an ambiguous statement whose
    # row cannot be read AS OF its SCN (DML rows).
    sent_back: list[_SentBack]
    # Tables with a change logged lower than the dictionary said, with that change's row
    # (StreamRunner.logging_key_to_send_back).
    logged_lower: list[tuple[str, LogMinerRow]]


class _WindowLanding:
    """Accumulates the changes of one mining window and lands them (in slices if large)."""

    def __init__(self, runner: StreamRunner, lander: Lander) -> None:
        self._runner = runner
        self._lander = lander
        self._records: ChangesByTable = {}
        self._held = 0
        self._errors: list[QuarantinedChange] = []
        self._ddl: list[SchemaChange] = []
        self._last_committed: CommittedTransaction | None = None
        # (owner, table) -> streamed_after (see StreamRunner.streamed_after), per window
        self._streamed_after: dict[tuple[str, str], int | None] = {}
        # Tables sent back to be snapshotted (_TransactionChanges.sent_back,
        # logging_key_to_send_back), with the row that says why.
        self.resnapshot: dict[str, tuple[LogMinerRow, str]] = {}
        # Those sent back for a change logged lower, with their replica key then.
        self.sent_back_for_logging: dict[str, tuple[str, ...]] = {}
        self.transactions = 0
        self.change_rows = 0
        self.quarantined = 0

    def add_transaction(self, committed: CommittedTransaction) -> None:
        runner = self._runner
        changes = runner.build(committed)
        self._ddl.extend(changes.ddl)
        for sent in changes.sent_back:
            if runner.streams(sent.name, committed.commit_scn):  # the first reason is kept
                self.resnapshot.setdefault(sent.name, (sent.row, sent.why))
        for name, dml_row in changes.logged_lower:
            if name in self.resnapshot or not runner.streams(name, committed.commit_scn):
                continue  # its snapshot to come covers the change: read it once a window
            key = runner.logging_key_to_send_back(name)
            if key is not None:
                self.resnapshot[name] = (dml_row, _LOGGED_LOWER)
                self.sent_back_for_logging[name] = key
        for (owner, table), records in changes.records.items():
            # every change of a transaction has its commit SCN: the table's snapshot covers
            # all of them or none
            if records and self._streams(owner, table, committed.commit_scn):
                self._records.setdefault((owner, table), []).extend(records)
                self._held += len(records)
                self.change_rows += len(records)
        # A change its table's snapshot covers is not reported, as it is not landed: a table
        # whose snapshot is pending or at or after this commit (e.g. images without the key it
        # has now), or sent back by this window (``finish``: also by a later transaction).
        self._errors.extend(
            q
            for q in changes.quarantined
            if not runner.snapshot_covers(f"{q.owner}.{q.table_name}", committed.commit_scn)
        )
        self.transactions += 1
        self._last_committed = committed
        if self._held >= _FLUSH_RECORDS:
            self._flush(with_errors=False)

    @property
    def last_commit(self) -> CommitPosition | None:
        """Where the window's last transaction committed (None before one)."""
        committed = self._last_committed
        return None if committed is None else committed.position

    def finish(self) -> None:
        """Land the rest, and the window's quarantined changes but those of tables it sends
        back (held until now: a table is sent back by any transaction of the window, and
        under ``error_policy: fail`` landing them stops the stream)."""
        self._errors = [
            q for q in self._errors if f"{q.owner}.{q.table_name}" not in self.resnapshot
        ]
        self.quarantined = len(self._errors)
        self._flush(with_errors=True)

    def _streams(self, owner: str, table: str, commit_scn: int) -> bool:
        """``StreamRunner.streams``, its table facts read once per window (they change only
        when a window is checkpointed)."""
        key = (owner, table)
        after = self._streamed_after.get(key, False)
        if after is False:
            name = f"{owner}.{table}"
            after = self._runner.streamed_after(name)
            self._streamed_after[key] = after
        return after is not None and commit_scn > after

    def _flush(self, *, with_errors: bool) -> None:
        last = self.last_commit
        if last is not None:
            last.redo.packed()  # out of range: fail before landing, not at checkpoint
        errors = self._errors if with_errors else []
        self._lander.land_changes(self._records, errors, self._ddl)
        self._records, self._ddl, self._held = {}, [], 0
        if with_errors:
            self._errors = []
