"""Every statement the Oracle source sends parses as Oracle SQL; identifiers are guarded."""

from __future__ import annotations

import pytest
import sqlglot

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import OracleIdentifierError
from extractor.source.oracle import queries
from extractor.source.oracle.snapshot import select_expression, snapshot_statement


@pytest.mark.parametrize("name", sorted(queries.STATEMENTS))
def test_statement_parses_as_oracle_sql(name: str) -> None:
    sqlglot.parse_one(queries.STATEMENTS[name], read="oracle")


_ALL_TYPES = TableDef(
    owner="HR",
    name="ALL TYPES",
    columns=tuple(
        ColumnDef(name=f"C{i}", column_id=i, data_type=t, data_precision=p, data_scale=s)
        for i, (t, p, s) in enumerate(
            [
                ("NUMBER", None, None),
                ("NUMBER", 10, 2),
                ("FLOAT", 126, None),
                ("BINARY_DOUBLE", None, None),
                ("DATE", None, None),
                ("TIMESTAMP(6)", None, 6),
                ("TIMESTAMP(9)", None, 9),
                ("TIMESTAMP(6) WITH TIME ZONE", None, 6),
                ("TIMESTAMP(9) WITH TIME ZONE", None, 9),
                ("RAW", None, None),
                ("CLOB", None, None),
            ],
            start=1,
        )
    ),
)


@pytest.mark.parametrize("resume", [False, True])
def test_snapshot_statement_for_every_type_parses_as_oracle_sql(resume: bool) -> None:
    sqlglot.parse_one(snapshot_statement(_ALL_TYPES, resume), read="oracle")


def test_plain_number_is_read_as_text_and_fixed_number_as_itself() -> None:
    plain, fixed = _ALL_TYPES.columns[0], _ALL_TYPES.columns[1]
    assert select_expression(plain) == "TO_CHAR(\"C1\", 'TM9')"
    assert select_expression(fixed) == '"C2"'


def test_time_zone_timestamp_is_read_in_utc() -> None:
    assert select_expression(_ALL_TYPES.columns[7]) == 'SYS_EXTRACT_UTC("C8")'


def test_nanosecond_timestamp_is_read_as_text_with_its_digits() -> None:
    assert "FF9" in select_expression(_ALL_TYPES.columns[6])


def test_identifier_with_double_quote_is_refused() -> None:
    with pytest.raises(OracleIdentifierError):
        queries.quote_identifier('A"B')


def test_identifier_is_double_quoted_keeping_case_and_spaces() -> None:
    assert queries.qualified_name("HR", "All types") == '"HR"."All types"'


def test_wildcards_become_like_pattern_with_underscore_escaped() -> None:
    assert queries.like_pattern("APP_*") == "APP\\_%"
    assert queries.like_pattern("T?") == "T_"


def test_the_object_id_query_lists_the_tables_partitions_and_subpartitions() -> None:
    """DATA_OBJ# of a partitioned table's rows is a (sub)partition's OBJECT_ID: the query
    that lists a table's ids must return those objects too (ALL_OBJECTS names them by the
    table, OBJECT_TYPE telling them apart)."""
    parsed = sqlglot.parse_one(queries.TABLE_OBJECT_IDS, read="oracle")
    types = {
        literal.this
        for in_list in parsed.find_all(sqlglot.exp.In)
        if in_list.this.name == "OBJECT_TYPE"
        for literal in in_list.expressions
    }
    assert types == {"TABLE", "TABLE PARTITION", "TABLE SUBPARTITION"}
    where = parsed.args["where"]
    assert {c.name for c in where.find_all(sqlglot.exp.Column)} == {
        "OWNER",
        "OBJECT_NAME",
        "OBJECT_TYPE",
    }
    assert [c.name for c in parsed.expressions] == ["OBJECT_ID"]
