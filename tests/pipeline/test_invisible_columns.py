"""INVISIBLE columns (Oracle 12c+) are stored and written to redo like any other column;
only ``SELECT *`` and ``ALL_TAB_COLS.COLUMN_ID`` leave them out. The extractor replicates them:
the dictionary reads them, snapshots name them, and a column made VISIBLE (or INVISIBLE)
later needs nothing taken again because its values were replicated all along."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.oracle_errors import SimOracleError
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.oracle import queries
from extractor.source.oracle.dictionary import read_table
from tests.pipeline.test_extract_to_staging import (
    ITEMS,
    NOTES,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
    seed_database,
    staged_rows,
)

SECRET = ColumnDef("SECRET", 0, "VARCHAR2", 30)
CODE = ColumnDef("CODE", 0, "NUMBER", 22, 5, 0)


def _mined(db: Any) -> list[Any]:
    return list(db.logminer_contents(0, db.current_scn()))


def _database_with_an_invisible_column() -> Any:
    """ITEMS with SECRET added INVISIBLE and filled for every row before any snapshot."""
    db, open_before = seed_database()
    open_before.rollback()
    db.add_column("APP", "ITEMS", SECRET, invisible=True)
    txn = db.begin()
    txn.update("APP", "ITEMS", lambda r: True, {"SECRET": "hidden"})
    txn.commit()
    return db


def test_redo_names_an_invisible_column_and_all_tab_cols_hides_it() -> None:
    """The simulator as Oracle: the column in SQL_REDO and in AS OF reads that name it;
    ALL_TAB_COLS with HIDDEN_COLUMN = 'YES' and a NULL COLUMN_ID."""
    db = _database_with_an_invisible_column()
    ddl = [r.sql_redo for r in _mined(db) if r.operation == "DDL"]
    assert ddl[-1] == 'alter table "APP"."ITEMS" add ("SECRET" VARCHAR2(30) invisible);'
    added = max(r.scn for r in _mined(db) if r.operation == "DDL")
    updates = [r.sql_redo or "" for r in _mined(db) if r.operation == "UPDATE" and r.scn > added]
    assert len(updates) == 5
    assert all("set \"SECRET\" = 'hidden'" in text for text in updates)
    assert db.snapshot_rows("APP", "ITEMS", db.current_scn())[0]["SECRET"] == "hidden"
    cursor = SimConnection(db).cursor()
    cursor.execute(queries.TABLE_COLUMNS, {"owner": "APP", "table_name": "ITEMS"})
    answered = {row[0]: row[1] for row in cursor.fetchall()}
    if "HIDDEN_COLUMN = 'NO'" in queries.normalise(queries.TABLE_COLUMNS):
        assert "SECRET" not in answered
    else:
        assert answered == {"ID": 1, "NAME": 2, "QTY": 3, "SECRET": None}


def test_the_dictionary_reads_invisible_columns_after_the_visible_ones() -> None:
    db = _database_with_an_invisible_column()
    db.add_column("APP", "ITEMS", CODE)  # a visible column added after the invisible one
    table = read_table(SimConnection(db).cursor(), "APP", "ITEMS")
    assert table.column_names == ("ID", "NAME", "QTY", "CODE", "SECRET")
    assert [c.column_id for c in table.columns] == [1, 2, 3, 4, 5]
    db.set_column_visibility("APP", "ITEMS", "SECRET", visible=True)
    db.set_column_visibility("APP", "ITEMS", "NAME", visible=False)
    table = read_table(SimConnection(db).cursor(), "APP", "ITEMS")
    assert table.column_names == ("ID", "QTY", "CODE", "SECRET", "NAME")
    ddl = [r.sql_redo for r in _mined(db) if r.operation == "DDL"]
    assert ddl[-2:] == [
        'alter table "APP"."ITEMS" modify ("SECRET" visible);',
        'alter table "APP"."ITEMS" modify ("NAME" invisible);',
    ]


def test_no_table_of_the_catalog_answer_has_a_null_column_id() -> None:
    """Every ColumnDef gets a position: an invisible column's COLUMN_ID is NULL in Oracle."""
    db = _database_with_an_invisible_column()
    db.set_column_visibility("APP", "ITEMS", "QTY", visible=False)
    table = read_table(SimConnection(db).cursor(), "APP", "ITEMS")
    assert table.column_names == ("ID", "NAME", "QTY", "SECRET")
    assert [c.column_id for c in table.columns] == [1, 2, 3, 4]


@pytest.mark.spark
def test_invisible_columns_are_snapshotted_streamed_and_kept_through_visibility_changes(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_extract_invisible")
    db = _database_with_an_invisible_column()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    staged = staged_rows(spark, config, ITEMS)
    assert {row["secret"] for row in staged if row["id"] is not None} == {"hidden"}

    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": 50, "NAME": "later", "SECRET": "given"})
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"SECRET": "changed"})
    txn.commit()
    db.set_column_visibility("APP", "ITEMS", "SECRET", visible=True)
    db.set_column_visibility("APP", "NOTES", "FLAG", visible=False)
    txn = db.begin()
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 3, {"SECRET": "after visible"})
    txn.update("APP", "NOTES", lambda r: r["ID"] == 1, {"FLAG": "N"})
    txn.insert("APP", "NOTES", {"ID": 9, "TXT": "new", "FLAG": "Y"})
    txn.commit()

    result = run_cycle(spark, config, db, lambda e: e.stream_once())

    assert result.change_rows > 0
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn, (ITEMS, NOTES))


def test_a_visibility_change_writes_one_ddl_row_and_no_dml() -> None:
    db = _database_with_an_invisible_column()
    before = db.current_scn()
    db.set_column_visibility("APP", "ITEMS", "SECRET", visible=True)
    rows = db.logminer_contents(before + 1, db.current_scn())
    assert [r.operation for r in rows if r.table_name == "ITEMS"] == ["DDL"]
    assert db.truth("APP", "ITEMS", db.current_scn())[0]["SECRET"] == "hidden"


def test_the_workload_toggles_visibility_on_its_own_random_stream() -> None:
    db = SimDatabase()
    spec = WorkloadSpec(tables=5, transactions=300, visibility_change_ratio=0.05, seed=4)
    runner = WorkloadRunner(db, spec)
    runner.create_tables()
    start = db.current_scn()
    runner.run(300)
    ddl = [
        r.sql_redo or ""
        for r in db.logminer_contents(start + 1, db.current_scn())
        if r.operation_code == OperationCode.DDL
    ]
    toggles = [s for s in ddl if s.endswith(" invisible);") or s.endswith(" visible);")]
    assert runner.visibility_changes == len(toggles) > 3
    assert any(db.invisible_columns(spec.owner, t.name) for t in runner.tables)
    assert not any(  # never a key column
        set(t.primary_key) & db.invisible_columns(spec.owner, t.name) for t in runner.tables
    )
    # the DML is the workload's without visibility changes
    plain = WorkloadRunner(SimDatabase(), WorkloadSpec(tables=5, transactions=300, seed=4))
    plain.create_tables()
    plain.run(300)
    assert runner.dml_rows == plain.dml_rows


def test_the_last_visible_column_cannot_be_made_invisible() -> None:
    db = SimDatabase()
    db.create_table(
        TableDef("APP", "PAIR", (ColumnDef("A", 1, "NUMBER", 22), ColumnDef("B", 2, "NUMBER", 22)))
    )
    db.set_column_visibility("APP", "PAIR", "A", visible=False)
    with pytest.raises(SimOracleError, match="ORA-54039"):
        db.set_column_visibility("APP", "PAIR", "B", visible=False)
