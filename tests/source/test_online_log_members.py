"""Multiplexed online redo logs: a group has several members, and V$LOGFILE.STATUS marks the
ones not in use (INVALID: inaccessible, STALE: incomplete, DELETED: no longer used). The
catalog query names one member per group, preferring those in use: ADD_LOGFILE of an
INVALID member fails (ORA-01284), every window, however healthy the other member is."""

from __future__ import annotations

import pytest

from extractor.errors import SourceQueryError
from extractor.logminer_row import LogMinerRow
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _database() -> tuple[SimDatabase, int]:
    """A database with two members per online group and three committed inserts, all in
    the CURRENT log (never archived); and the SCN before them."""
    db = SimDatabase(online_log_members=2)
    db.create_table(TABLE)
    first = db.current_scn() + 1
    for key in range(3):
        txn = db.begin()
        txn.insert("O", "T", {"ID": key, "NAME": f"row {key}"})
        txn.commit()
    return db, first


def _current_members(db: SimDatabase) -> tuple[str, ...]:
    (current,) = [f for f in db.log_files() if f.is_online and f.status == "CURRENT"]
    return current.members


def _mined(db: SimDatabase, first: int) -> tuple[list[LogMinerRow], list[str]]:
    source = OracleSource(SimConnection(db), nls=db.nls)
    with source.mine(first, db.current_scn(), [TABLE]) as rows:
        mined = list(rows)
    return mined, [log.name for log in source.last_window_logs() if log.online]


@pytest.mark.parametrize("status", ["INVALID", "STALE", "DELETED"])
def test_a_member_not_in_use_is_passed_over_for_one_in_use(status: str) -> None:
    db, first = _database()
    primary, mirror = _current_members(db)
    assert primary < mirror  # MIN(MEMBER) over every member would name the primary
    db.set_log_member_status(primary, status)

    rows, online = _mined(db, first)

    assert online == [mirror]
    assert len([r for r in rows if r.operation_code == 1]) == 3


def test_healthy_members_give_the_lowest_path() -> None:
    db, first = _database()
    rows, online = _mined(db, first)
    assert online == [_current_members(db)[0]]
    assert len([r for r in rows if r.operation_code == 1]) == 3


def test_a_group_with_no_member_in_use_is_still_read() -> None:
    """A STALE member is all the group has: LogMiner is given it (as before the choice)."""
    db, first = _database()
    for member in _current_members(db):
        db.set_log_member_status(member, "STALE")
    rows, online = _mined(db, first)
    assert online == [_current_members(db)[0]]
    assert len([r for r in rows if r.operation_code == 1]) == 3


def test_a_group_whose_members_are_all_inaccessible_fails_naming_the_error() -> None:
    db, first = _database()
    for member in _current_members(db):
        db.set_log_member_status(member, "INVALID")
    with pytest.raises(SourceQueryError, match="ORA-01284"):
        _mined(db, first)


def test_the_simulator_cannot_open_an_invalid_member() -> None:
    db, _ = _database()
    primary, _ = _current_members(db)
    db.set_log_member_status(primary, "INVALID")
    cursor = SimConnection(db).cursor()
    with pytest.raises(Exception, match="ORA-01284"):
        cursor.callproc(
            "DBMS_LOGMNR.ADD_LOGFILE", keyword_parameters={"logfilename": primary, "options": 1}
        )
