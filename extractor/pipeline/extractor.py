"""The extraction loop: snapshot new tables, mine committed changes, land them, checkpoint.

Ordering and durability rules (docs/architecture.md §2-3, §6):

- A batch id is reserved durably before its data lands; the checkpoint that covers the data is
  written after it has landed. A crash in between re-lands the same change rows under a new
  batch id, and consolidation collapses identical change rows: the replica is the same.
- Mining restarts at ``resume_scn``, at or below the first SCN of every transaction still open
  at the checkpoint, and skips transactions committed at or below ``last_commit``'s SCN: a
  window ends on a whole SCN, so the window that landed ``last_commit`` processed every commit
  of that SCN (RAC instances commit at one SCN in positions of different redo threads, which
  do not compare).
- A table's snapshot at SCN S covers every transaction committed at or before S; changes of
  that table from those transactions are dropped, later ones are applied (the handover of
  docs/logminer.md §4: mining starts at the oldest transaction open at S).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from extractor.assemble.csf import ContinuationJoiner
from extractor.assemble.records import CommittedTransaction
from extractor.assemble.transaction_buffer import TransactionBuffer
from extractor.change_record import ChangeRecord
from extractor.config import MiningSettings, OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import OracdcError, QuarantineError
from extractor.land.audit_records import QuarantinedChange, SchemaChange
from extractor.land.change_batch import change_batch, snapshot_batch
from extractor.land.staging_writer import StagingWriter
from extractor.logminer_row import LogMinerRow
from extractor.parse.change_builder import (
    ChangeBuilder,
    TransactionInfo,
    commit_time,
    is_row_moving,
)
from extractor.pipeline.progress import Progress
from extractor.pipeline.table_registry import TableRegistry
from extractor.redo_position import CommitPosition
from extractor.source.base import SnapshotPoint, Source
from extractor.staging_contract import METADATA_COLUMN_NAMES, spark_column_name
from extractor.state.checkpoint import Checkpoint, CheckpointStore, TableSnapshotState
from extractor.state.stats import ExtractorStats, load_stats, save_stats

LOG = logging.getLogger(__name__)

# Named points where tests inject crashes (``fault`` callback); production passes none.
FaultHook = Callable[[str], None]

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


@dataclass(frozen=True)
class SnapshotResult:
    tables: tuple[str, ...]
    rows: int

    def then(self, later: SnapshotResult) -> SnapshotResult:
        return SnapshotResult(self.tables + later.tables, self.rows + later.rows)


class Extractor:
    """Moves changes from a source into staging tables, restartably."""

    def __init__(
        self,
        config: OracdcConfig,
        source: Source,
        writer: StagingWriter,
        store: CheckpointStore,
        *,
        fault: FaultHook | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._config = config
        self._source = source
        self._writer = writer
        self._store = store
        self._fault = fault or (lambda _point: None)
        self._now = clock or (lambda: datetime.now(UTC))
        self.registry = TableRegistry(source, config.tables)
        self._builder = ChangeBuilder(
            self.registry.lookup,
            self.registry.is_selected,
            source.nls,
            # Sources that mine by object id (OracleSource) name rows LogMiner could not.
            getattr(source, "table_for_object", None),
        )
        self._buffer: TransactionBuffer | None = None
        self._buffer_tables: tuple[str, ...] = ()
        self._next_scn: int | None = None
        self._window = config.mining.window_scns
        self.stats: ExtractorStats = load_stats(config.data_dir)
        self._target_scn: int | None = None

    @property
    def checkpoint(self) -> Checkpoint:
        """The last checkpoint written (what has landed)."""
        return self._store.current

    # -- snapshot -------------------------------------------------------------------------

    def snapshot(self) -> SnapshotResult:
        """Snapshot every selected table not snapshotted yet (resuming a cut-off one)."""
        tables = self.registry.resolve()
        if not tables:
            raise OracdcError(
                "no table of the source matches the configured tables",
                fix="check the tables list in oracdc.yml (OWNER.TABLE, wildcards * and ?)",
            )
        checkpoint = self._store.current
        new = [t for t in tables if t.qualified_name not in checkpoint.tables]
        if new:
            checkpoint = self._start_snapshot(checkpoint, new)
        todo = [t for t in tables if checkpoint.tables[t.qualified_name].status != "done"]
        rows = 0
        for table in todo:
            rows += self._snapshot_table(table)
        return SnapshotResult(tuple(t.qualified_name for t in todo), rows)

    def snapshot_pending(self) -> bool:
        """True when a selected table has no finished snapshot: after ``stream_once`` met
        row-moving DDL (the table left the checkpoint to be snapshotted again)."""
        checkpoint = self._store.current
        return not all(self._snapshot_done(checkpoint, t) for t in self.registry.resolve())

    def _start_snapshot(self, checkpoint: Checkpoint, tables: Sequence[TableDef]) -> Checkpoint:
        point = self._source.snapshot_point(tables)
        LOG.info(
            "snapshot of %d table(s) at SCN %d; mining starts at SCN %d",
            len(tables),
            point.scn,
            point.mining_start_scn,
        )
        _refuse_snapshots_below_landed(checkpoint, point, tables)
        for table in tables:
            self._writer.ensure_table(self.registry.staging_def(table))
            scn = point.scn_of(table)  # a bundle's tables may each have their own
            if scn != point.scn:
                LOG.info("snapshot of %s at its own SCN %d", table.qualified_name, scn)
            checkpoint = checkpoint.with_table(
                table.qualified_name,
                TableSnapshotState("running", snapshot_scn=scn, added_at_scn=scn),
            )
        resume = point.mining_start_scn
        if checkpoint.resume_scn is not None:
            resume = min(resume, checkpoint.resume_scn)
        checkpoint = replace(checkpoint, resume_scn=resume)
        # New tables need mining from the handover point: drop the in-memory stream state.
        self._buffer = None
        return self._store.save(checkpoint)

    def _snapshot_table(self, table: TableDef) -> int:
        name = table.qualified_name
        state = self._store.current.tables[name]
        snapshot_scn = state.snapshot_scn
        assert snapshot_scn is not None
        progress = Progress(f"snapshot {name}")
        progress.done = state.rows_landed
        staging = self.registry.staging_def(table)
        for batch in self._source.snapshot_batches(
            table, snapshot_scn, self._config.snapshot_batch_rows, state.resume_token
        ):
            if batch.num_rows == 0:
                continue
            batch_id = self._store.reserve_batch_id()
            now = self._now()
            data = snapshot_batch(
                staging,
                batch,
                snapshot_scn=snapshot_scn,
                snapshot_ts=now,
                batch_id=batch_id,
                extracted_at=now,
            )
            self._writer.append(staging, data)
            self._fault("snapshot:after_land")
            last_row_id = batch.column("_row_id")[batch.num_rows - 1].as_py()
            state = replace(
                state, resume_token=last_row_id, rows_landed=state.rows_landed + batch.num_rows
            )
            self._store.save(self._store.current.with_table(name, state))
            table_stats = self.stats.table(name)
            table_stats.snapshot_rows += batch.num_rows
            table_stats.last_batch_id = batch_id
            progress.advance(batch.num_rows)
        self._land_snapshot_marker(table, staging, snapshot_scn)
        state = replace(state, status="done")
        self._store.save(self._store.current.with_table(name, state))
        save_stats(self._config.data_dir, self.stats)
        progress.finish()
        return progress.done

    def _land_snapshot_marker(self, table: TableDef, staging: TableDef, snapshot_scn: int) -> None:
        """A reset marker at (S, S, 0) after the snapshot's last chunk: every version of the
        table older than the snapshot (a previous snapshot's rows, changes before a re-snapshot,
        keys deleted in between) is retired; the snapshot's own rows, at the same position,
        stay. Landed before the snapshot is marked done: a crash lands it again (idempotent)."""
        now = self._now()
        marker = ChangeRecord(
            op="t", owner=table.owner, table=table.name, scn=snapshot_scn,
            commit_scn=snapshot_scn, redo_pos=0, rs_id=None, ssn=None, xid=None, row_id=None,
            commit_ts=now, values={}, full_image=False,
        )  # fmt: skip
        batch_id = self._store.reserve_batch_id()
        data = change_batch(staging, [marker], batch_id=batch_id, extracted_at=now)
        self._writer.append(staging, data)
        self.stats.table(table.qualified_name).last_batch_id = batch_id

    # -- streaming ------------------------------------------------------------------------

    def stream_once(self, until_scn: int | None = None) -> StreamResult:
        """Mine from the checkpoint up to ``until_scn`` (default: the minable SCN, what every
        redo thread has written) and land."""
        checkpoint = self._store.current
        tables = [t for t in self.registry.resolve() if self._snapshot_done(checkpoint, t)]
        if not tables:
            raise OracdcError(
                "no table has a finished snapshot to stream from",
                fix="run `oracdc snapshot` first (oracdc sync does both)",
            )
        if checkpoint.resume_scn is None:
            raise OracdcError("the checkpoint has no mining position", fix="run oracdc snapshot")
        table_names = tuple(sorted(t.qualified_name for t in tables))
        if self._buffer is None or self._buffer_tables != table_names or self._next_scn is None:
            self._reset_buffer(checkpoint, table_names)
        assert self._buffer is not None and self._next_scn is not None
        target = self._source.minable_scn() if until_scn is None else until_scn
        self._target_scn = target
        windows = transactions = change_rows = quarantined = 0
        progress = Progress("mining", max(target - self._next_scn + 1, 0))
        while self._next_scn <= target:
            start = self._next_scn
            end = min(start + self._window - 1, target)
            try:
                mined = self._mine_window(tables, start, end)
            except BaseException:
                # The in-memory transactions may be ahead of the checkpoint: rebuild from it.
                self.close()
                raise
            if mined.window_end < start:
                # A CSF chain at the window's first SCN was cut off: mine a larger window.
                self._window = min(self._window * 2, self._config.mining.max_window_scns * 2)
                continue
            windows += 1
            transactions += mined.transactions
            change_rows += mined.change_rows
            quarantined += mined.quarantined
            self._adapt_window(mined.rows_read)
            progress.advance(mined.window_end - start + 1)
            self._next_scn = mined.window_end + 1
        progress.finish()
        return StreamResult(
            windows, transactions, change_rows, quarantined, self._store.current.mined_to_scn
        )

    def _reset_buffer(self, checkpoint: Checkpoint, table_names: tuple[str, ...]) -> None:
        if self._buffer is not None:
            self._buffer.close()
        self._config.spill_dir.mkdir(parents=True, exist_ok=True)
        emit_after = None
        if checkpoint.last_commit is not None:
            # Every commit at that SCN was processed (module docstring): skip them all.
            emit_after = CommitPosition.after_scn(checkpoint.last_commit.scn)
        self._buffer = TransactionBuffer(
            self._config.memory_budget_mb * 1024 * 1024,
            self._config.spill_dir,
            emit_after=emit_after,
        )
        self._buffer_tables = table_names
        self._next_scn = checkpoint.resume_scn

    def _snapshot_done(self, checkpoint: Checkpoint, table: TableDef) -> bool:
        state = checkpoint.tables.get(table.qualified_name)
        return state is not None and state.status == "done"

    def _mine_window(self, tables: Sequence[TableDef], start: int, end: int) -> _WindowResult:
        assert self._buffer is not None
        window = _WindowLanding(self)
        joiner = ContinuationJoiner(hold_incomplete=True)
        rows_read = 0
        with self._source.mine(start, end, tables) as rows:
            for row in joiner.join(rows):
                rows_read += 1
                committed = self._buffer.add(row)
                if committed is not None:
                    window.add_transaction(committed)
        window_end = end if joiner.resume_scn is None else joiner.resume_scn - 1
        window.finish()
        self._fault("stream:before_checkpoint")
        self._apply_retention(window_end)
        oldest_open = self._buffer.oldest_open_scn()
        resume = window_end + 1 if oldest_open is None else min(oldest_open, window_end + 1)
        checkpoint = self._forget_snapshots(self._store.current, window)
        self._store.save(
            replace(
                checkpoint,
                resume_scn=resume,
                mined_to_scn=window_end,
                last_commit=window.last_commit or checkpoint.last_commit,
            )
        )
        self._record_window(window_end, rows_read, window)
        self._fault("stream:after_checkpoint")
        return _WindowResult(
            window_end, rows_read, window.transactions, window.change_rows, window.quarantined
        )

    def _apply_retention(self, window_end: int) -> None:
        """Discard open transactions begun more than ``transaction_retention_scns`` below
        the window's end (each logged by the buffer); they no longer hold ``resume_scn``."""
        retention = self._config.mining.transaction_retention_scns
        if retention is not None and self._buffer is not None:
            discarded = self._buffer.abandon_older_than(window_end - retention)
            self.stats.abandoned_transactions += len(discarded)

    def _record_window(self, window_end: int, rows_read: int, window: _WindowLanding) -> None:
        assert self._buffer is not None
        stats = self.stats
        metrics = self._buffer.metrics()
        stats.windows += 1
        stats.window_scns = self._window
        stats.rows_read += rows_read
        stats.transactions += window.transactions
        stats.parse_errors += window.quarantined
        stats.spill_bytes = metrics.bytes_spilled_total
        stats.open_transactions = metrics.open_transactions
        stats.oldest_open_scn = self._buffer.oldest_open_scn()
        stats.mined_to_scn = window_end
        stats.source_scn = self._target_scn
        stats.redo_logs = [log.describe() for log in self._source.last_window_logs()]
        save_stats(self._config.data_dir, self.stats)

    def _adapt_window(self, rows_read: int) -> None:
        self._window = next_window_scns(self._window, rows_read, self._config.mining)

    # -- landing helpers used by _WindowLanding --------------------------------------------

    def _keep_change(self, record: ChangeRecord) -> bool:
        """Drop changes of a table that its snapshot already covers."""
        return self._streams(f"{record.owner}.{record.table}", record.commit_scn)

    def _streams(self, qualified_name: str, commit_scn: int) -> bool:
        """True when the table's changes committed at ``commit_scn`` come from the stream:
        its snapshot is done and older (a re-snapshot pending: not in the checkpoint)."""
        state = self._store.current.tables.get(qualified_name)
        if state is None or state.status != "done":
            return False
        return state.snapshot_scn is None or commit_scn > state.snapshot_scn

    def _forget_snapshots(self, checkpoint: Checkpoint, window: _WindowLanding) -> Checkpoint:
        """Tables changed by row-moving DDL in the window leave the checkpoint: the next
        ``snapshot()`` takes them again (a new SCN, a reset marker retiring the old ROWIDs)
        and until then their changes are dropped (the new snapshot covers them)."""
        if not window.resnapshot:
            return checkpoint
        for name, ddl in window.resnapshot.items():
            LOG.warning(
                "%s: %s at SCN %d changed its ROWIDs or rows without DML in the redo; "
                "the table is snapshotted again",
                name,
                " ".join((ddl.sql_redo or "").split())[:120],
                ddl.scn,
                extra={"table": name, "scn": ddl.scn},
            )
            self.stats.table(name).resnapshots += 1
        kept = {k: v for k, v in checkpoint.tables.items() if k not in window.resnapshot}
        return replace(checkpoint, tables=kept)

    def _land(
        self,
        records: dict[tuple[str, str], list[ChangeRecord]],
        errors: list[QuarantinedChange],
        ddl: list[SchemaChange],
    ) -> None:
        if not records and not errors and not ddl:
            return
        batch_id = self._store.reserve_batch_id()
        now = self._now()
        if ddl:
            self._writer.append_schema_history(ddl, batch_id=batch_id, extracted_at=now)
        for (owner, name), table_records in sorted(records.items()):
            table = self.registry.lookup(owner, name)
            if table is None:
                continue
            staging = self.registry.staging_def(table)
            table_records = self._without_dropped_columns(table, staging, table_records)
            data = change_batch(staging, table_records, batch_id=batch_id, extracted_at=now)
            self._writer.append(staging, data)
            last = max(table_records, key=lambda r: r.commit_scn)
            self.stats.record_commit(
                table.qualified_name,
                len(table_records),
                last.commit_scn,
                last.commit_ts,
                batch_id,
            )
            self._fault("stream:after_land_table")
        if errors:
            self._writer.append_errors(errors, batch_id=batch_id, extracted_at=now)
            for error in errors:
                self.stats.table(f"{error.owner}.{error.table_name}").quarantined += 1
            policy = self._config.error_policy
            first = errors[0]
            message = (
                f"{len(errors)} change(s) quarantined in {self._writer.schema}._oracdc_errors; "
                f"first: {first.owner}.{first.table_name} SCN {first.scn}: {first.reason}"
            )
            if policy == "fail":
                raise QuarantineError(
                    message,
                    fix="inspect the errors table; set error_policy: warn to land the rest and "
                    "go on",
                )
            LOG.warning("%s", message)

    def _without_dropped_columns(
        self, table: TableDef, staging: TableDef, records: list[ChangeRecord]
    ) -> list[ChangeRecord]:
        """Full images become partial ones while staging keeps columns dropped in Oracle, so
        the replica keeps their last values instead of receiving NULLs."""
        staged = {name for name, _ in self._writer.ensure_table(staging)}
        current = {spark_column_name(c) for c in table.column_names}
        if not (staged - current - set(METADATA_COLUMN_NAMES)):
            return records
        return [replace(r, full_image=False) if r.full_image else r for r in records]

    def _apply_ddl(self, row: LogMinerRow, commit_scn: int) -> SchemaChange:
        owner, name = row.seg_owner or "", row.table_name or ""
        before = self.registry.lookup(owner, name)
        after = self.registry.lookup(owner, name, refresh=True)
        applied = after is not None and before != after
        if after is not None:
            self._writer.ensure_table(self.registry.staging_def(after))
        LOG.info("DDL on %s.%s at SCN %d (applied: %s)", owner, name, row.scn, applied)
        return SchemaChange(
            ddl=row.sql_redo or "",
            owner=owner,
            table_name=name,
            scn=row.scn,
            commit_scn=commit_scn,
            applied=applied,
        )

    def close(self) -> None:
        if self._buffer is not None:
            self._buffer.close()
            self._buffer = None


