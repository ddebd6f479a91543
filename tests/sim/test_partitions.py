"""Partitioned tables in the simulator: each partition is an object of its own (an OBJECT_ID
in ALL_OBJECTS, a segment, ROWIDs of its data object id), and the redo rows of a row carry
its partition's OBJECT_ID in DATA_OBJ#, never the table's."""

from __future__ import annotations

import pytest

from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.oracle_errors import SimOracleError
from extractor.sim.rowid import decode_rowid
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.oracle import queries
from extractor.source.rowid_order import rowid_sort_key
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _partitioned(rows: int = 6, partitions: int = 3) -> SimDatabase:
    db = SimDatabase(unnamed_object_ratio=0.5)  # DATA_OBJ# on every row of a table
    db.create_table(TABLE, partitions=partitions)
    _insert(db, range(rows))
    return db


def _insert(db: SimDatabase, keys: range) -> None:
    txn = db.begin()
    for key in keys:
        txn.insert("O", "T", {"ID": key, "NAME": f"n{key}"})
    txn.commit()


def _rowids(db: SimDatabase) -> dict[object, str]:
    return {row["ID"]: str(row["ROWID"]) for row in db.truth("O", "T", db.current_scn())}


def _object_id_rows(db: SimDatabase) -> list[tuple[object, ...]]:
    cursor = SimConnection(db).cursor()
    cursor.execute(queries.TABLE_OBJECT_IDS, {"owner": "O", "table_name": "T"})
    return [tuple(row) for row in cursor.fetchall()]


def test_each_partition_is_an_object_with_a_segment_of_its_own() -> None:
    db = _partitioned()
    table_id = db.object_id("O", "T")
    partitions = db.partition_object_ids("O", "T")
    assert len(partitions) == 3 and table_id not in partitions
    assert db.data_object_id("O", "T") is None  # a partitioned table has no segment
    assert _object_id_rows(db) == [(table_id,), *((p,) for p in partitions)]
    # rows are placed in the partitions in turn; a ROWID holds its partition's segment
    segments = [decode_rowid(rowid).data_object_id for rowid in _rowids(db).values()]
    assert sorted(segments) == sorted(partitions * 2)
    # the extents cover every partition, and every row is inside one of them
    extents = db.table_extents("O", "T")
    assert {decode_rowid(first).data_object_id for first, _, _ in extents} == set(partitions)
    for rowid in _rowids(db).values():
        key = rowid_sort_key(rowid)
        assert sum(rowid_sort_key(a) <= key <= rowid_sort_key(b) for a, b, _ in extents) == 1


def test_a_rows_redo_carries_its_partitions_object_id() -> None:
    db = _partitioned()
    rows = [
        r
        for r in db.logminer_contents(1, db.current_scn())
        if r.operation_code == OperationCode.INSERT
    ]
    assert len(rows) == 6
    by_rowid = {r.row_id: r.data_obj for r in rows}
    for rowid, data_obj in by_rowid.items():
        assert rowid is not None
        assert data_obj in db.partition_object_ids("O", "T")
        assert decode_rowid(rowid).data_object_id == data_obj  # not truncated nor moved
    unnamed = [r for r in rows if r.seg_owner == "UNKNOWN"]
    assert unnamed and all(r.table_name == f"OBJ# {r.data_obj}" for r in unnamed)


def test_a_partition_added_by_ddl_writes_a_ddl_row_and_an_automatic_one_none() -> None:
    db = _partitioned()
    before = db.current_scn()
    added = db.add_partition("O", "T")
    automatic = db.add_partition("O", "T", automatic=True)
    assert db.partition_object_ids("O", "T")[-2:] == [added, automatic]
    ddl = [
        r
        for r in db.logminer_contents(before + 1, db.current_scn())
        if r.operation_code == OperationCode.DDL
    ]
    assert [r.sql_redo for r in ddl] == ['alter table "O"."T" add partition "P4" values (4);']
    _insert(db, range(100, 105))  # five rows over five partitions: one in each
    rows = db.logminer_contents(before + 1, db.current_scn())
    assert {r.data_obj for r in rows if r.operation_code == OperationCode.INSERT} == set(
        db.partition_object_ids("O", "T")
    )
    assert db.object_exists(automatic)
    txn = db.begin()
    txn.update("O", "T", lambda r: r["ID"] == 1, {"NAME": "held"})
    with pytest.raises(SimOracleError, match="ORA-00054"):
        db.add_partition("O", "T")
    db.add_partition("O", "T", automatic=True)  # an insert creates it: no lock needed
    txn.commit()


