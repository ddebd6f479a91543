"""V$LOGMNR_CONTENTS.TIMESTAMP and COMMIT_TIMESTAMP are DATEs in the server's OS time zone
(SYSDATE's); the source reads that offset per window and hands on UTC."""

from __future__ import annotations

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource

TABLE = TableDef(
    "APP", "ITEMS", (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),), ("ID",), "ALL"
)


def _commit_one(db: SimDatabase, key: int) -> tuple[int, int]:
    start = db.current_scn() + 1
    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": key})
    txn.commit()
    return start, db.current_scn()


def _times(rows: object) -> list[tuple[int, int, str | None, str | None]]:
    return [(r.scn, r.operation_code, r.timestamp, r.commit_timestamp) for r in rows]  # type: ignore[attr-defined]


@pytest.mark.parametrize("zone", ["+02:00", "-05:30", "+00:00"])
def test_mined_timestamps_are_utc_whatever_the_server_time_zone(zone: str) -> None:
    db = SimDatabase(server_time_zone=zone)
    db.create_table(TABLE)
    start, end = _commit_one(db, 1)
    source = OracleSource(SimConnection(db), nls=db.nls)

    with source.mine(start, end, [TABLE]) as rows:
        mined = _times(rows)

    utc = _times(db.logminer_contents(start, end))  # the simulator's clock is UTC
    assert mined == utc
    assert any(commit for *_, commit in mined)


def test_the_database_interface_shows_server_time() -> None:
    db = SimDatabase(server_time_zone="+02:00")
    db.create_table(TABLE)
    start, end = _commit_one(db, 1)
    cursor = SimConnection(db).cursor()
    cursor.execute("SELECT TO_CHAR(SYSTIMESTAMP, 'TZH:TZM') FROM DUAL")
    assert cursor.fetchone() == ("+02:00",)
    utc_commit = next(r for r in db.logminer_contents(start, end) if r.operation_code == 7)
    assert utc_commit.commit_timestamp == "2024-01-01T00:00:00"  # the first 10 ms of the epoch
    source = OracleSource(SimConnection(db), nls=db.nls)
    with source.mine(start, end, [TABLE]) as rows:
        assert any(r.commit_timestamp == "2024-01-01T00:00:00" for r in rows)


def test_the_offset_is_read_again_for_every_window() -> None:
    db = SimDatabase(server_time_zone="+01:00")
    db.create_table(TABLE)
    source = OracleSource(SimConnection(db), nls=db.nls)
    first = _commit_one(db, 1)
    with source.mine(*first, [TABLE]) as rows:
        assert _times(rows) == _times(db.logminer_contents(*first))
    db.server_time_zone = "+02:00"  # daylight saving time starts on the server
    second = _commit_one(db, 2)
    with source.mine(*second, [TABLE]) as rows:
        assert _times(rows) == _times(db.logminer_contents(*second))
