"""The run statistics (``state/stats.py``) as the snapshot runner, the stream runner and the
lander report to them: each event updates ``ExtractorStats``; the file is saved after each
snapshotted table and each mined window (``oracdc status`` reads it)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from extractor.assemble.records import BufferMetrics
from extractor.state.stats import ExtractorStats, load_stats, save_stats


class StatsObserver:
    """Collects what the extraction loop did; ``stats`` is the record it keeps."""

    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self.stats: ExtractorStats = load_stats(data_dir)

    def save(self) -> None:
        save_stats(self._data_dir, self.stats)

    # -- snapshot -------------------------------------------------------------------------

    def snapshot_chunk_landed(self, table: str, rows: int, batch_id: int) -> None:
        table_stats = self.stats.table(table)
        table_stats.snapshot_rows += rows
        table_stats.last_batch_id = batch_id
        self.stats.batch_landed(batch_id)

    def reset_marker_landed(self, table: str, batch_id: int) -> None:
        self.stats.table(table).last_batch_id = batch_id
        self.stats.batch_landed(batch_id)

    def batch_landed(self, batch_id: int) -> None:
        """A batch of only quarantined rows or schema history (no table's changes)."""
        self.stats.batch_landed(batch_id)

    # -- stream ---------------------------------------------------------------------------

    def changes_landed(
        self, table: str, rows: int, commit_scn: int, commit_ts: datetime | None, batch_id: int
    ) -> None:
        self.stats.record_commit(table, rows, commit_scn, commit_ts, batch_id)

    def quarantined(self, table: str) -> None:
        self.stats.table(table).quarantined += 1

    def resnapshot(self, table: str) -> None:
        self.stats.table(table).resnapshots += 1

    def abandoned(self, transactions: int) -> None:
        self.stats.abandoned_transactions += transactions

    def window_mined(
        self,
        *,
        window_end: int,
        window_scns: int,
        rows_read: int,
        transactions: int,
        quarantined: int,
        buffer: BufferMetrics,
        oldest_open_scn: int | None,
        source_scn: int | None,
        redo_logs: list[str],
    ) -> None:
        stats = self.stats
        stats.windows += 1
        stats.window_scns = window_scns
        stats.rows_read += rows_read
        stats.transactions += transactions
        stats.parse_errors += quarantined
        stats.spill_bytes = buffer.bytes_spilled_total
        stats.changes_without_row_id = buffer.changes_without_row_id
        stats.open_transactions = buffer.open_transactions
        stats.oldest_open_scn = oldest_open_scn
        stats.mined_to_scn = window_end
        stats.source_scn = source_scn
        stats.redo_logs = redo_logs
        self.save()
