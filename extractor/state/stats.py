"""Running counters of the extractor, written after every checkpoint for ``oracdc status`` and
as a Prometheus text file (``metrics.prom``, for node_exporter's textfile collector).

The files are written by atomic replace and never hold secrets or row values.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from extractor.atomic_file import write_text_atomically

STATS_FILE = "status.json"
METRICS_FILE = "metrics.prom"


@dataclass
class TableStats:
    rows_landed: int = 0
    snapshot_rows: int = 0
    last_commit_scn: int | None = None
    last_commit_time: str | None = None
    quarantined: int = 0
    last_batch_id: int | None = None
    resnapshots: int = 0  # snapshots taken again after row-moving DDL


@dataclass
class ExtractorStats:
    """Counters since the data directory was created (loaded from and saved to ``status.json``)."""

    tables: dict[str, TableStats] = field(default_factory=dict)
    windows: int = 0
    window_scns: int = 0
    rows_read: int = 0
    transactions: int = 0
    parse_errors: int = 0
    spill_bytes: int = 0
    # changes LogMiner showed without their ROWID that no row of their statement gave one
    # (quarantined in a table keyed by ROWID: docs/transactions.md §2), since the last start
    changes_without_row_id: int = 0
    open_transactions: int = 0
    oldest_open_scn: int | None = None
    abandoned_transactions: int = 0  # discarded by mining.transaction_retention_scns
    mined_to_scn: int | None = None
    source_scn: int | None = None
    redo_logs: list[str] = field(default_factory=list)
    phase_seconds: dict[str, float] = field(default_factory=dict)
    # The highest batch id landed, of any kind (a table's changes, snapshot chunk or reset
    # marker, or only quarantined rows or schema history): compared with the checkpoint's
    # next batch id, it tells whether this file missed a landing (a crash between the
    # checkpoint and this file, or the file lost); a sync cycle then builds everything.
    last_batch_id: int | None = None
    updated_at: str | None = None

    def batch_landed(self, batch_id: int) -> None:
        if self.last_batch_id is None or batch_id > self.last_batch_id:
            self.last_batch_id = batch_id

    def table(self, name: str) -> TableStats:
        return self.tables.setdefault(name, TableStats())

    def record_commit(
        self, name: str, rows: int, commit_scn: int, commit_ts: datetime | None, batch_id: int
    ) -> None:
        stats = self.table(name)
        stats.rows_landed += rows
        stats.last_batch_id = batch_id
        self.batch_landed(batch_id)
        if stats.last_commit_scn is None or commit_scn > stats.last_commit_scn:
            stats.last_commit_scn = commit_scn
            stats.last_commit_time = commit_ts.isoformat() if commit_ts else None

    def add_phase(self, phase: str, seconds: float) -> None:
        self.phase_seconds[phase] = self.phase_seconds.get(phase, 0.0) + seconds


def load_stats(data_dir: Path) -> ExtractorStats:
    path = data_dir / STATS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return ExtractorStats()
    tables = {name: TableStats(**values) for name, values in raw.pop("tables", {}).items()}
    known = {k: v for k, v in raw.items() if k in ExtractorStats.__dataclass_fields__}
    return ExtractorStats(tables=tables, **known)


def save_stats(data_dir: Path, stats: ExtractorStats) -> None:
    stats.updated_at = datetime.now().astimezone().isoformat(timespec="seconds")
    text = json.dumps(asdict(stats), indent=2, sort_keys=True) + "\n"
    write_text_atomically(data_dir / STATS_FILE, text)
    write_text_atomically(data_dir / METRICS_FILE, prometheus_text(stats))


def prometheus_text(stats: ExtractorStats) -> str:
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, Any]]) -> None:
        lines.append(f"# HELP oracdc_{name} {help_text}")
        lines.append(f"# TYPE oracdc_{name} {kind}")
        for labels, value in samples:
            if value is not None:
                lines.append(f"oracdc_{name}{labels} {value}")

    per_table = sorted(stats.tables.items())
    metric(
        "rows_landed_total",
        "counter",
        "Change rows landed in staging, per table.",
        [(f'{{table="{_label(n)}"}}', t.rows_landed) for n, t in per_table],
    )
    metric(
        "quarantined_total",
        "counter",
        "Changes quarantined in the errors table, per table.",
        [(f'{{table="{_label(n)}"}}', t.quarantined) for n, t in per_table],
    )
    metric(
        "resnapshots_total",
        "counter",
        "Snapshots taken again after row-moving DDL (MOVE, SHRINK SPACE, ...), per table.",
        [(f'{{table="{_label(n)}"}}', t.resnapshots) for n, t in per_table],
    )
    metric(
        "last_commit_scn",
        "gauge",
        "Commit SCN of the last change landed, per table.",
        [(f'{{table="{_label(n)}"}}', t.last_commit_scn) for n, t in per_table],
    )
    metric("rows_read_total", "counter", "LogMiner rows read.", [("", stats.rows_read)])
    metric("transactions_total", "counter", "Committed transactions.", [("", stats.transactions)])
    metric("parse_errors_total", "counter", "Rows quarantined.", [("", stats.parse_errors)])
    metric("window_scns", "gauge", "Current mining window size in SCNs.", [("", stats.window_scns)])
    metric("spill_bytes_total", "counter", "Bytes spilled to disk.", [("", stats.spill_bytes)])
    metric(
        "changes_without_rowid_total",
        "counter",
        "Changes shown without their ROWID that no row of their statement gave one.",
        [("", stats.changes_without_row_id)],
    )
    metric(
        "abandoned_transactions_total",
        "counter",
        "Open transactions discarded by the retention limit.",
        [("", stats.abandoned_transactions)],
    )
    metric("mined_to_scn", "gauge", "End of the last mining window.", [("", stats.mined_to_scn)])
    lag = (
        None
        if stats.source_scn is None or stats.mined_to_scn is None
        else stats.source_scn - stats.mined_to_scn
    )
    metric("lag_scns", "gauge", "Source SCN minus mined SCN at the last window.", [("", lag)])
    metric(
        "phase_seconds_total",
        "counter",
        "Seconds spent per phase.",
        [(f'{{phase="{_label(p)}"}}', round(s, 3)) for p, s in sorted(stats.phase_seconds.items())],
    )
    return "\n".join(lines) + "\n"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
