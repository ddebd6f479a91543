"""DROP TABLE and ALTER TABLE … RENAME TO in the simulator: one DDL row as issued, the name
free (or taken) at once, and the table's earlier rows named as the online catalog names them
when mined afterwards."""

from __future__ import annotations

import pytest

from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase, recycle_bin_name
from extractor.sim.oracle_errors import SimOracleError
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _seeded() -> tuple[SimDatabase, int]:
    """A table with one committed row; returns the SCN before that row."""
    db = SimDatabase()
    db.create_table(TABLE)
    before = db.current_scn()
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1, "NAME": "one"})
    txn.commit()
    return db, before


def _dml(db: SimDatabase, start: int) -> list[tuple[str | None, str | None, int | None, str]]:
    rows = db.logminer_contents(start + 1, db.current_scn())
    return [
        (r.seg_owner, r.table_name, r.data_obj, r.sql_redo or "")
        for r in rows
        if r.operation_code == OperationCode.INSERT
    ]


def test_a_dropped_tables_rows_show_its_recycle_bin_name_then_obj_n_once_purged() -> None:
    db, before = _seeded()
    object_id = db.object_id("O", "T")
    assert _dml(db, before)[0][:3] == ("O", "T", None)
    dropped_at = db.drop_table("O", "T")

    bin_name = recycle_bin_name(object_id)
    assert bin_name.startswith("BIN$") and bin_name.endswith("==$0") and len(bin_name) == 30
    ((owner, name, data_obj, sql),) = _dml(db, before)
    assert (owner, name, data_obj) == ("O", bin_name, object_id)
    assert sql.startswith(f'insert into "O"."{bin_name}"("ID","NAME")')
    (ddl,) = [r for r in db.logminer_contents(dropped_at, dropped_at) if r.operation == "DDL"]
    assert (ddl.table_name, ddl.sql_redo) == ("T", f'drop table "O"."T" AS "{bin_name}";')
    assert db.object_exists(object_id)
    with pytest.raises(SimOracleError, match="ORA-00942"):
        db.table("O", "T")

    db.create_table(TABLE)  # the name is free: a new object
    assert db.object_id("O", "T") != object_id
    assert _dml(db, before)[0][1] == bin_name  # the old rows keep the bin name


def test_a_purged_tables_rows_are_unknown_obj_n() -> None:
    db, before = _seeded()
    object_id = db.object_id("O", "T")
    dropped_at = db.drop_table("O", "T", purge=True)
    ((owner, name, data_obj, sql),) = _dml(db, before)
    assert (owner, name, data_obj) == ("UNKNOWN", f"OBJ# {object_id}", object_id)
    assert '"COL 1"' in sql
    (ddl,) = [r for r in db.logminer_contents(dropped_at, dropped_at) if r.operation == "DDL"]
    assert ddl.sql_redo == 'drop table "O"."T" purge;'
    assert not db.object_exists(object_id)


def test_a_renamed_tables_rows_show_its_new_name_and_it_keeps_its_object() -> None:
    db, before = _seeded()
    object_id = db.object_id("O", "T")
    renamed_at = db.rename_table("O", "T", "T2")
    txn = db.begin()
    txn.insert("O", "T2", {"ID": 2, "NAME": "two"})
    txn.commit()

    assert [(n, d) for _, n, d, _ in _dml(db, before)] == [("T2", object_id), ("T2", None)]
    (ddl,) = [r for r in db.logminer_contents(renamed_at, renamed_at) if r.operation == "DDL"]
    assert (ddl.table_name, ddl.sql_redo) == ("T", 'alter table "O"."T" rename to "T2";')
    assert db.object_id("O", "T2") == object_id
    assert sorted(r["ID"] for r in db.truth("O", "T2", db.current_scn())) == [1, 2]


def test_drop_and_rename_wait_for_open_transactions_and_free_names() -> None:
    db, _ = _seeded()
    db.create_table(one_table(("NAME", "VARCHAR2(20)"), name="U"))
    with pytest.raises(SimOracleError, match="ORA-00955"):
        db.rename_table("O", "T", "U")
    txn = db.begin()
    txn.insert("O", "T", {"ID": 5, "NAME": "held"})
    with pytest.raises(SimOracleError, match="ORA-00054"):
        db.drop_table("O", "T")
    with pytest.raises(SimOracleError, match="ORA-00054"):
        db.rename_table("O", "T", "V")
    txn.commit()
    db.drop_table("O", "T")
