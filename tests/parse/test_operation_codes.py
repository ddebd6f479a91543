"""Every V$LOGMNR_CONTENTS operation code of a replicated table is applied, passed on,
quarantined with a reason, or deliberately ignored: none falls through silently."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import OperationCode
from extractor.nls import NlsSettings
from extractor.parse.change_builder import (
    DISPOSITIONS,
    ChangeBuilder,
    TransactionChanges,
    TransactionInfo,
)
from tests.assemble.rows import ROWID_1, XID_A, row

EMP = TableDef(
    "SCOTT",
    "EMP",
    (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False), ColumnDef("NAME", 2, "VARCHAR2", 20)),
    ("ID",),
    "ALL",
)
SQL_REDO: dict[int, str] = {
    1: """insert into "SCOTT"."EMP"("ID","NAME") values ('1','a');""",
    2: """delete from "SCOTT"."EMP" where "ID" = '1' and "NAME" = 'a';""",
    3: """update "SCOTT"."EMP" set "NAME" = 'b' where "ID" = '1' and "NAME" = 'a';""",
    5: """alter table "SCOTT"."EMP" add ("X" NUMBER);""",
    68: """XML DOC BEGIN:  select "NAME" from "SCOTT"."EMP" where "ID" = '1'""",
    91: """32K VARCHAR BEGIN:  select "NAME" from "SCOTT"."EMP" where "ID" = '1'""",
}
# The expected outcome of each code, written down independently of the code under test.
APPLIED = {1, 2, 3}
PASSED_ON = {5}
IGNORED = {0, 6, 7, 25, 27, 34, 36}  # no row change (or consumed by the assembler)
QUARANTINED = {9, 10, 11, 28, 29, 68, 70, 71, 91, 92, 93, 255}
UNKNOWN = {4, 8, 99, 200}


def build(code: int) -> TransactionChanges:
    builder = ChangeBuilder(lambda owner, name, refresh: EMP, lambda o, t: True, NlsSettings())
    info = TransactionInfo(XID_A, 120, None)
    data = row(code, XID_A, 110, row_id=ROWID_1, sql_redo=SQL_REDO.get(code, "whatever"))
    return builder.build(info, [replace(data, seg_owner="SCOTT", table_name="EMP")])


def test_the_expectations_cover_every_documented_code() -> None:
    assert {int(c) for c in OperationCode} == APPLIED | PASSED_ON | IGNORED | QUARANTINED
    assert set(DISPOSITIONS) == set(OperationCode)


@pytest.mark.parametrize("code", sorted(APPLIED))
def test_dml_codes_become_change_records(code: int) -> None:
    changes = build(code)
    records = changes.records[("SCOTT", "EMP")]
    assert records and not changes.quarantined and not changes.ddl_rows


@pytest.mark.parametrize("code", sorted(PASSED_ON))
def test_ddl_is_passed_on(code: int) -> None:
    changes = build(code)
    assert [r.operation_code for r in changes.ddl_rows] == [code]
    assert not changes.records and not changes.quarantined


@pytest.mark.parametrize("code", sorted(QUARANTINED | UNKNOWN))
def test_codes_that_cannot_be_applied_are_quarantined_with_a_reason(code: int) -> None:
    changes = build(code)
    assert not changes.records and not changes.ddl_rows
    assert [q.operation_code for q in changes.quarantined] == [code]
    reason = changes.quarantined[0].reason
    assert str(code) in reason or "LOB" in reason


@pytest.mark.parametrize("code", sorted(IGNORED))
def test_codes_without_a_row_change_are_ignored(code: int) -> None:
    changes = build(code)
    assert not changes.records and not changes.ddl_rows and not changes.quarantined


def _built(sql_redo: str) -> TransactionChanges:
    builder = ChangeBuilder(lambda owner, name, refresh: EMP, lambda o, t: True, NlsSettings())
    data = row(3, XID_A, 110, row_id=ROWID_1, sql_redo=sql_redo)
    return builder.build(
        TransactionInfo(XID_A, 120, None), [replace(data, seg_owner="SCOTT", table_name="EMP")]
    )


def test_a_value_logminer_could_not_render_quarantines_its_row() -> None:
    changes = _built("""update "SCOTT"."EMP" set "NAME" = Unsupported Type where "ID" = '1';""")
    assert not changes.records
    assert [q.reason for q in changes.quarantined] == [
        "LogMiner wrote 'Unsupported Type' for column(s) NAME"
    ]
    kept = _built("""update "SCOTT"."EMP" set "NAME" = 'Unsupported Type' where "ID" = '1';""")
    assert not kept.quarantined
    assert [r.values["NAME"] for r in kept.records[("SCOTT", "EMP")]] == ["Unsupported Type"]


LOB_TABLE = TableDef(
    "SCOTT",
    "EMP",
    (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False), ColumnDef("NAME", 2, "CLOB", 4000)),
    ("ID",),
    "ALL",
)


@pytest.mark.parametrize(("table", "applied"), [(EMP, True), (LOB_TABLE, False)])
def test_an_insert_left_without_its_rowid_is_quarantined_where_rowid_is_the_key(
    table: TableDef, applied: bool
) -> None:
    builder = ChangeBuilder(lambda owner, name, refresh: table, lambda o, t: True, NlsSettings())
    data = row(1, XID_A, 110, row_id="AAAAAAAAAAAAAAAAAA", sql_redo=SQL_REDO[1])

    changes = builder.build(TransactionInfo(XID_A, 120, None), [data])

    assert bool(changes.records) is applied
    assert [("ROW_ID AAAAAAAAAAAAAAAAAA" in q.reason) for q in changes.quarantined] == (
        [] if applied else [True]
    )


@pytest.mark.parametrize(("stated", "outcome"), [(ROWID_1, ROWID_1), ("AAAAAAAAAAAAAAAAAA", None)])
def test_a_change_left_without_its_rowid_takes_the_one_its_statement_names(
    stated: str, outcome: str | None
) -> None:
    builder = ChangeBuilder(lambda o, n, r: LOB_TABLE, lambda o, t: True, NlsSettings())
    sql = f"""update "SCOTT"."EMP" set "NAME" = 'b' where "ID" = '1' and ROWID = '{stated}';"""
    data = row(3, XID_A, 110, row_id="AAAAAAAAAAAAAAAAAA", sql_redo=sql)

    changes = builder.build(TransactionInfo(XID_A, 120, None), [data])

    row_ids = [r.row_id for r in changes.records.get(("SCOTT", "EMP"), [])]
    assert row_ids == ([] if outcome is None else [outcome])
    assert len(changes.quarantined) == (1 if outcome is None else 0)


EMP_WITH_SHAPE = TableDef(
    "SCOTT", "EMP", (*EMP.columns, ColumnDef("SHAPE", 3, "SDO_GEOMETRY")), ("ID",), "ALL"
)
KEY_UPDATE = """update "SCOTT"."EMP" set "ID" = '2' where "ID" = '1' and "NAME" = 'a';"""


@pytest.mark.parametrize(
    ("table", "sql_redo", "lower"),
    [
        (EMP, KEY_UPDATE, False),  # ALL: the whole row
        # an object type column is never in ALL's images (nor replicated)
        (EMP_WITH_SHAPE, KEY_UPDATE, False),
        # lowered to PRIMARY KEY: the key and the changed column only
        (EMP, """update "SCOTT"."EMP" set "ID" = '2' where "ID" = '1';""", True),
        (EMP, """update "SCOTT"."EMP" set "NAME" = 'b' where "NAME" = 'a';""", True),  # no key
    ],
)
def test_a_change_without_what_the_primary_key_needs_is_logged_lower(
    table: TableDef, sql_redo: str, lower: bool
) -> None:
    builder = ChangeBuilder(lambda owner, name, refresh: table, lambda o, t: True, NlsSettings())
    data = row(3, XID_A, 110, row_id=ROWID_1, sql_redo=sql_redo)
    changes = builder.build(
        TransactionInfo(XID_A, 120, None), [replace(data, seg_owner="SCOTT", table_name="EMP")]
    )
    assert [(o, t) for o, t, _ in changes.logged_lower] == ([("SCOTT", "EMP")] if lower else [])
    assert len(changes.quarantined) == int(lower)
    ops = [r.op for r in changes.records.get(("SCOTT", "EMP"), [])]
    assert ops == ([] if lower else ["d", "u"] if 'set "ID"' in sql_redo else ["u"])
