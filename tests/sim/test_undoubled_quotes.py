"""The simulator's undoubled apostrophes (``db.undoubled_quote_ratio``): LogMiner's SQL_REDO
with ``'O'Brien'`` for ``'O''Brien'``, read back by the relaxed-quote recovery."""

from __future__ import annotations

from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import OperationCode
from extractor.parse import parse_redo, typed_row
from extractor.sim.database import SimDatabase

PEOPLE = TableDef(
    "APP",
    "PEOPLE",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("NAME", 2, "VARCHAR2", 50),
        ColumnDef("CITY", 3, "NVARCHAR2", 50),
    ),
    ("ID",),
    "ALL",
)


def _dml_sql(db: SimDatabase) -> list[str]:
    rows = db.logminer_contents(0, db.current_scn())
    return [r.sql_redo or "" for r in rows if r.operation_code == OperationCode.INSERT]


def test_the_ratio_decides_whether_apostrophes_are_doubled() -> None:
    db = SimDatabase()
    db.create_table(PEOPLE)
    txn = db.begin()
    txn.insert("APP", "PEOPLE", {"ID": 1, "NAME": "O'Brien", "CITY": "Zürich 'Nord'"})
    txn.commit()
    (doubled,) = _dml_sql(db)
    assert "'O''Brien'" in doubled
    db.undoubled_quote_ratio = 1.0
    (undoubled,) = _dml_sql(db)
    assert undoubled == doubled.replace("''", "'")
    assert "'O'Brien'" in undoubled and "'Nord'')" in undoubled  # ''' became ''


def test_undoubled_sql_redo_reads_back_to_the_stored_values() -> None:
    db = SimDatabase()
    db.create_table(PEOPLE)
    db.undoubled_quote_ratio = 1.0
    txn = db.begin()
    txn.insert("APP", "PEOPLE", {"ID": 1, "NAME": "it's O'Brien, ok", "CITY": "Zürich 'Nord'"})
    txn.commit()
    (sql,) = _dml_sql(db)
    parsed = parse_redo(sql, PEOPLE)
    assert parsed.recovered_quotes
    new, _ = typed_row(parsed, PEOPLE, db.nls)
    assert (new["NAME"], new["CITY"]) == ("it's O'Brien, ok", "Zürich 'Nord'")


def test_set_lookalike_values_make_a_set_clause_name_a_column_twice() -> None:
    """``set_lookalike_ratio``: with undoubled apostrophes some UPDATEs tie between two
    readings (a national-text second column written as UNISTR(...) does not tie: one reading
    only). Seed 3 has three ties in 300 transactions."""
    from extractor.errors import AmbiguousRedoError, RedoParseError
    from extractor.sim.workload import WorkloadRunner, WorkloadSpec

    db = SimDatabase()
    db.undoubled_quote_ratio = 1.0
    runner = WorkloadRunner(db, WorkloadSpec(tables=5, seed=3, set_lookalike_ratio=1.0))
    runner.run(300)
    assert runner.set_lookalikes > 0
    tables = {(t.owner, t.name): t for t in db.tables()}
    ties = 0
    for row in db.logminer_contents(0, db.current_scn()):
        if row.operation_code != OperationCode.UPDATE or row.sql_redo is None:
            continue
        try:
            parse_redo(row.sql_redo, tables[(row.seg_owner or "", row.table_name or "")])
        except AmbiguousRedoError as tie:
            assert len(tie.readings) == 2
            ties += 1
        except RedoParseError:
            continue  # a piece of a CSF chain, read whole once joined
    assert ties > 0
