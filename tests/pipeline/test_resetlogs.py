"""A source database opened with RESETLOGS (point-in-time recovery, FLASHBACK DATABASE, a
failover): the changes committed above the recovery SCN are gone, and the new incarnation
hands out their SCNs again. Replication stops until every table is snapshotted again; the
new snapshot waits for the source's SCN to pass every SCN landed before, so that its reset
markers retire the lost changes; the replicas then equal the source."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from extractor.config import OracdcConfig
from extractor.errors import SourceIncarnationError, SyncStepError
from extractor.incarnation import SourceIncarnation
from extractor.pipeline import incarnation_guard
from extractor.pipeline.extractor import Extractor, open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.state.checkpoint import CHECKPOINT_FILE, CheckpointStore
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import ITEMS, make_config


def _run(
    config: OracdcConfig,
    db: SimDatabase,
    staging: MemoryStagingWriter,
    step: Callable[[Extractor], Any],
) -> Any:
    """``step`` in a new extractor process on ``db``."""
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging) as extractor:
        return step(extractor)


def _cycle(
    config: OracdcConfig,
    db: SimDatabase,
    staging: MemoryStagingWriter,
    fault: Callable[[str], None] | None = None,
) -> None:
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging, fault=fault) as extractor:
        extract_and_land(extractor, {})


class _Crash(Exception):
    pass


def _crash_before_checkpoint(at: str) -> None:
    if at == "stream:before_checkpoint":
        raise _Crash(at)


def _write(db: SimDatabase, *, insert: tuple[int, ...] = (), update: tuple[int, ...] = (),
           delete: tuple[int, ...] = (), qty: int = 0) -> None:  # fmt: skip
    txn = db.begin()
    for key in insert:
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"item {key}", "QTY": key})
    for key in update:
        txn.update("APP", "ITEMS", lambda r, k=key: r["ID"] == k, {"QTY": qty})
    for key in delete:
        txn.delete("APP", "ITEMS", lambda r, k=key: r["ID"] == k)
    txn.commit()


def _advancing(step: Callable[[], object]) -> SimpleNamespace:
    """``time`` for the snapshot's wait: each sleep runs ``step`` on the source (which goes
    on making changes) instead of sleeping; a wait that never ends fails."""
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        assert len(sleeps) < 1_000, "the snapshot waits for ever"
        step()

    return SimpleNamespace(sleep=sleep, monotonic=time.monotonic)


def _incarnation(db: SimDatabase) -> SourceIncarnation:
    return SourceIncarnation(db.dbid, db.resetlogs_change, db.resetlogs_time)


def _replica_differences(db: SimDatabase, staging: MemoryStagingWriter) -> list[str]:
    table = db.table("APP", "ITEMS")
    replica = consolidate(table, staging.staged_rows(table))
    expected = truth_by_key(table, db.truth("APP", "ITEMS", db.current_scn()))
    return differences(expected, replica)


def _snapshot_force(extractor: Extractor) -> None:
    """What `oracdc snapshot --force` does."""
    extractor.take_again(extractor.registry.resolve(), "oracdc snapshot --force")
    extractor.snapshot()


def _replicated(
    tmp_path: Path, schema: str, *keys: int
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    """ITEMS with rows ``keys``, replicated by one cycle."""
    db = SimDatabase()
    db.create_table(ITEMS)
    _write(db, insert=keys)
    config = make_config(tmp_path, schema)
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)
    return db, config, staging


def _restored(
    tmp_path: Path, schema: str, *, crash: bool = False, **config: Any
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter, int]:
    """ITEMS replicated; changes landed, then lost by a recovery to the SCN before them;
    the new incarnation's own changes at the SCNs the lost ones had. Returns the highest
    commit SCN landed from the lost stretch. ``crash``: the
    process that landed the lost changes crashed before its checkpoint covered them."""
    db = SimDatabase()
    db.create_table(ITEMS)
    _write(db, insert=(1, 2, 3))
    made = make_config(tmp_path, schema, **config)
    staging = MemoryStagingWriter(made.staging_schema)
    _cycle(made, db, staging)
    recovered_to = db.current_scn()
    _write(db, insert=(4,), update=(1,), delete=(2,), qty=100)  # lost by the recovery
    for _ in range(3):  # SCNs without changes: mining ends above the last commit
        db.switch_log()
    if crash:
        with pytest.raises(_Crash):
            _cycle(made, db, staging, _crash_before_checkpoint)
        with CheckpointStore(made.data_dir) as store:
            assert (store.current.mined_to_scn or 0) < (staging.max_commit_scn() or 0)
    else:
        _cycle(made, db, staging)
    landed = staging.max_commit_scn()
    assert landed is not None and landed > recovered_to
    assert db.open_resetlogs(recovered_to) == recovered_to + 1
    _write(db, insert=(5,))  # at SCNs the lost changes had
    assert db.current_scn() < landed
    return db, made, staging, landed


def test_a_new_incarnation_stops_streaming_with_the_fix(tmp_path: Path) -> None:
    db, config, staging, _ = _restored(tmp_path, "t_resetlogs_stop")
    landed_before = staging.staged_rows(ITEMS)
    with CheckpointStore(config.data_dir) as store:
        checkpoint_before = store.current
    with pytest.raises(SyncStepError) as raised:
        _cycle(config, db, staging)
    assert "opened with RESETLOGS at SCN" in str(raised.value)
    assert "oracdc snapshot --force" in (raised.value.fix or "")
    # nothing landed, nothing moved: the checkpoint still names the earlier incarnation
    assert staging.staged_rows(ITEMS) == landed_before
    with CheckpointStore(config.data_dir) as store:
        assert store.current == checkpoint_before
        assert store.current.incarnation == SourceIncarnation(db.dbid, 1, "2023-11-06 09:30:01")


@pytest.mark.parametrize("crash", [False, True], ids=["checkpointed", "landed-not-checkpointed"])
def test_snapshot_force_waits_for_the_scn_to_pass_and_retires_the_lost_changes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    crash: bool,
) -> None:
    schema = f"t_resetlogs_force_{int(crash)}"
    db, config, staging, landed = _restored(tmp_path, schema, crash=crash)
    waits: list[int] = []

    def go_on() -> None:  # the new incarnation goes on making changes
        waits.append(db.current_scn())
        _write(db, update=(5,), qty=len(waits))

    monkeypatch.setattr(incarnation_guard, "time", _advancing(go_on))

    with caplog.at_level(logging.WARNING):
        _run(config, db, staging, _snapshot_force)
    assert waits and all(scn <= landed for scn in waits)
    assert "snapshot waits for the source's SCN to pass" in caplog.text
    with CheckpointStore(config.data_dir) as store:
        checkpoint = store.current
    assert checkpoint.incarnation == _incarnation(db)
    assert checkpoint.snapshot_above_scn is None
    snapshot_scn = checkpoint.tables["APP.ITEMS"].snapshot_scn
    assert snapshot_scn is not None and snapshot_scn > landed
    # `verify` compares the table at its snapshot, not at an SCN mined before the RESETLOGS
    assert checkpoint.replica_scn_of("APP.ITEMS") == snapshot_scn
    _write(db, insert=(6,), delete=(1,))
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_when_needed_snapshots_again_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, config, staging, landed = _restored(
        tmp_path, "t_resetlogs_when", snapshot_mode="when_needed"
    )
    monkeypatch.setattr(
        incarnation_guard, "time", _advancing(lambda: _write(db, update=(3,), qty=7))
    )
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    _write(db, insert=(7,), update=(5,), qty=9)
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    with CheckpointStore(config.data_dir) as store:
        assert store.current.tables["APP.ITEMS"].snapshot_scn > landed  # type: ignore[operator]


def test_when_needed_in_a_streaming_process_sends_the_tables_back_to_be_snapshotted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`oracdc stream`'s loop: the pass that meets the new incarnation mines nothing and
    leaves the tables to the snapshot that follows it."""
    db, config, staging, _ = _restored(tmp_path, "t_resetlogs_stream", snapshot_mode="when_needed")
    monkeypatch.setattr(
        incarnation_guard, "time", _advancing(lambda: _write(db, update=(3,), qty=8))
    )

    def stream_then_snapshot(extractor: Extractor) -> None:
        result = extractor.stream_once()
        assert (result.windows, result.change_rows) == (0, 0)
        assert extractor.snapshot_pending()
        extractor.snapshot()
        extractor.stream_once()

    _run(config, db, staging, stream_then_snapshot)
    assert _replica_differences(db, staging) == []