@dataclass(frozen=True)
class _WindowResult:
    window_end: int
    rows_read: int
    transactions: int
    change_rows: int
    quarantined: int


class _WindowLanding:
    """Accumulates the changes of one mining window and lands them (in slices if large)."""

    def __init__(self, extractor: Extractor) -> None:
        self._extractor = extractor
        self._records: dict[tuple[str, str], list[ChangeRecord]] = {}
        self._held = 0
        self._errors: list[QuarantinedChange] = []
        self._ddl: list[SchemaChange] = []
        self.last_commit: CommitPosition | None = None
        # Tables whose ROWIDs or rows changed without DML (row-moving DDL), with that DDL row.
        self.resnapshot: dict[str, LogMinerRow] = {}
        self.transactions = 0
        self.change_rows = 0
        self.quarantined = 0

    def add_transaction(self, committed: CommittedTransaction) -> None:
        extractor = self._extractor
        info = TransactionInfo(
            committed.xid, committed.commit_scn, commit_time(committed.commit_timestamp)
        )
        changes = extractor._builder.build(info, committed.rows)
        for ddl_row in changes.ddl_rows:
            self._ddl.append(extractor._apply_ddl(ddl_row, committed.commit_scn))
            name = f"{ddl_row.seg_owner}.{ddl_row.table_name}"
            if is_row_moving(ddl_row.sql_redo) and extractor._streams(name, committed.commit_scn):
                self.resnapshot[name] = ddl_row
        for key, records in changes.records.items():
            kept = [r for r in records if extractor._keep_change(r)]
            if kept:
                self._records.setdefault(key, []).extend(kept)
                self._held += len(kept)
                self.change_rows += len(kept)
        self._errors.extend(changes.quarantined)
        self.quarantined += len(changes.quarantined)
        self.transactions += 1
        self.last_commit = committed.position
        if self._held >= _FLUSH_RECORDS:
            self._flush()

    def finish(self) -> None:
        self._flush()

    def _flush(self) -> None:
        self._extractor._land(self._records, self._errors, self._ddl)
        self._records, self._errors, self._ddl, self._held = {}, [], [], 0


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


