"""The V$LOGMNR_CONTENTS filter holds any number of tables: one bind per name, IN-lists split
at Oracle's 1,000 expressions per list (a single VARCHAR2 list fails above 4,000 bytes)."""

from __future__ import annotations

import re

import sqlglot
from msgspec.structs import replace

from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import LogMinerRow
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection, _Filter
from extractor.source.oracle import queries
from extractor.source.oracle.logminer_session import contents_rows
from extractor.source.oracle.oracle_source import OracleSource

MANY = 1500


def _table(index: int) -> TableDef:
    columns = (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),)
    return TableDef("APP", f"TABLE_WITH_A_LONG_NAME_{index:04d}", columns, ("ID",), "ALL")


def test_the_query_for_1500_tables_has_one_bind_per_name_and_lists_of_at_most_1000() -> None:
    tables = [("APP", f"T{i:04d}") for i in range(MANY)]
    statement, binds = queries.logminer_contents_query(["APP"], tables, list(range(MANY)))

    sizes = _in_list_sizes(statement)
    assert sorted(sizes) == [1, 5, 500, 500, 1000, 1000]  # codes, owners, tables, objects
    assert set(re.findall(r":([a-z_0-9]+)", statement)) == {*binds, "start_scn", "end_scn"}
    assert {v for k, v in binds.items() if k.startswith("table_name_")} == {t for _, t in tables}
    assert all(len(str(value)) < 100 for value in binds.values())
    sqlglot.parse_one(statement, read="oracle")


def _in_list_sizes(statement: str) -> list[int]:
    """The number of elements of every ``IN (...)`` list of the statement."""
    sizes = []
    for match in re.finditer(r" IN \(", statement):
        depth, elements, index = 1, 1, match.end()
        while depth:
            char = statement[index]
            depth += {"(": 1, ")": -1}.get(char, 0)
            elements += char == "," and depth == 1
            index += 1
        sizes.append(elements)
    return sizes


def test_an_empty_object_list_selects_no_object() -> None:
    statement, binds = queries.logminer_contents_query(["APP"], [("APP", "T")], [])
    assert "OR 1 = 0)" in statement
    assert not any(name.startswith("obj_") for name in binds)


def test_1500_tables_are_mined_on_the_simulator() -> None:
    db = SimDatabase()
    tables = [_table(i) for i in range(MANY)]
    for table in tables:
        db.create_table(table)
    start = db.current_scn() + 1
    txn = db.begin()
    txn.insert("APP", tables[-1].name, {"ID": 1})
    txn.commit()
    source = OracleSource(SimConnection(db), nls=db.nls)

    with source.mine(start, db.current_scn(), tables) as rows:
        mined = [(r.operation_code, r.table_name) for r in rows]

    assert (1, tables[-1].name) in mined


class _RecordingCursor:
    """Records the statement contents_rows runs; returns no row."""

    arraysize = 0
    prefetchrows = 0

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, statement: str, binds: object) -> None:
        self.statements.append(statement)

    def fetchmany(self, size: int) -> list[object]:
        return []


def _columns(*types: str) -> tuple[ColumnDef, ...]:
    id_column = ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False)
    return (id_column, *(ColumnDef(f"C{i}", i + 2, t, 4000) for i, t in enumerate(types)))


def test_internal_rows_are_mined_only_with_a_table_that_has_lob_columns() -> None:
    plain = TableDef("APP", "PLAIN", _columns("VARCHAR2"), ("ID",), "ALL")
    statements = []
    for types in [("VARCHAR2",), ("CLOB",), ("BLOB",), ("NCLOB",), ("XMLTYPE",)]:
        cursor = _RecordingCursor()
        with_lob = TableDef("APP", "T", _columns(*types), ("ID",), "ALL")
        list(contents_rows(cursor, 1, 2, [plain, with_lob], object_ids=[7]))
        statements.append(cursor.statements[0])

    branch = "OR DATA_OBJ# IN (:obj_1) OR OPERATION_CODE = 0)"
    condition = (
        """ AND (OPERATION_CODE <> 0 OR ("ROLLBACK" = 0 """
        "AND ROW_ID NOT LIKE '%AAAAAAAAAAAA' AND SEQUENCE# > 1))"
    )
    assert [branch in s for s in statements] == [False, True, True, True, True]
    assert [condition in s for s in statements] == [False, True, True, True, True]
    sqlglot.parse_one(statements[1], read="oracle")


def test_extended_strings_count_as_values_written_after_the_row() -> None:
    def table(data_type: str, length: int) -> TableDef:
        columns = (_columns()[0], ColumnDef("C", 2, data_type, length))
        return TableDef("APP", "T", columns, ("ID",), "ALL")

    assert [
        table(t, n).has_lob_columns
        for t, n in [("VARCHAR2", 4000), ("VARCHAR2", 4001), ("NVARCHAR2", 32767),
                     ("RAW", 2000), ("RAW", 2001), ("NUMBER", 22)]
    ] == [False, True, True, False, True, False]  # fmt: skip


def test_the_simulator_answers_internal_rows_of_a_row_and_not_undone() -> None:
    wanted = _Filter(set(), set(), set(), internal_rows=True)
    not_wanted = _Filter(set(), set(), set())
    base = LogMinerRow(
        scn=1, start_scn=None, commit_scn=None, timestamp=None, commit_timestamp=None,
        xid="0a0014000f2b0000", operation="INTERNAL", operation_code=0, seg_owner=None,
        table_name=None, row_id="AAASZHAAEAAAACXAAA", rs_id=" 0x000001.00000002.0010 ", ssn=0,
        csf=0, rollback=0, status=0, info=None, username="APP", sql_redo=None,
    )  # fmt: skip
    undone = replace(base, rollback=1)
    of_the_object = replace(base, row_id="AAASZHAAAAAAAAAAAA")

    assert [wanted.selects(r, "PDB") for r in (base, undone, of_the_object)] == [True, False, False]
    assert not not_wanted.selects(base, "PDB")
