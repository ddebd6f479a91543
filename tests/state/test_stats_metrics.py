"""What a mined window reports reaches status.json and metrics.prom."""

from __future__ import annotations

from pathlib import Path

from extractor.assemble.records import BufferMetrics
from extractor.pipeline.stats_observer import StatsObserver
from extractor.state.stats import load_stats, prometheus_text


def test_changes_left_without_their_rowid_are_reported(tmp_path: Path) -> None:
    observer = StatsObserver(tmp_path)
    buffer = BufferMetrics(
        bytes_in_memory=0, bytes_spilled_total=0, spill_files_open=0, open_transactions=0,
        committed=4, rolled_back=0, empty_commits=0, skipped_already_emitted=0,
        cancelled_rows=0, unmatched_rollback_rows=0, ignored_rows=0,
        row_ids_from_next_row=5, changes_without_row_id=2,
    )  # fmt: skip

    observer.window_mined(
        window_end=10, window_scns=10, rows_read=9, transactions=4, quarantined=2,
        buffer=buffer, oldest_open_scn=None, source_scn=12, redo_logs=[],
    )  # fmt: skip

    assert load_stats(tmp_path).changes_without_row_id == 2
    assert "oracdc_changes_without_rowid_total 2\n" in prometheus_text(observer.stats)