def test_a_table_that_is_not_partitioned_has_no_partition_to_add() -> None:
    db = SimDatabase()
    db.create_table(TABLE)
    assert _object_id_rows(db) == [(db.object_id("O", "T"),)]
    assert db.data_object_id("O", "T") == db.object_id("O", "T")
    with pytest.raises(Exception, match="not partitioned"):
        db.add_partition("O", "T")


def test_truncate_and_move_give_each_partition_a_new_segment() -> None:
    db = _partitioned()
    partitions = db.partition_object_ids("O", "T")
    before = _rowids(db)
    moved = db.move_rows("O", "T", "move")
    after = _rowids(db)
    assert all(moved[before[k]] == after[k] != before[k] for k in before)
    old_segments = {decode_rowid(r).data_object_id for r in before.values()}
    new_segments = {decode_rowid(r).data_object_id for r in after.values()}
    assert len(new_segments) == 3 and not new_segments & old_segments
    # each row stays in its partition: DATA_OBJ# of an update after the move is its own
    scn = db.current_scn()
    txn = db.begin()
    txn.update("O", "T", lambda r: True, {"NAME": "x"})
    txn.commit()
    updates = [
        r
        for r in db.logminer_contents(scn + 1, db.current_scn())
        if r.operation_code == OperationCode.UPDATE
    ]
    inserted_in = _inserted_in(db)
    assert {r.row_id: r.data_obj for r in updates} == {
        after[k]: inserted_in[before[k]] for k in before
    }
    db.truncate_table("O", "T")
    _insert(db, range(10, 13))
    truncated = {decode_rowid(r).data_object_id for r in _rowids(db).values()}
    assert len(truncated) == 3 and not truncated & (old_segments | new_segments)
    assert db.partition_object_ids("O", "T") == partitions  # OBJECT_IDs stay


def _inserted_in(db: SimDatabase) -> dict[str | None, int | None]:
    """ROWID -> DATA_OBJ# of its INSERT (the OBJECT_ID of the partition it went to)."""
    rows = db.logminer_contents(1, db.current_scn())
    return {r.row_id: r.data_obj for r in rows if r.operation_code == OperationCode.INSERT}


def test_a_dropped_partitioned_tables_partitions_leave_with_it() -> None:
    db = _partitioned()
    partitions = db.partition_object_ids("O", "T")
    db.drop_table("O", "T")  # to the recycle bin: its objects are still there
    assert all(db.object_exists(p) for p in partitions)
    db2 = _partitioned()
    partitions = db2.partition_object_ids("O", "T")
    db2.drop_table("O", "T", purge=True)
    assert not any(db2.object_exists(p) for p in partitions)


def test_the_workload_partitions_its_last_tables_and_adds_partitions() -> None:
    db = SimDatabase()
    spec = WorkloadSpec(
        tables=3, transactions=200, partitioned_tables=1, add_partition_ratio=0.05, seed=3
    )
    runner = WorkloadRunner(db, spec)
    tables = runner.create_tables()
    assert [len(db.partition_object_ids(t.owner, t.name)) for t in tables] == [0, 0, 2]
    runner.run(200)
    assert runner.partitions_added > 0
    assert len(db.partition_object_ids(tables[2].owner, tables[2].name)) == (
        2 + runner.partitions_added
    )
    # the DML is the workload's without partitions
    plain = SimDatabase()
    plain_runner = WorkloadRunner(plain, WorkloadSpec(tables=3, transactions=200, seed=3))
    plain_runner.run(200)
    assert runner.dml_rows == plain_runner.dml_rows
