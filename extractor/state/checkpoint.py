"""The extractor's durable checkpoint: one JSON file under the data directory.

Written by atomic replace (temporary file, flush, fsync, rename, fsync of the directory), so a
crash leaves either the old or the new checkpoint, never a torn one. The pipeline saves a
checkpoint only after the data it covers has landed; batch ids are reserved (durably) before
their data lands, so a crash can skip an id but never reuse one.

An exclusive ``fcntl`` lock on ``checkpoint.lock`` keeps a second extractor process off the
same data directory.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Literal, cast, get_args

from extractor.atomic_file import write_text_atomically
from extractor.errors import CheckpointCorruptError, CheckpointError, CheckpointLockedError
from extractor.incarnation import SourceIncarnation
from extractor.process_lock import (
    ProcessLockHeldError,
    acquire_process_lock,
    release_process_lock,
)
from extractor.redo_position import CommitPosition

LOG = logging.getLogger(__name__)

CHECKPOINT_FILE: Final = "checkpoint.json"
LOCK_FILE: Final = "checkpoint.lock"
FORMAT_NAME: Final = "oracdc-checkpoint"
# 2: tables waiting for a new snapshot stay listed as "pending" (1 removed them), and the
# no_data / initial_only flags. 3: the source's incarnation and the SCN the next snapshot
# must pass (an older oracdc would drop them and snapshot below lost changes). 4: each
# table's replica key at its snapshot (an older oracdc would not snapshot a table again when
# its key changes). Versions 1 to 3 are read (they hold none of these).
FORMAT_VERSION: Final = 4
READABLE_VERSIONS: Final = (1, 2, 3, 4)

SnapshotStatus = Literal["pending", "running", "done"]
SNAPSHOT_STATUSES: Final[tuple[str, ...]] = get_args(SnapshotStatus)


@dataclass(frozen=True)
class TableSnapshotState:
    """Snapshot progress of one replicated table (key ``OWNER.TABLE`` in ``Checkpoint``).

    ``resume_token`` is the source layer's opaque text naming the last landed chunk;
    ``added_at_scn`` the SCN at which the table joined replication. ``no_data``: the table
    started without snapshot rows (``snapshot_mode: no_data``): its replica holds what changed
    since ``snapshot_scn``. ``initial_only``: it was snapshotted under that mode and is not
    streamed. ``pending``: the table was replicated and waits for a new snapshot
    (row-moving DDL, ``oracdc snapshot --force``, a redo gap under ``when_needed``).
    ``object_ids``: the OBJECT_IDs its rows still to be mined may carry, an earlier table's
    under its name (dropped since) among them: a new process mines them too. ``replica_key``:
    the replica's key (``keys.consolidation_key``) when the snapshot was taken; a table whose
    key is another now is snapshotted again (empty: not known, taken by an older oracdc).
    """

    status: SnapshotStatus = "pending"
    snapshot_scn: int | None = None
    resume_token: str | None = None
    rows_landed: int = 0
    added_at_scn: int | None = None
    no_data: bool = False
    initial_only: bool = False  # snapshotted under snapshot_mode initial_only: not streamed
    object_ids: tuple[int, ...] = ()
    replica_key: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "snapshot_scn": self.snapshot_scn,
            "resume_token": self.resume_token,
            "rows_landed": self.rows_landed,
            "added_at_scn": self.added_at_scn,
            **({"no_data": True} if self.no_data else {}),
            **({"initial_only": True} if self.initial_only else {}),
            **({"object_ids": list(self.object_ids)} if self.object_ids else {}),
            **({"replica_key": list(self.replica_key)} if self.replica_key else {}),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TableSnapshotState:
        status = raw["status"]
        if status not in SNAPSHOT_STATUSES:
            raise ValueError(f"snapshot status {status!r} is not one of {SNAPSHOT_STATUSES}")
        token = raw.get("resume_token")
        return cls(
            status=cast(SnapshotStatus, status),
            snapshot_scn=_optional_int(raw.get("snapshot_scn")),
            resume_token=None if token is None else str(token),
            rows_landed=_int(raw.get("rows_landed", 0)),
            added_at_scn=_optional_int(raw.get("added_at_scn")),
            no_data=raw.get("no_data") is True,
            initial_only=raw.get("initial_only") is True,
            object_ids=tuple(_int(n) for n in raw.get("object_ids") or ()),
            replica_key=tuple(str(c) for c in raw.get("replica_key") or ()),
        )


@dataclass(frozen=True)
class Checkpoint:
    """Where the extractor stands.

    ``resume_scn``: where mining restarts (at or below the start of every still-open
    transaction). ``last_commit``: the last transaction landed; a restart skips transactions
    at or below it. ``mined_to_scn``: the end of the last mining window processed.
    ``next_batch_id``: the lowest batch id never handed out. ``incarnation``: the source
    database and incarnation the positions are in (None: not read yet, or a replay bundle).
    ``snapshot_above_scn``: after a RESETLOGS of the source, the highest commit SCN landed
    before; the next snapshot waits for the source's SCN to pass it, so that its reset
    markers order after (and retire) every row landed before (docs/extraction.md).
    """

    resume_scn: int | None = None
    last_commit: CommitPosition | None = None
    mined_to_scn: int | None = None
    tables: Mapping[str, TableSnapshotState] = field(default_factory=dict)
    next_batch_id: int = 1
    incarnation: SourceIncarnation | None = None
    snapshot_above_scn: int | None = None

    def with_table(self, qualified_name: str, state: TableSnapshotState) -> Checkpoint:
        """A copy with the snapshot state of one table replaced."""
        return replace(self, tables={**self.tables, qualified_name: state})

    def replica_scn_of(self, qualified_name: str) -> int | None:
        """The SCN of the source state that a table's landed rows add up to: ``mined_to_scn``,
        or the table's snapshot SCN when that is later. A snapshot reads as of the current
        SCN while mining stops at the redo written so far, so a table snapshotted after the
        last window is ahead of the others until mining passes its snapshot SCN."""
        state = self.tables.get(qualified_name)
        snapshot = state.snapshot_scn if state is not None and state.status == "done" else None
        if self.mined_to_scn is None or snapshot is None:
            return self.mined_to_scn if snapshot is None else snapshot
        return max(self.mined_to_scn, snapshot)

    def known_objects(self) -> dict[int, tuple[str, str]]:
        """OBJECT_ID -> (owner, table) of every table's ``object_ids``."""
        return {
            object_id: (owner, table)
            for name, state in self.tables.items()
            for owner, table in [name.split(".", 1)]
            for object_id in state.object_ids
        }

    def with_objects(self, objects: Mapping[int, tuple[str, str]]) -> Checkpoint:
        """A copy whose tables' ``object_ids`` are those ``objects`` names them by (a table
        it does not name has none)."""
        by_table: dict[str, list[int]] = {}
        for object_id, (owner, table) in objects.items():
            by_table.setdefault(f"{owner}.{table}", []).append(object_id)
        tables = {
            name: replace(state, object_ids=tuple(sorted(by_table.get(name, ()))))
            for name, state in self.tables.items()
        }
        return replace(self, tables=tables)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "resume_scn": self.resume_scn,
            "last_commit": None if self.last_commit is None else self.last_commit.to_json(),
            "mined_to_scn": self.mined_to_scn,
            "next_batch_id": self.next_batch_id,
            "tables": {name: state.to_json() for name, state in sorted(self.tables.items())},
            **({"incarnation": self.incarnation.to_json()} if self.incarnation else {}),
            **(
                {"snapshot_above_scn": self.snapshot_above_scn}
                if self.snapshot_above_scn is not None
                else {}
            ),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Checkpoint:
        """Parse a checkpoint; raises ValueError / KeyError / TypeError on a bad document."""
        if raw.get("format") != FORMAT_NAME:
            raise ValueError(f"format is {raw.get('format')!r}, not {FORMAT_NAME!r}")
        if raw.get("version") not in READABLE_VERSIONS:
            raise ValueError(
                f"format version {raw.get('version')!r} is not one of {READABLE_VERSIONS} "
                "(written by another oracdc version)"
            )
        last_commit = raw.get("last_commit")
        incarnation = raw.get("incarnation")
        next_batch_id = _int(raw["next_batch_id"])
        if next_batch_id < 1:
            raise ValueError(f"next_batch_id {next_batch_id} is below 1")
        return cls(
            resume_scn=_optional_int(raw.get("resume_scn")),
            last_commit=None if last_commit is None else CommitPosition.from_json(last_commit),
            mined_to_scn=_optional_int(raw.get("mined_to_scn")),
            tables={
                str(name): TableSnapshotState.from_json(state)
                for name, state in dict(raw.get("tables") or {}).items()
            },
            next_batch_id=next_batch_id,
            incarnation=None if incarnation is None else SourceIncarnation.from_json(incarnation),
            snapshot_above_scn=_optional_int(raw.get("snapshot_above_scn")),
        )


