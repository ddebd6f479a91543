"""ALTER TABLE … MOVE and SHRINK SPACE in the simulator: new ROWIDs for every row at one SCN,
one DDL row as issued, no DML rows, ORA-00054 while a transaction holds a row."""

from __future__ import annotations

import pytest

from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.oracle_errors import SimOracleError
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _seeded(rows: int = 5) -> SimDatabase:
    db = SimDatabase()
    db.create_table(TABLE)
    txn = db.begin()
    for i in range(rows):
        txn.insert("O", "T", {"ID": i, "NAME": f"n{i}"})
    txn.commit()
    return db


def _by_id(db: SimDatabase, scn: int) -> dict[object, str]:
    return {row["ID"]: str(row["ROWID"]) for row in db.truth("O", "T", scn)}


@pytest.mark.parametrize(
    ("operation", "clause"),
    [
        ("move", "move"),
        ("shrink", "shrink space"),
        ("shrink partition", 'modify partition "P1" shrink space'),
        ("coalesce subpartition", 'modify partition "P1" coalesce subpartition'),
        ("partition by", 'modify partition by hash ("ID") partitions 2 online'),
    ],
)
def test_every_row_gets_a_new_rowid_at_one_scn_with_one_ddl_row(
    operation: str, clause: str
) -> None:
    db = _seeded()
    before_scn = db.current_scn()
    before = _by_id(db, before_scn)
    if operation.startswith(
        "shrink"
    ):  # free the first slots so that compaction moves rows into them
        txn = db.begin()
        txn.delete("O", "T", [before[0], before[1]])
        txn.commit()
        before = {k: v for k, v in before.items() if k not in (0, 1)}
        before_scn = db.current_scn()
    moved = db.move_rows("O", "T", operation)  # type: ignore[arg-type]
    after = _by_id(db, db.current_scn())
    assert set(after) == set(before)
    assert all(moved[before[k]] == after[k] != before[k] for k in before)
    assert _by_id(db, before_scn) == before  # AS OF before the DDL: the old ROWIDs
    rows = db.logminer_contents(before_scn + 1, db.current_scn())
    assert [r.operation_code for r in rows] == [
        OperationCode.START,
        OperationCode.DDL,
        OperationCode.COMMIT,
    ]
    assert rows[1].sql_redo == f'alter table "O"."T" {clause};'


def test_a_move_waits_for_no_one_it_fails_while_a_row_is_held() -> None:
    db = _seeded()
    txn = db.begin()
    txn.update("O", "T", lambda r: r["ID"] == 1, {"NAME": "held"})
    with pytest.raises(SimOracleError, match="ORA-00054"):
        db.move_rows("O", "T", "move")
    txn.commit()
    db.move_rows("O", "T", "move")


def test_the_workload_moves_rows_and_keeps_going_on_the_new_rowids() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(tables=5, seed=5, row_move_ratio=0.1))
    runner.run(200)
    runner.close_all()
    assert runner.row_moves > 0
    ddl = [
        r.sql_redo or ""
        for r in db.logminer_contents(1, db.current_scn())
        if r.operation_code == OperationCode.DDL
    ]
    clauses = (" move;", " shrink space;", " coalesce subpartition;", " online;")
    assert sum(1 for s in ddl if s.endswith(clauses)) == runner.row_moves
    assert {s.split('" ', 1)[1] for s in ddl if s.endswith(clauses)} >= {
        "move;", "shrink space;", 'modify partition "P1" shrink space;'
    }  # fmt: skip
