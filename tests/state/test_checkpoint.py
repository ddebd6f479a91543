"""The durable checkpoint: round trip, atomic replace, batch-id reservation, the lock."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from extractor.errors import CheckpointCorruptError, CheckpointLockedError
from extractor.incarnation import SourceIncarnation
from extractor.redo_position import CommitPosition, RedoPosition
from extractor.state.checkpoint import Checkpoint, CheckpointStore, TableSnapshotState

BIG_REDO_POS = (0xC5D << 80) | (0x271 << 48) | (0x10 << 32) | 5

SAMPLE = Checkpoint(
    resume_scn=1_000,
    last_commit=CommitPosition(1_200, RedoPosition(0xC5D, 0x271, 0x10, 5)),
    mined_to_scn=1_300,
    tables={
        "HR.EMP": TableSnapshotState(
            status="running",
            snapshot_scn=900,
            resume_token="AAAR3sAAEAAAACXAAB",
            rows_landed=20_000,
            added_at_scn=850,
        ),
        "HR.DEPT": TableSnapshotState(
            status="done", snapshot_scn=900, rows_landed=4, replica_key=("department_id",)
        ),
    },
    next_batch_id=42,
)


def test_missing_file_reads_as_the_initial_checkpoint(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:
        assert store.current == Checkpoint(
            resume_scn=None, last_commit=None, mined_to_scn=None, tables={}, next_batch_id=1
        )


def test_saved_checkpoint_reads_back_equal_after_restart(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:
        store.save(SAMPLE)

    with CheckpointStore(tmp_path) as restarted:
        assert restarted.current == SAMPLE


def test_file_is_versioned_json_with_redo_position_as_exact_text(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:
        store.save(SAMPLE)

    document = json.loads((tmp_path / "checkpoint.json").read_text())
    assert document["format"] == "oracdc-checkpoint"
    assert document["version"] == 4
    assert document["tables"]["HR.DEPT"]["replica_key"] == ["department_id"]
    assert "replica_key" not in document["tables"]["HR.EMP"]  # not known: not written
    assert document["last_commit"] == {"commit_scn": 1_200, "redo_pos": str(BIG_REDO_POS)}


def test_the_source_incarnation_and_the_snapshot_floor_read_back(tmp_path: Path) -> None:
    saved = replace(
        SAMPLE,
        incarnation=SourceIncarnation(3_148_472_117, 1_920_977, "2026-11-02 04:17:09"),
        snapshot_above_scn=1_350,
    )
    with CheckpointStore(tmp_path) as store:
        store.save(saved)
    document = json.loads((tmp_path / "checkpoint.json").read_text())
    assert document["incarnation"] == {
        "dbid": 3_148_472_117,
        "resetlogs_change": 1_920_977,
        "resetlogs_time": "2026-11-02 04:17:09",
    }
    assert document["snapshot_above_scn"] == 1_350
    with CheckpointStore(tmp_path) as restarted:
        assert restarted.current == saved
    with CheckpointStore(tmp_path) as store:  # a checkpoint without them has neither key
        store.save(SAMPLE)
    document = json.loads((tmp_path / "checkpoint.json").read_text())
    assert "incarnation" not in document and "snapshot_above_scn" not in document


def test_an_incarnation_that_is_not_dbid_scn_and_time_is_refused(tmp_path: Path) -> None:
    incarnation = {"dbid": "x", "resetlogs_change": 1, "resetlogs_time": "2026-11-02 04:17:09"}
    document = {**SAMPLE.to_json(), "incarnation": incarnation}
    (tmp_path / "checkpoint.json").write_text(json.dumps(document))
    with pytest.raises(CheckpointCorruptError):
        CheckpointStore(tmp_path)


def test_crash_between_temp_write_and_rename_keeps_the_old_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CheckpointStore(tmp_path) as store:
        store.save(SAMPLE)

        def crash(*_: object) -> None:
            raise OSError("power cut")

        monkeypatch.setattr(os, "replace", crash)
        with pytest.raises(OSError, match="power cut"):
            store.save(Checkpoint(resume_scn=5_000, next_batch_id=99))
        monkeypatch.undo()

    with CheckpointStore(tmp_path) as restarted:
        assert restarted.current == SAMPLE


def test_reserved_batch_ids_increase_across_a_restart(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:
        first = [store.reserve_batch_id(), store.reserve_batch_id()]

    with CheckpointStore(tmp_path) as restarted:
        after_restart = restarted.reserve_batch_id()

    assert first == [1, 2]
    assert after_restart == 3


def test_reservation_is_on_disk_before_the_id_is_returned(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:
        batch_id = store.reserve_batch_id()
        on_disk = json.loads((tmp_path / "checkpoint.json").read_text())["next_batch_id"]

    assert on_disk == batch_id + 1


def test_saving_a_stale_checkpoint_does_not_release_reserved_ids(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:
        stale = store.current
        store.reserve_batch_id()
        store.reserve_batch_id()
        store.save(stale)

    with CheckpointStore(tmp_path) as restarted:
        assert restarted.reserve_batch_id() == 3


def test_a_new_checkpoint_continues_above_the_landed_batch_ids(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:  # checkpoint.json moved aside: a fresh start
        store.continue_batch_ids_above(17)

    with CheckpointStore(tmp_path) as restarted:  # and it is on disk
        assert restarted.reserve_batch_id() == 18


def test_a_checkpoint_older_than_staging_continues_above_it(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path) as store:  # restored from a backup written at batch 41
        store.save(SAMPLE)
        store.continue_batch_ids_above(60)
        assert store.current.resume_scn == SAMPLE.resume_scn
        assert store.reserve_batch_id() == 61


@pytest.mark.parametrize("landed", [None, 3, 41])
def test_batch_ids_above_what_staging_holds_stay_as_they_are(
    tmp_path: Path, landed: int | None
) -> None:
    with CheckpointStore(tmp_path) as store:
        store.save(SAMPLE)
        store.continue_batch_ids_above(landed)
        assert store.reserve_batch_id() == 42


def test_second_store_on_the_same_directory_is_refused(tmp_path: Path) -> None:
    with CheckpointStore(tmp_path), pytest.raises(CheckpointLockedError, match="in use"):
        CheckpointStore(tmp_path)


def test_lock_is_released_on_close(tmp_path: Path) -> None:
    CheckpointStore(tmp_path).close()

    with CheckpointStore(tmp_path) as store:
        assert store.current.next_batch_id == 1


def test_corrupt_file_error_names_the_file_and_the_recovery(tmp_path: Path) -> None:
    (tmp_path / "checkpoint.json").write_text('{"format": "oracdc-checkpoint", "vers')

    with pytest.raises(CheckpointCorruptError) as raised:
        CheckpointStore(tmp_path)

    assert str(tmp_path / "checkpoint.json") in str(raised.value)
    assert raised.value.fix is not None and "move it aside" in raised.value.fix


def test_file_of_another_format_version_is_refused(tmp_path: Path) -> None:
    document = {**SAMPLE.to_json(), "version": 5}
    (tmp_path / "checkpoint.json").write_text(json.dumps(document))

    with pytest.raises(CheckpointCorruptError, match="version 5"):
        CheckpointStore(tmp_path)


def test_a_version_1_file_is_read(tmp_path: Path) -> None:
    """As the previous release wrote it: no pending tables, no mode flags."""
    (tmp_path / "checkpoint.json").write_text(
        '{"format": "oracdc-checkpoint", "version": 1, "resume_scn": 90, "last_commit": null, '
        '"mined_to_scn": 120, "next_batch_id": 4, "tables": {"HR.EMP": {"status": "done", '
        '"snapshot_scn": 100, "resume_token": null, "rows_landed": 3, "added_at_scn": 100}}}'
    )
    with CheckpointStore(tmp_path) as store:
        state = store.current.tables["HR.EMP"]
    assert state.status == "done" and state.snapshot_scn == 100
    assert not state.no_data and not state.initial_only
    assert store.current.resume_scn == 90


def test_unknown_snapshot_status_is_refused(tmp_path: Path) -> None:
    document = SAMPLE.to_json()
    document["tables"]["HR.EMP"]["status"] = "halfway"
    (tmp_path / "checkpoint.json").write_text(json.dumps(document))

    with pytest.raises(CheckpointCorruptError, match="halfway"):
        CheckpointStore(tmp_path)


def test_with_table_replaces_one_table_state() -> None:
    done = TableSnapshotState(status="done", snapshot_scn=900, rows_landed=30_000)

    updated = SAMPLE.with_table("HR.EMP", done)

    assert updated.tables == {"HR.EMP": done, "HR.DEPT": SAMPLE.tables["HR.DEPT"]}


def test_a_table_snapshotted_after_the_last_window_is_at_its_snapshot_scn() -> None:
    done = TableSnapshotState("done", snapshot_scn=150, added_at_scn=150)
    running = TableSnapshotState("running", snapshot_scn=170, added_at_scn=170)
    checkpoint = (
        Checkpoint(mined_to_scn=160)
        .with_table("A.AHEAD", replace_scn(done, 170))
        .with_table("A.BEHIND", done)
        .with_table("A.RUNNING", running)
    )
    assert [checkpoint.replica_scn_of(t) for t in ("A.AHEAD", "A.BEHIND", "A.RUNNING")] == [
        170,
        160,
        160,
    ]
    assert Checkpoint().with_table("A.AHEAD", done).replica_scn_of("A.AHEAD") == 150


def replace_scn(state: TableSnapshotState, scn: int) -> TableSnapshotState:
    return TableSnapshotState(state.status, snapshot_scn=scn, added_at_scn=scn)
