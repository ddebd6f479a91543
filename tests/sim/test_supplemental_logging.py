"""UPDATE and DELETE row images under ALL / PRIMARY KEY / MINIMAL (reference §2)."""

from __future__ import annotations

from extractor.dictionary import SupplementalLogging
from extractor.sim.database import SimDatabase

from .sim_tables import one_table


def _redo(logging: SupplementalLogging, key: tuple[str, ...] = ("ID",)) -> tuple[str, str, str]:
    db = SimDatabase()
    db.create_table(one_table(("A", "VARCHAR2(9)"), ("B", "VARCHAR2(9)"), key=key, logging=logging))
    txn = db.begin()
    rowid = txn.insert("O", "T", {"ID": 1, "A": "a"})
    txn.update("O", "T", rowid, {"B": "b"})
    txn.delete("O", "T", rowid)
    txn.commit()
    dml = [r for r in db.logminer_contents(0, db.current_scn()) if r.operation_code in (2, 3)]
    return dml[0].sql_redo or "", dml[1].sql_redo or "", rowid


def test_all_logs_every_column_in_the_update_where() -> None:
    update, _, rowid = _redo("ALL")
    assert update == (
        f"""update "O"."T" set "B" = 'b' where "ID" = '1' and "A" = 'a' and "B" IS NULL """
        f"""and ROWID = '{rowid}';"""
    )


def test_primary_key_logs_key_and_changed_columns() -> None:
    update, _, rowid = _redo("PRIMARY KEY")
    assert update == (
        f"""update "O"."T" set "B" = 'b' where "ID" = '1' and "B" IS NULL and ROWID = '{rowid}';"""
    )


def test_minimal_logs_only_changed_columns_and_rowid() -> None:
    update, _, rowid = _redo("MINIMAL")
    assert update == f"""update "O"."T" set "B" = 'b' where "B" IS NULL and ROWID = '{rowid}';"""


def test_primary_key_logging_without_a_key_logs_all_columns() -> None:
    update, _, _rowid = _redo("PRIMARY KEY", key=())
    assert """where "ID" = '1' and "A" = 'a' and "B" IS NULL and ROWID""" in update


def test_delete_lists_the_whole_row_even_under_minimal() -> None:
    _, delete, rowid = _redo("MINIMAL")
    assert delete == (
        f"""delete from "O"."T" where "ID" = '1' and "A" = 'a' and "B" = 'b' """
        f"""and ROWID = '{rowid}';"""
    )


def test_primary_key_update_is_one_update_setting_the_new_key(db: SimDatabase) -> None:
    db.create_table(one_table(("A", "VARCHAR2(9)"), logging="PRIMARY KEY"))
    txn = db.begin()
    rowid = txn.insert("O", "T", {"ID": 1})
    txn.update("O", "T", rowid, {"ID": 2})
    rows = [r for r in db.logminer_contents(0, db.current_scn()) if r.operation_code == 3]
    assert [r.sql_redo for r in rows] == [
        f"""update "O"."T" set "ID" = '2' where "ID" = '1' and ROWID = '{rowid}';"""
    ]


def test_insert_lists_only_the_given_columns(db: SimDatabase) -> None:
    db.create_table(one_table(("A", "VARCHAR2(9)"), ("B", "VARCHAR2(9)")))
    db.begin().insert("O", "T", {"B": "b", "ID": 7})
    sql = [r.sql_redo for r in db.logminer_contents(0, db.current_scn()) if r.operation_code == 1]
    assert sql == ["""insert into "O"."T"("ID","B") values ('7','b');"""]


def test_clob_insert_carries_empty_clob_then_an_update_with_the_value(db: SimDatabase) -> None:
    db.create_table(one_table(("C", "CLOB"), logging="PRIMARY KEY"))
    rowid = db.begin().insert("O", "T", {"ID": 1, "C": "text"})
    sql = [
        r.sql_redo for r in db.logminer_contents(0, db.current_scn()) if r.operation_code in (1, 3)
    ]
    assert sql == [
        """insert into "O"."T"("ID","C") values ('1',EMPTY_CLOB());""",
        f"""update "O"."T" set "C" = 'text' where "ID" = '1' and ROWID = '{rowid}';""",
    ]


def test_clob_insert_shows_no_rowid_and_the_lob_update_shows_it(db: SimDatabase) -> None:
    db.create_table(one_table(("C", "CLOB"), ("D", "VARCHAR2(9)")))
    txn = db.begin()
    with_lob = txn.insert("O", "T", {"ID": 1, "C": "text"})
    without_lob = txn.insert("O", "T", {"ID": 2, "D": "d"})
    txn.commit()
    rows = [r for r in db.logminer_contents(0, db.current_scn()) if r.operation_code in (1, 3)]
    assert [(r.operation_code, r.row_id) for r in rows] == [
        (1, "AAAAAAAAAAAAAAAAAA"),
        (3, with_lob),
        (1, without_lob),
    ]
