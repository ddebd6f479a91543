"""Wildcards in ``tables:`` skip what cannot be replicated: global temporary tables, IOT
overflow segments, nested and secondary (domain index) tables, materialized view logs and
other Oracle-internal tables. A table named explicitly is still taken."""

from __future__ import annotations

import sqlglot

from extractor.dictionary import ColumnDef, TableDef
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle import queries
from extractor.source.oracle.oracle_source import OracleSource

_COLUMNS = (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),)
_SKIPPED_BY_NAME = (
    "MLOG$_ORDERS",
    "RUPD$_ORDERS",
    "BIN$mfrSZ3xuQ1K7rkYvB6Y0tw==$0",
    "DR$ORDERS_TEXT$I",
    "SYS_IOT_OVER_74123",
    "AQ$_ORDERS_QUEUE_E",
    "SYS_JOURNAL_74125",
)
_SKIPPED_BY_KIND = {
    "SESSION_SCRATCH": "GLOBAL TEMPORARY",
    "ORDERS_IOT_OVERFLOW": "IOT_OVERFLOW",
    "ORDERS_IOT_MAPPING": "IOT_MAPPING",
    "ORDER_LINES_NT": "NESTED",
    "ORDERS_SPATIAL_IDX": "SECONDARY",
}


def _database() -> SimDatabase:
    db = SimDatabase()
    names = ("ORDERS", "ORDERS_IOT", "MLOG_OF_NOTHING", *_SKIPPED_BY_NAME, *_SKIPPED_BY_KIND)
    for name in names:
        db.create_table(TableDef("APP", name, _COLUMNS, ("ID",), "ALL"))
    db.table_kinds.update({("APP", name): kind for name, kind in _SKIPPED_BY_KIND.items()})
    db.table_kinds[("APP", "ORDERS_IOT")] = "IOT"
    return db


def test_wildcards_skip_tables_that_cannot_be_replicated() -> None:
    source = OracleSource(SimConnection(_database()))
    listed = [t.name for t in source.list_tables([("APP", "*")])]
    assert listed == ["MLOG_OF_NOTHING", "ORDERS", "ORDERS_IOT"]


def test_a_table_named_explicitly_is_taken_whatever_its_kind() -> None:
    source = OracleSource(SimConnection(_database()))
    listed = [t.name for t in source.list_tables([], [("APP", "MLOG$_ORDERS")])]
    assert listed == ["MLOG$_ORDERS"]


def test_the_table_list_filters_on_all_tables_columns_and_names() -> None:
    text = queries.LIST_TABLES
    for condition in ("TEMPORARY = 'N'", "NESTED = 'NO'", "SECONDARY = 'N'", "IOT_TYPE"):
        assert condition in text
    assert "TABLE_NAME NOT LIKE 'MLOG$\\_%' ESCAPE '\\'" in text
    sqlglot.parse_one(text, read="oracle")
