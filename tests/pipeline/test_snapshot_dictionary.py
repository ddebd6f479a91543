"""A snapshot reads the columns the table has at its snapshot point, not those of a
dictionary read before it: a column added (and filled) before the point has its ADD COLUMN
below the mining start, never mined, so a column missing from the read would stay NULL in
the replica for every row not changed since. On the simulator, into in-memory staging."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.base import SnapshotPoint
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

A = TableDef(
    "APP",
    "A",
    (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False), ColumnDef("V", 2, "VARCHAR2", 20)),
    ("ID",),
)
C = ColumnDef("C", 3, "VARCHAR2", 20)


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(A)
    txn = db.begin()
    for key in range(1, 4):
        txn.insert("APP", "A", {"ID": key, "V": f"v{key}"})
    txn.commit()
    return db


def _config(work: Path, **settings: object) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_snapshot_dictionary", **settings},
        base_dir=work,
    )  # fmt: skip


def _add_and_fill_c(db: SimDatabase, key: int) -> None:
    db.add_column("APP", "A", C)
    txn = db.begin()
    txn.update("APP", "A", lambda row: row["ID"] == key, {"C": f"c{key}"})
    txn.commit()


def _replica_differences(db: SimDatabase, writer: MemoryStagingWriter) -> object:
    now = db.table("APP", "A")
    source = truth_by_key(now, db.truth("APP", "A", db.current_scn()))
    return differences(source, consolidate(now, writer.staged_rows(now)))


def test_a_column_added_between_the_dictionary_read_and_the_snapshot_point_is_read(
    tmp_path: Path,
) -> None:
    db = _database()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source({"kind": "sim", "database": db})
    at_the_point = source.snapshot_point

    def column_added_first(tables: Sequence[TableDef]) -> SnapshotPoint:
        assert all(not t.has_column("C") for t in tables)  # the dictionary was read before
        _add_and_fill_c(db, 1)
        return at_the_point(tables)

    source.snapshot_point = column_added_first  # type: ignore[method-assign]
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})
    assert _replica_differences(db, writer) == []
    assert {r["c"] for r in writer.staged_rows(db.table("APP", "A")) if r["_op"] == "r"} == {
        "c1",
        None,
    }


def test_a_snapshot_taken_again_in_the_same_process_reads_a_column_added_since(
    tmp_path: Path,
) -> None:
    """``when_needed``: a redo gap sends every table back to be snapshotted, in the process
    that read the dictionary before the column came."""
    db = _database()
    config = _config(tmp_path, snapshot_mode="when_needed")
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})
        _add_and_fill_c(db, 2)
        for _ in range(3):
            db.switch_log()
        current = next(f for f in db.log_files() if f.status == "CURRENT")
        db.purge_archived_logs(below_sequence=current.sequence)  # the ADD COLUMN's redo too
        extract_and_land(extractor, {})
    assert _replica_differences(db, writer) == []
    extract_into_memory(db, config, writer)  # a later process: nothing left to mend it
    assert _replica_differences(db, writer) == []
