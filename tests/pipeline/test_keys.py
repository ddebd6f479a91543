"""The replica key: primary key only where every change carries the whole row."""

from __future__ import annotations

from extractor.dictionary import ColumnDef, TableDef
from extractor.keys import consolidation_key, keyed_by_primary_key, logged_columns

ID = ColumnDef("ID", 1, "NUMBER", data_precision=10, data_scale=0, nullable=False)
NAME = ColumnDef("NAME", 2, "VARCHAR2", data_length=20)
NOTES = ColumnDef("NOTES", 3, "CLOB")


def test_pk_table_with_all_logging_is_keyed_by_its_primary_key() -> None:
    table = TableDef("HR", "T", (ID, NAME), ("ID",), "ALL")
    assert consolidation_key(table) == ("id",)


def test_table_without_pk_is_keyed_by_rowid() -> None:
    assert consolidation_key(TableDef("HR", "T", (ID, NAME), (), "ALL")) == ("_row_id",)


def test_pk_table_with_partial_logging_is_keyed_by_rowid() -> None:
    for level in ("PRIMARY KEY", "MINIMAL"):
        table = TableDef("HR", "T", (ID, NAME), ("ID",), level)  # type: ignore[arg-type]
        assert consolidation_key(table) == ("_row_id",)


def test_pk_table_with_a_lob_column_is_keyed_by_rowid() -> None:
    assert consolidation_key(TableDef("HR", "T", (ID, NOTES), ("ID",), "ALL")) == ("_row_id",)


def test_the_logged_columns_leave_out_lobs_and_types_not_replicated() -> None:
    shape = ColumnDef("SHAPE", 4, "SDO_GEOMETRY")  # an object type: not in ALL's images
    scan = ColumnDef("SCAN", 5, "BFILE")
    table = TableDef("HR", "T", (ID, NAME, NOTES, shape, scan), ("ID",), "ALL")
    assert logged_columns(table) == {"ID", "NAME"}


def test_tables_asked_in_turn_each_get_their_own_answer() -> None:
    """The answer is kept per table object: equal names, other definitions, other answers."""
    by_key = TableDef("HR", "T", (ID, NAME), ("ID",), "ALL")
    by_rowid = TableDef("HR", "T", (ID, NOTES), ("ID",), "ALL")
    for _ in range(2):
        assert keyed_by_primary_key(by_key)
        assert not keyed_by_primary_key(by_rowid)
