"""Shape of the V$LOGMNR_CONTENTS stream: control rows, identity, CSF, rollbacks."""

from __future__ import annotations

from extractor.logminer_row import LogMinerRow
from extractor.redo_position import RedoPosition
from extractor.sim.database import SimDatabase

from .sim_tables import one_table


def _rows(db: SimDatabase) -> list[LogMinerRow]:
    return db.logminer_contents(0, db.current_scn())


def _dml(db: SimDatabase) -> list[LogMinerRow]:
    return [r for r in _rows(db) if r.operation_code in (1, 2, 3)]


def test_start_row_comes_with_the_first_change_and_commit_row_closes(db: SimDatabase) -> None:
    db.create_table(one_table())
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1})
    commit_scn = txn.commit()
    mine = [r for r in _rows(db) if r.xid == txn.xid]
    assert [r.operation for r in mine] == ["START", "INSERT", "COMMIT"]
    start, insert, commit = mine
    assert start.scn == insert.scn == txn.start_scn
    assert (commit.scn, commit.start_scn, commit.commit_scn) == (
        commit_scn,
        txn.start_scn,
        commit_scn,
    )
    assert commit.commit_timestamp is not None
    assert insert.start_scn is None and insert.commit_scn is None


def test_control_rows_have_no_owner_or_table(db: SimDatabase) -> None:
    db.create_table(one_table())
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1})
    txn.commit()
    control = [r for r in _rows(db) if r.xid == txn.xid and r.operation_code in (6, 7)]
    assert {(r.seg_owner, r.table_name) for r in control} == {(None, None)}


def test_xid_is_16_hex_digits(db: SimDatabase) -> None:
    txn = db.begin()
    assert len(txn.xid) == 16
    int(txn.xid, 16)


def test_rs_id_is_padded_with_one_space_each_side(db: SimDatabase) -> None:
    db.create_table(one_table())
    for row in _rows(db):
        assert row.rs_id.startswith(" 0x") and row.rs_id.endswith(" ")
        assert row.rs_id.strip().count(".") == 2


def test_multi_row_statement_gives_one_row_per_row_at_one_scn(db: SimDatabase) -> None:
    db.create_table(one_table(("A", "VARCHAR2(9)")))
    txn = db.begin()
    rowids = [txn.insert("O", "T", {"ID": i}) for i in (1, 2, 3)]
    assert txn.update("O", "T", lambda row: True, {"A": "x"}) == 3
    updates = [r for r in _dml(db) if r.operation_code == 3]
    assert sorted(r.row_id or "" for r in updates) == sorted(rowids)
    assert len({r.scn for r in updates}) == 1
    positions = {RedoPosition.of(r.rs_id, r.ssn) for r in updates}
    assert len(positions) == 3


def test_sql_redo_over_4000_bytes_continues_in_csf_rows(db: SimDatabase) -> None:
    db.create_table(one_table(("C", "CLOB")))
    value = "é" * 3000  # 6000 bytes in UTF-8
    db.begin().insert("O", "T", {"ID": 1, "C": value})
    chain = [r for r in _dml(db) if r.operation_code == 3]
    assert [r.csf for r in chain] == [1, 0]
    assert len({(r.rs_id, r.ssn) for r in chain}) == 1
    assert all(len((r.sql_redo or "").encode()) <= 4000 for r in chain)
    joined = "".join(r.sql_redo or "" for r in chain)
    assert f"set \"C\" = '{value}' where" in joined


def test_full_rollback_writes_undo_rows_and_a_rollback_row(db: SimDatabase) -> None:
    db.create_table(one_table())
    txn = db.begin()
    rowid = txn.insert("O", "T", {"ID": 1})
    txn.rollback()
    mine = [r for r in _rows(db) if r.xid == txn.xid]
    assert [(r.operation, r.rollback) for r in mine] == [
        ("START", 0), ("INSERT", 0), ("DELETE", 1), ("ROLLBACK", 0)
    ]  # fmt: skip
    assert mine[2].row_id == rowid and mine[3].operation_code == 36
    assert db.truth("O", "T", db.current_scn()) == []


