"""Recording a simulated database as a replay bundle (``docs/replay-bundle.md``, to the letter).

Written: ``bundle.json`` (database name, NLS, current SCN), ``dictionary.json`` (current
dictionary), one snapshot file per requested table and SCN (the AS OF rows), every
V$LOGMNR_CONTENTS row from ``since_scn`` (default: the first SCN whose redo is still
available) to the current SCN, and ``logs.json`` with one entry per log sequence (the
archived copy when there is one, else the online log).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from extractor.sim.database import SimDatabase
from extractor.source.replay import bundle_format as fmt
from extractor.source.replay import logminer_file

__all__ = ["record_bundle"]


def record_bundle(
    db: SimDatabase,
    out: Path,
    *,
    snapshot_scns: Mapping[tuple[str, str], int] | None = None,
    since_scn: int | None = None,
) -> Path:
    """Write ``db`` as a bundle in ``out`` (created; existing files are replaced)."""
    out.mkdir(parents=True, exist_ok=True)
    current = db.current_scn()
    fmt.write_header(
        out, fmt.BundleHeader(database=db.database_name, nls=db.nls, current_scn=current)
    )
    tables = sorted(db.tables(), key=lambda t: (t.owner, t.name))
    fmt.write_dictionary(out, tables)
    for (owner, name), scn in sorted((snapshot_scns or {}).items()):
        table = db.table(owner, name)
        fmt.write_snapshot(out, table, scn, db.snapshot_rows(owner, name, scn))
    entries = _log_entries(db)
    fmt.write_logs(out, entries)
    start = since_scn if since_scn is not None else _first_available_scn(entries)
    (out / fmt.LOGMINER_FILE).write_text("", encoding="utf-8")
    logminer_file.append_logminer(out, db.logminer_contents(start, current))
    return out


def _log_entries(db: SimDatabase) -> list[fmt.LogFileEntry]:
    by_sequence: dict[tuple[int, int], fmt.LogFileEntry] = {}
    for log in db.log_files():
        key = (log.thread, log.sequence)
        entry = fmt.LogFileEntry(
            thread=log.thread,
            sequence=log.sequence,
            first_change=log.first_change,
            next_change=log.next_change,
            name=log.name,
            archived=log.archived,
            available=log.available,
        )
        previous = by_sequence.get(key)
        if previous is None or (entry.available and not previous.available):
            by_sequence[key] = entry
    return [by_sequence[key] for key in sorted(by_sequence)]


def _first_available_scn(entries: list[fmt.LogFileEntry]) -> int:
    first = None
    for entry in reversed(entries):
        if not entry.available:
            break
        first = entry.first_change
    return first if first is not None else 0
