"""ALTER TABLE … ADD / DROP SUPPLEMENTAL LOG DATA in the simulator: one DDL row as issued;
the table's redo images and ALL_LOG_GROUPS follow the new level from its SCN on."""

from __future__ import annotations

import pytest

from extractor.errors import SimUsageError
from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.oracle_errors import SimOracleError
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.oracle import queries
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"), ("QTY", "NUMBER(10,0)"), logging="MINIMAL")


def _seeded() -> SimDatabase:
    db = SimDatabase()
    db.create_table(TABLE)
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1, "NAME": "a", "QTY": 0})
    txn.commit()
    return db


def _update_sql(db: SimDatabase) -> str:
    scn = db.current_scn()
    txn = db.begin()
    txn.update("O", "T", lambda r: r["ID"] == 1, {"QTY": scn})
    txn.commit()
    rows = db.logminer_contents(scn + 1, db.current_scn())
    return next(r.sql_redo or "" for r in rows if r.operation_code == OperationCode.UPDATE)


def _log_groups(db: SimDatabase) -> list[object]:
    cursor = SimConnection(db).cursor()
    cursor.execute(queries.LOG_GROUP_TYPES, {"owner": "O", "table_name": "T"})
    return [row[0] for row in cursor.fetchall()]


def test_the_images_follow_the_logging_level_from_the_ddl_on() -> None:
    db = _seeded()
    assert '"ID"' not in _update_sql(db)  # MINIMAL: the changed column only
    assert _log_groups(db) == []

    before = db.current_scn()
    db.set_supplemental_logging("O", "T", "ALL")
    ddl = [r for r in db.logminer_contents(before + 1, db.current_scn()) if r.operation_code == 5]
    assert [r.sql_redo for r in ddl] == [
        'alter table "O"."T" add supplemental log data (ALL) columns;'
    ]
    where = _update_sql(db).split(" where ", 1)[1]
    assert where.startswith('"ID" = \'1\' and "NAME" = \'a\' and "QTY" = ')  # ALL
    assert _log_groups(db) == ["ALL COLUMN LOGGING"]

    before = db.current_scn()
    db.set_supplemental_logging("O", "T", "MINIMAL")
    ddl = [r for r in db.logminer_contents(before + 1, db.current_scn()) if r.operation_code == 5]
    assert [r.sql_redo for r in ddl] == [
        'alter table "O"."T" drop supplemental log data (ALL) columns;'
    ]
    assert '"ID"' not in _update_sql(db)
    with pytest.raises(SimUsageError, match="already has MINIMAL"):
        db.set_supplemental_logging("O", "T", "MINIMAL")


def test_another_level_drops_the_group_the_table_had_first() -> None:
    """Oracle keeps each log group until it is dropped: ALL to PRIMARY KEY is two DDL."""
    db = _seeded()
    db.set_supplemental_logging("O", "T", "ALL")
    before = db.current_scn()
    db.set_supplemental_logging("O", "T", "PRIMARY KEY")
    ddl = [r for r in db.logminer_contents(before + 1, db.current_scn()) if r.operation_code == 5]
    assert [r.sql_redo for r in ddl] == [
        'alter table "O"."T" drop supplemental log data (ALL) columns;',
        'alter table "O"."T" add supplemental log data (PRIMARY KEY) columns;',
    ]
    assert ddl[0].scn < ddl[1].scn
    assert _log_groups(db) == ["PRIMARY KEY LOGGING"]


def test_database_logging_shows_in_v_database_and_the_images_without_a_ddl_row() -> None:
    db = _seeded()
    cursor = SimConnection(db).cursor()

    def flags() -> tuple[object, object]:
        cursor.execute(queries.DATABASE_INFO)
        row = cursor.fetchone()
        return row[3], row[4]

    assert flags() == ("NO", "NO")
    before = db.current_scn()
    db.set_database_supplemental_logging("ALL")
    assert flags() == ("NO", "YES")
    assert '"ID"' in _update_sql(db)  # the table's MINIMAL is raised for its images
    db.set_database_supplemental_logging("PRIMARY KEY")
    assert flags() == ("YES", "NO")
    where = _update_sql(db).split(" where ", 1)[1]
    assert '"ID"' in where and '"NAME"' not in where
    db.set_database_supplemental_logging("MINIMAL")
    assert '"ID"' not in _update_sql(db)
    rows = db.logminer_contents(before + 1, db.current_scn())
    assert not [r for r in rows if r.operation_code == OperationCode.DDL]
    assert db.table("O", "T").supplemental_logging == "MINIMAL"  # the dictionary's own


def test_the_workload_changes_logging_on_free_tables_with_its_own_random_stream() -> None:
    db = SimDatabase()
    spec = WorkloadSpec(tables=5, transactions=300, logging_change_ratio=0.05, seed=4)
    runner = WorkloadRunner(db, spec)
    tables = runner.create_tables()
    before = {t.name: t.supplemental_logging for t in tables}
    start = db.current_scn()
    runner.run(300)
    ddl = [
        r.sql_redo or ""
        for r in db.logminer_contents(start + 1, db.current_scn())
        if r.operation_code == OperationCode.DDL
    ]
    changes = [s for s in ddl if "supplemental log data" in s]
    assert 3 < runner.logging_changes <= len(changes) <= 2 * runner.logging_changes
    after = {t.name: t.supplemental_logging for t in runner.tables}
    assert after != before
    assert all(  # PRIMARY KEY logging only for a table with a primary key
        t.primary_key for t in runner.tables if t.supplemental_logging == "PRIMARY KEY"
    )
    # the DML is the workload's without logging changes
    plain = WorkloadRunner(SimDatabase(), WorkloadSpec(tables=5, transactions=300, seed=4))
    plain.run(300)
    assert runner.dml_rows == plain.dml_rows


def test_a_logging_change_waits_for_the_tables_open_transactions() -> None:
    db = _seeded()
    txn = db.begin()
    txn.update("O", "T", lambda r: r["ID"] == 1, {"QTY": 5})
    with pytest.raises(SimOracleError, match="ORA-00054"):
        db.set_supplemental_logging("O", "T", "ALL")
    txn.commit()
    db.set_supplemental_logging("O", "T", "ALL")
    assert db.table("O", "T").supplemental_logging == "ALL"