def next_window_scns(window_scns: int, rows_read: int, mining: MiningSettings) -> int:
    """The next window's size: halved above ``target_rows_per_window`` rows, doubled below
    half of it (each window costs one append per table: fewer, fuller windows land faster),
    within ``[min_window_scns, max_window_scns]``."""
    if rows_read > mining.target_rows_per_window:
        return max(mining.min_window_scns, window_scns // 2)
    if rows_read < mining.target_rows_per_window // 2:
        return min(mining.max_window_scns, window_scns * 2)
    return window_scns


@contextmanager
def open_extractor(
    config: OracdcConfig,
    source: Source,
    spark: object,
    *,
    writer: StagingWriter | None = None,
    **options: object,
) -> Iterator[Extractor]:
    """An Extractor over ``source`` landing through ``spark`` (or through ``writer``, a
    test's stand-in for the staging tables); closes its checkpoint lock.

    Batch ids continue above the highest one in staging (one query per start): a lost or
    restored checkpoint would otherwise reuse ids at or below dbt's watermark."""
    with CheckpointStore(config.data_dir) as store:
        if writer is None:
            writer = StagingWriter(spark, config.staging_schema)
        store.continue_batch_ids_above(writer.max_batch_id())
        extractor = Extractor(config, source, writer, store, **options)  # type: ignore[arg-type]
        try:
            yield extractor
        finally:
            extractor.close()
