"""The extraction loop: snapshot new tables, mine committed changes, land them, checkpoint.

``Extractor`` puts together the parts, each in its own module:

- ``snapshot_runner.SnapshotRunner``: snapshots the tables the checkpoint lacks;
- ``stream_runner.StreamRunner``: mines windows, assembles transactions, builds change
  records, checkpoints after each window;
- ``lander.Lander``: what both land: a batch id reserved durably before its data lands, the
  write, the error policy;
- ``stats_observer.StatsObserver``: the run statistics ``oracdc status`` shows;
- ``fault_points.FaultPoint``: where tests inject crashes.

Ordering and durability rules (docs/architecture.md §2-3, §6): the checkpoint that covers
landed data is written after it has landed; a crash in between re-lands the same change rows
under a new batch id, and consolidation collapses identical change rows, so the replica is
the same. The restart and handover rules are in ``stream_runner`` and ``snapshot_runner``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from extractor.assemble.window_miner import TransactionFeed, WindowMiner
from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import MissingRedoLogError
from extractor.land.staging_writer import StagingWriter
from extractor.parse import implementation as parser_implementation
from extractor.parse.change_builder import ChangeBuilder
from extractor.pipeline.fault_points import FaultHook, no_fault
from extractor.pipeline.incarnation_guard import IncarnationGuard
from extractor.pipeline.lander import Lander
from extractor.pipeline.redo_gap import streamed_tables, tables_to_snapshot_again
from extractor.pipeline.snapshot_runner import SnapshotResult, SnapshotRunner
from extractor.pipeline.stats_observer import StatsObserver
from extractor.pipeline.stream_runner import StreamResult, StreamRunner
from extractor.pipeline.table_registry import TableRegistry
from extractor.source.base import Source
from extractor.state.checkpoint import Checkpoint, CheckpointStore
from extractor.state.stats import ExtractorStats

__all__ = ["Extractor", "SnapshotResult", "StreamResult", "open_extractor"]

LOG = logging.getLogger(__name__)


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
        feed: TransactionFeed | None = None,
    ) -> None:
        self._store = store
        self._config = config
        self._clock = clock or (lambda: datetime.now(UTC))
        self._last_heartbeat: float | None = None  # time.monotonic() of the last one
        self._last_heartbeat_scn = -1
        self._source = source
        self._gap_snapshots = 0  # when_needed snapshots since the last pass that mined
        self.writer = writer
        self.registry = TableRegistry(source, config.tables, config.columns)
        LOG.info("SQL_REDO parser: %s", parser_implementation.active())
        self.builder = ChangeBuilder(
            self.registry.lookup,
            # an initial_only table's rows (DML and DDL alike) are never applied
            lambda owner, name: (
                self.registry.is_selected(owner, name)
                and config.snapshot_modes.streams(owner, name)
            ),
            source.nls,
            # Sources that mine by object id (OracleSource) name rows LogMiner could not; the
            # mining process knows what its own source mined.
            getattr(feed, "table_for_object", None) or getattr(source, "table_for_object", None),
            # Sources that read rows AS OF an SCN (OracleSource) tell apart the readings of
            # a statement with undoubled apostrophes; a replay bundle cannot.
            getattr(source, "row_as_of", None),
            # Sources that read the catalog by object id (OracleSource) tell a purged table's
            # rows (retired by its DROP TABLE) from a dictionary mismatch.
            getattr(source, "object_dropped", None),
        )
        self._observer = StatsObserver(config.data_dir)
        lander = Lander(
            config,
            writer,
            store,
            self.registry,
            self._observer,
            now=self._clock,
            fault=fault or no_fault,
        )
        if feed is None:
            feed = WindowMiner(
                source, config.mining, config.memory_budget_mb * 1024 * 1024, config.spill_dir
            )
        self._stream = StreamRunner(
            config, source, self.registry, store, writer, lander, self._observer, self.builder,
            feed, fault=fault or no_fault,
        )  # fmt: skip
        self._snapshots = SnapshotRunner(
            config, source, self.registry, store, writer, lander, self._observer,
            on_new_tables=self._stream.restart_from_checkpoint,
        )  # fmt: skip
        self._incarnation = IncarnationGuard(
            config, source, store, writer,
            replicated=self.registry.resolve,
            take_again=self._snapshots.take_again,
            on_adopted=self._stream.restart_from_checkpoint,
        )  # fmt: skip

    @property
    def checkpoint(self) -> Checkpoint:
        """The last checkpoint written (what has landed)."""
        return self._store.current

    @property
    def stats(self) -> ExtractorStats:
        return self._observer.stats

    def snapshot(self) -> SnapshotResult:
        """Snapshot every selected table not snapshotted yet (resuming a cut-off one); first
        the source's incarnation is checked (``incarnation_guard``)."""
        with self.writer.refreshes_deferred():
            self._incarnation.check()
            return self._snapshots.snapshot()

    def snapshot_pending(self) -> bool:
        """True when a selected table has no finished snapshot: after ``stream_once`` met
        row-moving DDL or DDL that changed its replica key (the table left the checkpoint to
        be snapshotted again); also when its key changed before this process started."""
        return self._snapshots.pending()

    def stream_once(self, until_scn: int | None = None) -> StreamResult:
        """Mine from the checkpoint up to ``until_scn`` (default: the minable SCN, what every
        redo thread has written) and land.

        When the redo from the resume position is gone and every streamed table has
        ``snapshot_mode: when_needed``, the tables are marked to be snapshotted again
        (``snapshot_pending``) and nothing more is mined this call; otherwise the
        MissingRedoLogError goes up. The same after a RESETLOGS of the source
        (``incarnation_guard``), whose SourceIncarnationError goes up otherwise.

        Tables landed as Parquet files are refreshed in this Spark session once, at the end
        of the call (``StagingWriter.refreshes_deferred``), not after every window."""
        with self.writer.refreshes_deferred():
            if self._incarnation.check():  # tables sent back to be snapshotted
                return StreamResult(0, 0, 0, 0, self.checkpoint.mined_to_scn)
            return self._stream_and_heartbeat(until_scn)

    def _stream_and_heartbeat(self, until_scn: int | None) -> StreamResult:
        try:
            result = self._stream.stream_once(until_scn)
        except MissingRedoLogError as gap:
            streamed = streamed_tables(self._config, self.checkpoint, self.registry.resolve())
            again = tables_to_snapshot_again(
                gap, self._config, self._source, streamed, tried_already=self._gap_snapshots > 0
            )
            self._gap_snapshots += 1
            self._snapshots.take_again(again, "redo gap; snapshot_mode when_needed")
            return StreamResult(0, 0, 0, 0, self.checkpoint.mined_to_scn)
        self._gap_snapshots = 0
        self._heartbeat(result)
        return result

    def _heartbeat(self, result: StreamResult) -> None:
        """A heartbeat row after a pass, at most every ``heartbeat_interval_seconds``: tables
        without changes stay fresh for ``dbt source freshness`` (docs/extraction.md). None
        when mining did not move since the last one (a stuck thread must not look fresh) or
        a table waits for a snapshot (its changes are not landing)."""
        interval = self._config.heartbeat_interval_seconds
        mined_to = result.mined_to_scn
        if not interval or mined_to is None or mined_to <= self._last_heartbeat_scn:
            return
        now = time.monotonic()
        if self._last_heartbeat is not None and now - self._last_heartbeat < interval:
            return
        if self._snapshots.pending():
            return
        self.writer.append_heartbeat(mined_to, self._clock())
        self._last_heartbeat, self._last_heartbeat_scn = now, mined_to

    def take_again(self, tables: list[TableDef], why: str) -> None:
        """Mark ``tables`` to be snapshotted again, in full, by the next ``snapshot()``;
        refused for a source that is another database than the checkpoint's."""
        self._incarnation.check_database()
        self._snapshots.take_again(tables, why)

    def close(self) -> None:
        self._stream.close()


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
            writer = StagingWriter(spark, config.staging_schema, landing=config.spark_landing)
        store.continue_batch_ids_above(writer.max_batch_id())
        writer.ensure_heartbeat_table()  # the generated sources' freshness query reads it
        extractor = Extractor(config, source, writer, store, **options)  # type: ignore[arg-type]
        try:
            yield extractor
        finally:
            extractor.close()
