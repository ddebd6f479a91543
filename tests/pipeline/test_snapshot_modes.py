"""Snapshot modes on the simulator: ``no_data`` streams from the start without reading rows,
``initial_only`` snapshots and never streams, ``when_needed`` snapshots again after a redo gap
(purged archived logs) and the staging rows still add up to the source; ``oracdc snapshot
--force`` takes tables again. Staging tables are held in memory; the replica is the tests'
reference consolidation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import MissingRedoLogError, SyncStepError
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.state.checkpoint import TableSnapshotState
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key


def _table(name: str) -> TableDef:
    return TableDef(
        "APP",
        name,
        (
            ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
            ColumnDef("V", 2, "VARCHAR2", 20),
        ),
        ("ID",),
        "ALL",
    )


A, B = _table("A"), _table("B")


def _config(work: Path, **settings: Any) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_modes", **settings},
        base_dir=work,
    )  # fmt: skip


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(A)
    db.create_table(B)
    _write(db, inserts=range(1, 4))
    return db


def _write(db: SimDatabase, *, inserts: range = range(0), update: int | None = None) -> None:
    txn = db.begin()
    for key in inserts:
        for table in ("A", "B"):
            txn.insert("APP", table, {"ID": key, "V": f"v{key}"})
    if update is not None:
        for table in ("A", "B"):
            txn.update("APP", table, lambda row: row["ID"] == update, {"V": f"changed{update}"})
    txn.commit()


def _replica(writer: MemoryStagingWriter, table: TableDef) -> dict[Any, Any]:
    return consolidate(table, writer.staged_rows(table))


def _source(db: SimDatabase, table: TableDef) -> dict[Any, Any]:
    return truth_by_key(table, db.truth(table.owner, table.name, db.current_scn()))


def _ops(writer: MemoryStagingWriter, table: TableDef) -> list[str]:
    return sorted(row["_op"] for row in writer.staged_rows(table))


def test_no_data_lands_only_a_reset_marker_then_streams(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_modes={"APP.A": "no_data"})
    writer = MemoryStagingWriter(config.staging_schema)
    extractor = extract_into_memory(db, config, writer)
    assert _ops(writer, A) == ["t"]
    assert _ops(writer, B) == ["r", "r", "r", "t"]  # the default mode, initial
    state = extractor.checkpoint.tables["APP.A"]
    assert state.status == "done" and state.no_data and state.rows_landed == 0

    _write(db, inserts=range(4, 5), update=2)
    extract_into_memory(db, config, writer)
    # only what changed since the start: the new row, and the updated one (a full image)
    assert sorted(int(k[0]) for k in _replica(writer, A)) == [2, 4]
    assert differences(_source(db, B), _replica(writer, B)) == []


def test_a_no_data_table_taken_again_is_read_in_full(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_modes={"APP.A": "no_data"})
    writer = MemoryStagingWriter(config.staging_schema)
    extractor = extract_into_memory(db, config, writer)
    db.move_rows("APP", "A")  # row-moving DDL: the table must be snapshotted again
    _write(db, update=3)
    extractor = extract_into_memory(db, config, writer)
    assert differences(_source(db, A), _replica(writer, A)) == []
    assert not extractor.checkpoint.tables["APP.A"].no_data


def test_initial_only_snapshots_and_never_streams(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_modes={"APP.B": "initial_only"})
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    snapshot = _source(db, B)
    _write(db, inserts=range(4, 6), update=1)
    extract_into_memory(db, config, writer)
    assert differences(snapshot, _replica(writer, B)) == []
    assert _ops(writer, B) == ["r", "r", "r", "t"]
    assert differences(_source(db, A), _replica(writer, A)) == []


def test_only_initial_only_tables_mine_nothing_and_fail_nothing(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_mode="initial_only")
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    _write(db, inserts=range(4, 5))
    extractor = extract_into_memory(db, config, writer)
    assert extractor.checkpoint.mined_to_scn is None
    assert len(writer.staged_rows(A)) == 4  # three rows and the reset marker


def _purge_the_redo_since_the_checkpoint(db: SimDatabase) -> int:
    """Changes in redo logs that are then switched out and purged: a gap. Returns the first
    SCN of the redo left."""
    _write(db, inserts=range(10, 12), update=2)
    for _ in range(3):
        db.switch_log()
    current = next(f for f in db.log_files() if f.status == "CURRENT")
    db.purge_archived_logs(below_sequence=current.sequence)
    _write(db, update=10)
    return current.first_change


def test_a_redo_gap_stops_an_initial_table_with_the_fix(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    _purge_the_redo_since_the_checkpoint(db)
    with pytest.raises(SyncStepError) as raised:
        extract_into_memory(db, config, writer)
    assert isinstance(raised.value.__cause__, MissingRedoLogError)
    assert "when_needed" in (raised.value.fix or "")


def test_when_needed_snapshots_again_after_a_redo_gap_and_stays_exact(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_mode="when_needed")
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    gap_from = db.current_scn()
    oldest_redo = _purge_the_redo_since_the_checkpoint(db)
    extractor = extract_into_memory(db, config, writer)  # no error: taken again, then streamed
    resumed = extractor.checkpoint.resume_scn
    assert resumed is not None and resumed >= oldest_redo > gap_from  # past the gap
    assert all(s.status == "done" for s in extractor.checkpoint.tables.values())
    for table in (A, B):
        assert differences(_source(db, table), _replica(writer, table)) == []
        assert _ops(writer, table).count("t") == 2  # the first snapshot's marker and the new one
    _write(db, inserts=range(20, 21), update=11)
    extract_into_memory(db, config, writer)
    for table in (A, B):
        assert differences(_source(db, table), _replica(writer, table)) == []
        assert _ops(writer, table).count("t") == 2  # streamed, not snapshotted again


def test_when_needed_on_some_tables_only_does_not_jump_the_gap(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_modes={"APP.A": "when_needed"})
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    _purge_the_redo_since_the_checkpoint(db)
    with pytest.raises(SyncStepError, match="is not available"):
        extract_into_memory(db, config, writer)  # B (initial) would lose the changes in the gap


def test_taking_one_table_again_keeps_mining_from_the_old_position(tmp_path: Path) -> None:
    """What ``oracdc snapshot --force --tables APP.A`` does: A is read again, B streams on."""
    db = _database()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    _write(db, inserts=range(4, 6), update=1)
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        extractor.take_again([A], "test")
        assert extractor.checkpoint.tables["APP.A"] == TableSnapshotState("pending")
        extract_and_land(extractor, {})
    for table in (A, B):
        assert differences(_source(db, table), _replica(writer, table)) == []
    assert _ops(writer, A).count("r") == 3 + 5  # the first snapshot and the second
    assert _ops(writer, B).count("r") == 3


def test_when_needed_reports_a_gap_a_new_snapshot_cannot_cure_without_looping(
    tmp_path: Path,
) -> None:
    """A transaction begun before the gap is still open: a new snapshot's handover (the oldest
    open transaction) lies inside the missing redo too. Reported at once; nothing is marked."""
    db = _database()
    config = _config(tmp_path, snapshot_mode="when_needed")
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    still_open = db.begin()
    still_open.insert("APP", "A", {"ID": 100, "V": "open across the gap"})
    _purge_the_redo_since_the_checkpoint(db)
    with pytest.raises(SyncStepError, match="a new snapshot would not get past it") as raised:
        extract_into_memory(db, config, writer)
    assert "end that transaction" in str(raised.value)
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=MemoryStagingWriter("t")) as extractor:
        states = extractor.checkpoint.tables.values()
    assert all(s.status == "done" for s in states)  # nothing was marked to be taken again
    assert _ops(writer, A).count("t") == 1  # and nothing was snapshotted again


def test_no_data_after_the_checkpoint_was_moved_aside_reads_the_table_in_full(
    tmp_path: Path,
) -> None:
    """Its staging rows outlived the checkpoint: a reset marker alone would empty the replica."""
    db = _database()
    writer = MemoryStagingWriter("t_modes")
    extract_into_memory(db, _config(tmp_path), writer)
    (tmp_path / "data" / "checkpoint.json").rename(tmp_path / "checkpoint.aside")
    _write(db, update=1)
    extractor = extract_into_memory(db, _config(tmp_path, snapshot_mode="no_data"), writer)
    for table in (A, B):
        assert differences(_source(db, table), _replica(writer, table)) == []
    assert not extractor.checkpoint.tables["APP.A"].no_data


@pytest.mark.parametrize(
    ("before", "after"),
    [("initial_only", "initial"), ("initial", "initial_only"), ("no_data", "initial")],
)
def test_a_table_whose_mode_changes_is_snapshotted_again(
    tmp_path: Path, before: str, after: str
) -> None:
    db = _database()
    writer = MemoryStagingWriter("t_modes")
    extract_into_memory(db, _config(tmp_path, snapshot_modes={"APP.B": before}), writer)
    _write(db, inserts=range(4, 6), update=1)
    extract_into_memory(db, _config(tmp_path, snapshot_modes={"APP.B": before}), writer)
    taken = _ops(writer, B).count("t")
    extractor = extract_into_memory(db, _config(tmp_path, snapshot_modes={"APP.B": after}), writer)
    assert _ops(writer, B).count("t") == taken + 1  # a new snapshot's reset marker
    assert differences(_source(db, B), _replica(writer, B)) == []
    assert extractor.checkpoint.tables["APP.B"].initial_only == (after == "initial_only")
    _write(db, update=5)
    extract_into_memory(db, _config(tmp_path, snapshot_modes={"APP.B": after}), writer)
    assert _ops(writer, B).count("t") == taken + 1  # once only
    if after != "initial_only":
        assert differences(_source(db, B), _replica(writer, B)) == []


def test_the_ddl_of_an_initial_only_table_is_not_applied(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, snapshot_modes={"APP.B": "initial_only"})
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    db.add_column("APP", "B", ColumnDef("EXTRA", 3, "VARCHAR2", 5))
    db.add_column("APP", "A", ColumnDef("EXTRA", 3, "VARCHAR2", 5))
    _write(db, update=2)
    extract_into_memory(db, config, writer)
    columns = {name: {c for c, _ in cols} for name, cols in writer._table_columns.items()}
    b_log = next(cols for name, cols in columns.items() if name.endswith("app__b_log`"))
    a_log = next(cols for name, cols in columns.items() if name.endswith("app__a_log`"))
    assert "extra" in a_log and "extra" not in b_log
