"""How each table starts and what happens when the redo it needs is gone (``snapshot_mode``,
``snapshot_modes`` in oracdc.yml; docs/extraction.md, "Snapshot modes").

- ``initial``: snapshot once, then stream (the default).
- ``no_data``: no snapshot rows: the table's first start lands only a reset marker at the
  handover SCN and streams from there; its replica holds the rows changed since. A later
  snapshot of the table (``oracdc snapshot --force``, row-moving DDL) reads its rows.
- ``initial_only``: snapshot once, never stream.
- ``when_needed``: as ``initial``; when the redo from the resume position is gone
  (``MissingRedoLogError``), the tables are snapshotted again and mining restarts at the new
  handover, provided every streamed table has this mode.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast, get_args

from extractor.errors import ConfigError
from extractor.name_patterns import table_matches

SnapshotMode = Literal["initial", "no_data", "initial_only", "when_needed"]
SNAPSHOT_MODES: Final[tuple[str, ...]] = get_args(SnapshotMode)
_TABLE_PART = re.compile(r"^[A-Za-z0-9_$#*?]{1,128}$")
_MEANINGS = (
    "initial (snapshot, then stream), no_data (stream from now), initial_only (snapshot, "
    "never stream), when_needed (as initial, and snapshot again when the redo is gone)"
)


@dataclass(frozen=True)
class SnapshotModes:
    """The global mode and the per-table ones (``OWNER.TABLE`` patterns, first match wins)."""

    default: SnapshotMode = "initial"
    per_table: tuple[tuple[str, str, SnapshotMode], ...] = ()

    def mode_of(self, owner: str, table: str) -> SnapshotMode:
        for owner_pattern, table_pattern, mode in self.per_table:
            if table_matches(owner_pattern, table_pattern, owner, table):
                return mode
        return self.default

    def streams(self, owner: str, table: str) -> bool:
        """False for ``initial_only``: the table's changes are never mined."""
        return self.mode_of(owner, table) != "initial_only"

    @property
    def names(self) -> tuple[tuple[str, str], ...]:
        return tuple((o, t) for o, t, _ in self.per_table)


def parse_snapshot_modes(
    raw_mode: Any, raw_modes: Any, source_kind: str, where: str
) -> SnapshotModes:
    """``snapshot_mode`` and ``snapshot_modes``; ConfigError naming the key and the fix."""
    default = _mode(raw_mode if raw_mode is not None else "initial", "snapshot_mode", where)
    if raw_modes is None:
        raw_modes = {}
    if not isinstance(raw_modes, Mapping):
        raise ConfigError(
            f"{where}: snapshot_modes must map OWNER.TABLE entries to a mode",
            fix="e.g. snapshot_modes: {SALES.EVENTS: no_data}",
        )
    per_table: list[tuple[str, str, SnapshotMode]] = []
    for name, mode in raw_modes.items():
        owner, dot, table = str(name).strip().partition(".")
        if not dot or not _TABLE_PART.match(owner) or not _TABLE_PART.match(table):
            raise ConfigError(
                f"{where}: snapshot_modes entry {name!r} is not OWNER.TABLE "
                "(letters, digits, _ $ #, * ?)"
            )
        per_table.append(
            (owner.upper(), table.upper(), _mode(mode, f"snapshot_modes.{name}", where))
        )
    modes = SnapshotModes(default, tuple(per_table))
    if source_kind == "replay" and "when_needed" in (default, *(m for _, _, m in per_table)):
        raise ConfigError(
            f"{where}: snapshot mode when_needed needs a source that can snapshot again; a "
            "replay bundle holds one snapshot",
            fix="use initial with kind replay",
        )
    return modes


def _mode(raw: Any, key: str, where: str) -> SnapshotMode:
    if raw not in SNAPSHOT_MODES:
        raise ConfigError(f"{where}: {key}: {raw!r} is not a snapshot mode", fix=f"use {_MEANINGS}")
    return cast(SnapshotMode, raw)