def test_savepoint_rollback_undoes_only_later_changes(db: SimDatabase) -> None:
    db.create_table(one_table(("A", "VARCHAR2(9)")))
    txn = db.begin()
    rowid = txn.insert("O", "T", {"ID": 1, "A": "kept"})
    txn.savepoint("S")
    txn.update("O", "T", rowid, {"A": "undone"})
    txn.rollback_to("S")
    scn = txn.commit()
    mine = [(r.operation, r.rollback) for r in _rows(db) if r.xid == txn.xid]
    assert mine == [("START", 0), ("INSERT", 0), ("UPDATE", 0), ("UPDATE", 1), ("COMMIT", 0)]
    assert [row["A"] for row in db.truth("O", "T", scn)] == ["kept"]


def test_ddl_add_column_is_a_code_5_row_as_issued(db: SimDatabase) -> None:
    from extractor.dictionary import ColumnDef

    db.create_table(one_table())
    db.add_column("O", "T", ColumnDef("NOTE", 0, "VARCHAR2", 30))
    ddl = [r for r in _rows(db) if r.operation_code == 5]
    assert ddl[-1].sql_redo == 'alter table "O"."T" add ("NOTE" VARCHAR2(30));'
    assert (ddl[-1].seg_owner, ddl[-1].table_name) == ("O", "T")
    assert db.table("O", "T").column("NOTE").column_id == 2


def test_a_column_added_with_a_default_fills_existing_rows_without_redo(
    db: SimDatabase,
) -> None:
    import pytest

    from extractor.dictionary import ColumnDef
    from extractor.sim.oracle_errors import SimOracleError

    db.create_table(one_table())
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1})
    txn.insert("O", "T", {"ID": 2})
    txn.commit()
    holder = db.begin()
    holder.update("O", "T", lambda r: r["ID"] == 2, {"ID": 2})
    added = ColumnDef("NOTE", 0, "VARCHAR2", 30)
    with pytest.raises(SimOracleError, match="ORA-00054"):  # a row is held: DDL waits
        db.add_column("O", "T", added, default="n/a")
    holder.rollback()
    before, dml_before = db.current_scn(), len(_dml(db))
    db.add_column("O", "T", added, default="n/a")
    ddl = [r for r in _rows(db) if r.operation_code == 5]
    assert ddl[-1].sql_redo == """alter table "O"."T" add ("NOTE" VARCHAR2(30) default 'n/a');"""
    assert len(_dml(db)) == dml_before  # no redo for the rows that hold the default
    assert [r.get("NOTE") for r in db.truth("O", "T", before)] == [None, None]
    assert [r["NOTE"] for r in db.truth("O", "T", db.current_scn())] == ["n/a", "n/a"]
    later = db.begin()
    later.insert("O", "T", {"ID": 3})  # omits the column: stores the default
    later.insert("O", "T", {"ID": 4, "NOTE": None})  # an explicit NULL stays NULL
    later.commit()
    assert [r["NOTE"] for r in db.truth("O", "T", db.current_scn())] == ["n/a", "n/a", "n/a", None]
    assert "'n/a'" in _dml(db)[-2].sql_redo


def test_rows_come_in_scn_order(db: SimDatabase) -> None:
    db.create_table(one_table())
    first, second = db.begin(), db.begin()
    first.insert("O", "T", {"ID": 1})
    second.insert("O", "T", {"ID": 2})
    second.commit()
    first.commit()
    scns = [r.scn for r in _rows(db)]
    assert scns == sorted(scns)


def test_open_transactions_lists_xid_and_start_scn(db: SimDatabase) -> None:
    db.create_table(one_table())
    idle, busy = db.begin(), db.begin()
    busy.insert("O", "T", {"ID": 1})
    assert db.open_transactions() == [(busy.xid, busy.start_scn)]
    assert idle.start_scn is None
