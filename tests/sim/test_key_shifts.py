"""Primary-key updates of several rows in one statement (``update t set id = id + 1``, a key
swap): the simulator produces them, the change builder turns each row into a delete of its
old key and an upsert of its new key, and consolidation by the staging contract (the
reference replica) keeps every row: a delete retires only the version of its own ROWID."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from extractor.assemble.csf import ContinuationJoiner
from extractor.assemble.transaction_buffer import TransactionBuffer
from extractor.dictionary import TableDef
from extractor.land.change_batch import change_batch, snapshot_batch
from extractor.logminer_row import OperationCode
from extractor.parse.change_builder import ChangeBuilder, TransactionInfo
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.oracle.oracle_source import OracleSource
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _seeded(keys: list[int]) -> tuple[SimDatabase, dict[int, str]]:
    db = SimDatabase()
    db.create_table(TABLE)
    txn = db.begin()
    rowids = {k: txn.insert("O", "T", {"ID": k, "NAME": f"row {k}"}) for k in keys}
    txn.commit()
    return db, rowids


def _staging_rows(db: SimDatabase, table: TableDef, snapshot_scn: int) -> list[dict[str, Any]]:
    """Snapshot rows at ``snapshot_scn`` plus the change rows committed after it."""
    source = OracleSource(SimConnection(db), nls=db.nls)
    rows: list[dict[str, Any]] = []
    for batch in source.snapshot_batches(table, snapshot_scn, 1000):
        rows += snapshot_batch(
            table, batch, snapshot_scn=snapshot_scn, snapshot_ts=NOW, batch_id=1, extracted_at=NOW
        ).to_pylist()
    builder = ChangeBuilder(
        lambda owner, name, refresh: table if (owner, name) == (table.owner, table.name) else None,
        lambda owner, name: (owner, name) == (table.owner, table.name),
        db.nls,
    )
    with TransactionBuffer(1 << 30, ".") as buffer:
        mined = db.logminer_contents(snapshot_scn + 1, db.current_scn())
        for row in ContinuationJoiner().join(iter(mined)):
            committed = buffer.add(row)
            if committed is None:
                continue
            info = TransactionInfo(committed.xid, committed.commit_scn, NOW)
            for records in builder.build(info, committed.rows).records.values():
                rows += change_batch(table, records, batch_id=2, extracted_at=NOW).to_pylist()
    return rows


def _replica_equals_truth(db: SimDatabase, table: TableDef, snapshot_scn: int) -> list[str]:
    expected = truth_by_key(table, db.truth(table.owner, table.name, db.current_scn()))
    actual = consolidate(table, _staging_rows(db, table, snapshot_scn))
    return differences(expected, actual)


def test_one_statement_shifting_keys_is_one_update_row_per_row_at_one_scn() -> None:
    db, rowids = _seeded([1, 2, 3])
    start = db.current_scn()
    txn = db.begin()
    shifted = txn.update_rows(
        "O", "T", [(rowids[1], {"ID": 2}), (rowids[2], {"ID": 3}), (rowids[3], {"ID": 4})]
    )
    txn.commit()
    assert shifted == 3
    updates = [
        r for r in db.logminer_contents(start + 1, db.current_scn()) if r.operation_code == 3
    ]
    assert [r.ssn for r in updates] == [0, 1, 2]
    assert len({(r.scn, r.rs_id) for r in updates}) == 1
    truth = sorted(int(row["ID"]) for row in db.truth("O", "T", db.current_scn()))
    assert truth == [2, 3, 4]


def test_id_plus_one_keeps_every_row() -> None:
    db, rowids = _seeded([1, 2, 3])
    snapshot_scn = db.current_scn()
    txn = db.begin()
    txn.update_rows(
        "O", "T", [(rowids[1], {"ID": 2}), (rowids[2], {"ID": 3}), (rowids[3], {"ID": 4})]
    )
    txn.commit()
    assert _replica_equals_truth(db, TABLE, snapshot_scn) == []


def test_a_key_swap_keeps_both_rows() -> None:
    db, rowids = _seeded([10, 11])
    snapshot_scn = db.current_scn()
    txn = db.begin()
    txn.update_rows("O", "T", [(rowids[10], {"ID": 11}), (rowids[11], {"ID": 10})])
    txn.commit()
    assert _replica_equals_truth(db, TABLE, snapshot_scn) == []
    names = {int(row["ID"]): row["NAME"] for row in db.truth("O", "T", db.current_scn())}
    assert names == {10: "row 11", 11: "row 10"}


def test_the_change_builder_emits_delete_then_upsert_per_row_in_statement_order() -> None:
    db, rowids = _seeded([1, 2])
    snapshot_scn = db.current_scn()
    txn = db.begin()
    txn.update_rows("O", "T", [(rowids[1], {"ID": 2}), (rowids[2], {"ID": 3})])
    txn.commit()
    changes = [r for r in _staging_rows(db, TABLE, snapshot_scn) if r["_op"] != "r"]
    assert [(r["_op"], r["id"], r["_row_id"]) for r in changes] == [
        ("d", Decimal(1), rowids[1]),
        ("u", Decimal(2), rowids[1]),
        ("d", Decimal(2), rowids[2]),
        ("u", Decimal(3), rowids[2]),
    ]


def test_the_workload_shifts_keys_and_the_truth_keeps_keys_unique() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(
        db,
        WorkloadSpec(tables=5, seed=3, key_shift_ratio=1.0, multi_row_max=4, delete_ratio=0.05),
    )
    runner.create_tables()
    snapshot_scn = db.current_scn()
    runner.run(150)
    runner.close_all()
    assert runner.key_shifts > 0
    for table in db.tables():
        if not table.primary_key:
            continue
        keys = [
            tuple(row[k] for k in table.primary_key)
            for row in db.truth(table.owner, table.name, db.current_scn())
        ]
        assert len(keys) == len(set(keys)), table.qualified_name
    shifted = [
        r
        for r in db.logminer_contents(snapshot_scn, db.current_scn())
        if r.operation_code == OperationCode.UPDATE and r.ssn > 0
    ]
    assert shifted, "no multi-row UPDATE statement was written"


def test_the_workload_with_key_shifts_consolidates_to_the_truth() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(
        db, WorkloadSpec(tables=5, seed=11, key_shift_ratio=0.5, multi_row_max=4)
    )
    tables = runner.create_tables()
    snapshot_scn = db.current_scn()
    runner.run(200)
    runner.close_all()
    assert runner.key_shifts > 0
    for table in tables:
        current = db.table(table.owner, table.name)
        assert _replica_equals_truth(db, current, snapshot_scn) == [], current.qualified_name
