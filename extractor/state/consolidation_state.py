"""Which landed batch each replica was last consolidated up to, for ``oracdc status`` and for
choosing what the next sync cycle builds (``pipeline/build_plan.py``).

A sync cycle records, after a successful ``dbt build``, the last batch it had landed per table
it built (``consolidated.json`` in the data directory), why it built it and digests of the
table's columns and of the replica's model files: the replica's incremental model takes every
staging row up to that batch.
``builds.json`` counts the cycles since the last full build. ``dbt run`` started by hand
writes neither file; ``oracdc status --replicas`` reads the replicas' own watermark instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from extractor.atomic_file import write_text_atomically
from extractor.state.stats import ExtractorStats

CONSOLIDATED_FILE = "consolidated.json"


BUILDS_FILE = "builds.json"


@dataclass(frozen=True)
class ConsolidatedBatch:
    """The last batch of a table that a successful ``dbt build`` took in, when, why that
    build included the table, and a digest of the table's columns then (empty: not
    recorded, a file written before these were)."""

    batch_id: int
    at: str
    reason: str = ""
    columns: str = ""
    model: str = ""  # digest of the replica's model files then


def landed_batches(stats: ExtractorStats) -> dict[str, int]:
    """The last batch landed per table, as the counters hold it now."""
    return {
        name: table.last_batch_id
        for name, table in stats.tables.items()
        if table.last_batch_id is not None
    }


def load_consolidated(data_dir: Path) -> dict[str, ConsolidatedBatch]:
    """What the file holds; a missing or damaged file (or entry) counts as not recorded."""
    path = data_dir / CONSOLIDATED_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    batches = {}
    for name, entry in raw.items():
        if isinstance(entry, dict) and isinstance(entry.get("batch_id"), int) and "at" in entry:
            batches[name] = ConsolidatedBatch(
                entry["batch_id"],
                str(entry["at"]),
                str(entry.get("reason") or ""),
                str(entry.get("columns") or ""),
                str(entry.get("model") or ""),
            )
    return batches


def record_consolidated(
    data_dir: Path,
    batches: Mapping[str, int],
    at: datetime,
    *,
    reasons: Mapping[str, str] | None = None,
    columns: Mapping[str, str] | None = None,
    models: Mapping[str, str] | None = None,
) -> None:
    """Merge ``batches`` (table -> last batch taken in) into the file, stamped ``at``, with
    why each was built and the digests of its columns and model files when given."""
    merged = load_consolidated(data_dir)
    stamp = at.isoformat(timespec="seconds")
    for name, batch_id in batches.items():
        merged[name] = ConsolidatedBatch(
            batch_id,
            stamp,
            (reasons or {}).get(name, ""),
            (columns or {}).get(name, ""),
            (models or {}).get(name, ""),
        )
    text = json.dumps({n: asdict(b) for n, b in sorted(merged.items())}, indent=2)
    write_text_atomically(data_dir / CONSOLIDATED_FILE, text + "\n")


def cycles_since_full_build(data_dir: Path) -> int | None:
    """Successful sync cycles since the last full ``dbt build`` (None: none recorded)."""
    try:
        raw = json.loads((data_dir / BUILDS_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    count = raw.get("cycles_since_full_build") if isinstance(raw, dict) else None
    return count if isinstance(count, int) and count >= 0 else None


def record_build(data_dir: Path, *, full: bool, at: datetime) -> None:
    """Count a successful cycle's build (a full one restarts the count)."""
    before = cycles_since_full_build(data_dir)
    count = 0 if full else (before or 0) + 1
    text = json.dumps({"cycles_since_full_build": count, "updated_at": at.isoformat()}, indent=2)
    write_text_atomically(data_dir / BUILDS_FILE, text + "\n")
