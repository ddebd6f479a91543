"""What a production LogMiner does that a quiet test database does not: DDL rows Oracle runs
itself (INFO = 'INTERNAL DDL'), archived logs copied to several destinations, and errors that
pass when retried (ORA-01291 log not yet available, ORA-00310 / ORA-00334 log switched while
it was mined)."""

from __future__ import annotations

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import MissingRedoLogError
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource

TABLE = TableDef(
    "APP", "ITEMS", (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),), ("ID",), "ALL"
)


def _database(**options: object) -> SimDatabase:
    db = SimDatabase(**options)  # type: ignore[arg-type]
    db.create_table(TABLE)
    return db


def _insert(db: SimDatabase, key: int) -> None:
    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": key})
    txn.commit()


def test_internal_ddl_rows_are_not_mined() -> None:
    db = _database()
    start = db.current_scn() + 1
    internal = db.internal_ddl("APP", "ITEMS")
    _insert(db, 1)
    assert any(r.info == "INTERNAL DDL" for r in db.logminer_contents(internal, internal))
    source = OracleSource(SimConnection(db), nls=db.nls)

    with source.mine(start, db.current_scn(), [TABLE]) as rows:
        mined = list(rows)

    assert [r.operation_code for r in mined if r.table_name == "ITEMS"] == [1]
    assert not [r for r in mined if r.scn == internal and r.operation_code == 5]


def _source(db: SimDatabase, sleeps: list[float], faults: list[tuple[str, int]]) -> OracleSource:
    connection = SimConnection(db)
    connection.faults.extend(faults)
    return OracleSource(
        connection, nls=db.nls, logminer_arraysize=3, retry_attempts=3,
        retry_delay_seconds=0.5, sleep=sleeps.append,
    )  # fmt: skip


def _window(db: SimDatabase) -> tuple[int, int]:
    start = db.current_scn() + 1
    for key in range(1, 9):
        _insert(db, key)
    return start, db.current_scn()


def _mined(source: OracleSource, start: int, end: int) -> list[tuple[int, str, int]]:
    with source.mine(start, end, [TABLE]) as rows:
        return [(r.scn, r.rs_id, r.operation_code) for r in rows]


def test_a_log_not_yet_available_is_retried_with_back_off() -> None:
    db = _database()
    start, end = _window(db)
    expected = _mined(_source(db, [], []), start, end)
    sleeps: list[float] = []
    source = _source(db, sleeps, [("START_LOGMNR", 1291), ("START_LOGMNR", 1291)])
    assert _mined(source, start, end) == expected
    assert sleeps == [0.5, 1.0]


@pytest.mark.parametrize("code", [310, 334])
def test_a_log_switched_while_mined_resumes_without_losing_or_repeating_rows(code: int) -> None:
    db = _database()
    start, end = _window(db)
    expected = _mined(_source(db, [], []), start, end)
    sleeps: list[float] = []
    source = _source(db, sleeps, [("FETCH", code), ("FETCH", code)])
    assert _mined(source, start, end) == expected
    assert len(expected) > 6 and sleeps == [0.5, 1.0]


def test_a_log_still_missing_after_the_retries_is_a_gap() -> None:
    db = _database()
    start, end = _window(db)
    sleeps: list[float] = []
    source = _source(db, sleeps, [("START_LOGMNR", 1291)] * 5)
    with pytest.raises(MissingRedoLogError, match="ORA-01291"):
        _mined(source, start, end)
    assert sleeps == [0.5, 1.0, 2.0]
