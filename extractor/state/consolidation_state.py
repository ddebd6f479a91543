"""Which landed batch each replica was last consolidated up to, for ``oracdc status``.

A sync cycle records, after a successful ``dbt build``, the last batch it had landed per table
(``consolidated.json`` in the data directory): the replica's incremental model takes every
staging row up to that batch. ``dbt run`` started by hand does not write this file;
``oracdc status --replicas`` reads the replicas' own watermark instead.
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


@dataclass(frozen=True)
class ConsolidatedBatch:
    """The last batch of a table that a successful ``dbt build`` took in, and when."""

    batch_id: int
    at: str


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
            batches[name] = ConsolidatedBatch(entry["batch_id"], str(entry["at"]))
    return batches


def record_consolidated(data_dir: Path, batches: Mapping[str, int], at: datetime) -> None:
    """Merge ``batches`` (table -> last batch taken in) into the file, stamped ``at``."""
    merged = load_consolidated(data_dir)
    stamp = at.isoformat(timespec="seconds")
    for name, batch_id in batches.items():
        merged[name] = ConsolidatedBatch(batch_id, stamp)
    text = json.dumps({n: asdict(b) for n, b in sorted(merged.items())}, indent=2)
    write_text_atomically(data_dir / CONSOLIDATED_FILE, text + "\n")