class CheckpointStore:
    """The checkpoint file of one data directory, held under an exclusive lock.

    Use as a context manager (or call ``close``). ``current`` is the last checkpoint read or
    written; ``save`` never lowers ``next_batch_id`` below an id already reserved.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / CHECKPOINT_FILE
        data_dir.mkdir(parents=True, exist_ok=True)
        self._lock: IO[str] | None = _acquire_lock(data_dir / LOCK_FILE)
        try:
            self._current = self._read()
        except BaseException:
            self.close()
            raise

    @property
    def current(self) -> Checkpoint:
        return self._current

    def save(self, checkpoint: Checkpoint) -> Checkpoint:
        """Write ``checkpoint`` durably (keeping reserved batch ids reserved); returns it."""
        self._require_open()
        floor = self._current.next_batch_id
        if checkpoint.next_batch_id < floor:
            checkpoint = replace(checkpoint, next_batch_id=floor)
        write_text_atomically(self.path, json.dumps(checkpoint.to_json(), indent=2) + "\n")
        self._current = checkpoint
        return checkpoint

    def continue_batch_ids_above(self, landed_batch_id: int | None) -> Checkpoint:
        """Make the next batch id exceed ``landed_batch_id`` (the highest ``_batch_id`` in
        staging, ``StagingWriter.max_batch_id``), durably.

        dbt consolidates only batches above its watermark, the highest batch id it has seen:
        a checkpoint that is new (moved aside) or older than staging (restored from a backup)
        would hand out ids at or below it, and dbt would skip those batches without an error.
        """
        self._require_open()
        if landed_batch_id is None or landed_batch_id < self._current.next_batch_id:
            return self._current
        LOG.warning(
            "checkpoint %s hands out batch id %d but staging holds batches up to %d: batch "
            "ids continue at %d",
            self.path,
            self._current.next_batch_id,
            landed_batch_id,
            landed_batch_id + 1,
        )
        return self.save(replace(self._current, next_batch_id=landed_batch_id + 1))

    def reserve_batch_id(self) -> int:
        """A batch id never handed out before, recorded durably before it is returned."""
        batch_id = self._current.next_batch_id
        self.save(replace(self._current, next_batch_id=batch_id + 1))
        return batch_id

    def close(self) -> None:
        if self._lock is not None:
            release_process_lock(self._lock)
            self._lock = None

    def __enter__(self) -> CheckpointStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _require_open(self) -> None:
        if self._lock is None:
            raise CheckpointError("the store is closed", path=self.path)

    def _read(self) -> Checkpoint:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Checkpoint()
        try:
            return Checkpoint.from_json(json.loads(text))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise CheckpointCorruptError(
                f"unreadable ({type(error).__name__}: {error})",
                path=self.path,
                fix=(
                    f"restore {CHECKPOINT_FILE} from a backup, or move it aside and start the "
                    "extractor again: every table is then snapshotted again and batch ids "
                    "continue above the highest landed _batch_id"
                ),
            ) from error


def _acquire_lock(path: Path) -> IO[str]:
    try:
        return acquire_process_lock(path)
    except ProcessLockHeldError as held:
        raise CheckpointLockedError(
            f"data directory is in use by another oracdc process (pid {held.holder})",
            path=path.parent / CHECKPOINT_FILE,
            fix="stop the other extractor, or give this one its own --data-dir",
        ) from None


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return int(value)


def _optional_int(value: Any) -> int | None:
    return None if value is None else _int(value)