def test_a_recovery_above_everything_landed_needs_no_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mining had passed the recovery SCN, but no change landed above it: the snapshot is
    taken at once, and the table is at its snapshot, not where mining was."""
    db, config, staging = _replicated(tmp_path, "t_resetlogs_nowait", 1, 2)
    _write(db, update=(1,), qty=5)
    for _ in range(5):  # SCNs without changes: mining ends above the last commit
        db.switch_log()
    _cycle(config, db, staging)
    landed = staging.max_commit_scn()
    with CheckpointStore(config.data_dir) as store:
        mined_to = store.current.mined_to_scn
    assert landed is not None and mined_to is not None and mined_to > landed + 2
    db.open_resetlogs(landed)  # keeps every change landed

    def no_sleep() -> None:
        raise AssertionError("waited although nothing landed above the RESETLOGS SCN")

    monkeypatch.setattr(incarnation_guard, "time", _advancing(no_sleep))

    _run(config, db, staging, _snapshot_force)
    with CheckpointStore(config.data_dir) as store:
        snapshot_scn = store.current.tables["APP.ITEMS"].snapshot_scn
        assert snapshot_scn is not None and snapshot_scn < mined_to
        assert store.current.replica_scn_of("APP.ITEMS") == snapshot_scn
    _write(db, insert=(3,))
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_a_second_restore_to_the_same_scn_is_another_incarnation_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flashed back to one restore point twice: RESETLOGS_CHANGE# is the same both times,
    RESETLOGS_TIME is not."""
    db, config, staging, _ = _restored(tmp_path, "t_resetlogs_twice", snapshot_mode="when_needed")
    monkeypatch.setattr(incarnation_guard, "time", _advancing(lambda: _write(db, update=(3,))))
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    first = _incarnation(db)
    _write(db, insert=(8,), update=(1,), qty=11)  # lost by the second restore
    _cycle(config, db, staging)
    db.open_resetlogs(first.resetlogs_change - 1)
    assert _incarnation(db).resetlogs_change == first.resetlogs_change
    _write(db, insert=(9,), update=(3,), qty=12)
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_a_checkpoint_moved_aside_after_a_restore_still_retires_the_lost_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkpoint that would have named the earlier incarnation is gone: staging rows
    above the source's SCN tell that one was lost."""
    db, config, staging, _ = _restored(tmp_path, "t_resetlogs_moved_aside")
    assert (staging.max_commit_scn() or 0) > db.current_scn()
    (config.data_dir / CHECKPOINT_FILE).rename(config.data_dir / "checkpoint.json.aside")
    waits: list[int] = []

    def go_on() -> None:
        waits.append(db.current_scn())
        _write(db, update=(3,))

    monkeypatch.setattr(incarnation_guard, "time", _advancing(go_on))
    _cycle(config, db, staging)
    assert waits
    assert _replica_differences(db, staging) == []


