"""The V$LOGMNR_CONTENTS filter holds any number of tables: one bind per name, IN-lists split
at Oracle's 1,000 expressions per list (a single VARCHAR2 list fails above 4,000 bytes)."""

from __future__ import annotations

import re

import sqlglot

from extractor.dictionary import ColumnDef, TableDef
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle import queries
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