def test_another_database_stops_replication(tmp_path: Path) -> None:
    db, config, staging = _replicated(tmp_path, "t_resetlogs_dbid", 1)
    with CheckpointStore(config.data_dir) as store:
        before = store.current
    db.dbid += 1

    for step in (Extractor.stream_once, Extractor.snapshot, _snapshot_force):
        with pytest.raises(SourceIncarnationError, match="another database") as raised:
            _run(config, db, staging, step)
        assert "source.dsn" in (raised.value.fix or "")
    with CheckpointStore(config.data_dir) as store:
        assert store.current == before  # not a table marked to be taken again


def test_a_checkpoint_written_before_incarnations_still_sees_a_restore(tmp_path: Path) -> None:
    """An older oracdc wrote the checkpoint, and the source was restored since: its mining
    position above the source's SCN tells."""
    db, config, staging, landed = _restored(tmp_path, "t_resetlogs_upgrade")
    while db.current_scn() <= landed:  # staging no longer above the source's SCN
        db.switch_log()
    with CheckpointStore(config.data_dir) as store:
        assert (store.current.mined_to_scn or 0) > db.current_scn()
        store.save(replace(store.current, incarnation=None))
    with pytest.raises(SyncStepError, match="restored to an earlier SCN") as raised:
        _cycle(config, db, staging)
    assert "oracdc snapshot --force" in (raised.value.fix or "")


def test_a_quarantined_last_transaction_does_not_stop_the_new_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last transaction landed before the restore may have landed no change row (its
    rows quarantined under error_policy warn): its commit SCN, in last_commit, is above
    every landed one, and a snapshot below last_commit is refused as a rule."""
    db, config, staging, landed = _restored(tmp_path, "t_resetlogs_quarantined")
    with CheckpointStore(config.data_dir) as store:
        last = store.current.last_commit
        assert last is not None
        store.save(replace(store.current, last_commit=replace(last, scn=landed + 5)))
    monkeypatch.setattr(incarnation_guard, "time", _advancing(lambda: _write(db, update=(3,))))

    _run(config, db, staging, _snapshot_force)
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_a_checkpoint_without_an_incarnation_takes_the_current_one(tmp_path: Path) -> None:
    db, config, staging = _replicated(tmp_path, "t_resetlogs_old_checkpoint", 1)
    with CheckpointStore(config.data_dir) as store:  # as written before incarnations
        store.save(replace(store.current, incarnation=None))
    _write(db, insert=(2,))
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    with CheckpointStore(config.data_dir) as store:
        assert store.current.incarnation == _incarnation(db)
