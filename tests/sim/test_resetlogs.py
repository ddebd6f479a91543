"""The simulator's OPEN RESETLOGS (``SimDatabase.open_resetlogs``): a point-in-time recovery
that starts a new incarnation, as the extractor's views and LogMiner show it."""

from __future__ import annotations

import pytest

from extractor.errors import MissingRedoLogError, SimUsageError
from extractor.incarnation import SourceIncarnation
from extractor.redo_position import RedoPosition
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle import queries
from extractor.source.oracle.oracle_source import OracleSource
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _insert(db: SimDatabase, key: int) -> int:
    txn = db.begin()
    txn.insert("O", "T", {"ID": key, "NAME": f"n{key}"})
    txn.commit()
    return db.current_scn()


def _fetch(db: SimDatabase, statement: str, **binds: object) -> list[tuple[object, ...]]:
    cursor = SimConnection(db).cursor()
    cursor.execute(statement, binds)
    return cursor.fetchall()


def _keys(db: SimDatabase, scn: int) -> list[object]:
    return sorted(row["ID"] for row in db.truth("O", "T", scn))  # type: ignore[type-var]


def _recovered() -> tuple[SimDatabase, int, int]:
    """Rows 1 and 2; recovered to the SCN after row 1, then row 3 in the new incarnation.
    Returns the database, the recovery SCN and the SCN row 2 had."""
    db = SimDatabase(log_switch_every=3)
    db.create_table(TABLE)
    recovered_to = _insert(db, 1)
    db.switch_log()
    lost_scn = _insert(db, 2)
    db.switch_log()
    db.open_resetlogs(recovered_to)
    _insert(db, 3)
    return db, recovered_to, lost_scn


def test_the_changes_above_the_recovery_scn_are_gone_and_scns_are_handed_out_again() -> None:
    db, recovered_to, lost_scn = _recovered()
    assert db.resetlogs_change == recovered_to + 1
    assert _keys(db, db.current_scn()) == [1, 3]
    assert db.current_scn() <= lost_scn  # row 3 took an SCN row 2 had
    rows = db.logminer_contents(0, db.current_scn())
    inserted = [r.sql_redo for r in rows if r.table_name == "T" and r.operation == "INSERT"]
    assert len(inserted) == 2 and "'n1'" in inserted[0] and "'n3'" in inserted[1]
    new = [r for r in rows if r.scn > recovered_to and r.rs_id]
    assert new and {RedoPosition.of(r.rs_id, r.ssn).sequence for r in new} == {1}


def test_v_database_shows_the_new_incarnation_and_the_archived_logs_query_keeps_to_it() -> None:
    db, recovered_to, _ = _recovered()
    assert _fetch(db, queries.INCARNATION) == [(db.dbid, recovered_to + 1, "2023-11-06 09:30:02")]
    parents = [f for f in db.log_files() if f.resetlogs_id == 1]
    assert parents and all(not f.is_online and f.name.endswith("_1.arc") for f in parents)
    db.switch_log()
    archived = _fetch(db, queries.ARCHIVED_LOGS, start_scn=0, end_scn=db.current_scn())
    assert archived == [
        (f.name, 1, f.sequence, f.first_change, f.next_change)
        for f in db.log_files()
        if f.resetlogs_id == 2 and not f.is_online
    ]
    assert archived[0][0] == "/u01/app/oracle/fra/ORCLPDB1/archivelog/1_1_2.arc"
    assert archived[0][2:4] == (1, recovered_to + 1)


def test_the_archived_logs_query_keeps_to_the_current_incarnation_by_scn_and_time() -> None:
    """The simulator filters by its own incarnation whatever the query says: the query's
    text is what keeps a real Oracle's logs of two incarnations at one SCN apart."""
    text = queries.normalise(queries.ARCHIVED_LOGS)
    assert "A.RESETLOGS_CHANGE# = (SELECT RESETLOGS_CHANGE# FROM V$DATABASE)" in text
    assert "A.RESETLOGS_TIME = (SELECT RESETLOGS_TIME FROM V$DATABASE)" in text


def test_the_oracle_source_reads_the_incarnation_and_cannot_mine_across_it() -> None:
    db, recovered_to, _ = _recovered()
    source = OracleSource(SimConnection(db), nls=db.nls, sleep=lambda _: None)
    assert source.incarnation() == SourceIncarnation(
        db.dbid, recovered_to + 1, "2023-11-06 09:30:02"
    )
    with (
        pytest.raises(MissingRedoLogError, match="ORA-01291"),
        source.mine(recovered_to - 2, db.current_scn(), []),
    ):
        pass  # the earlier incarnation's logs are not this one's


def test_a_second_restore_to_the_same_scn_is_told_apart_by_its_time_and_logs() -> None:
    db, recovered_to, _ = _recovered()
    db.switch_log()
    db.open_resetlogs(recovered_to)
    assert _fetch(db, queries.INCARNATION) == [(db.dbid, recovered_to + 1, "2023-11-06 09:30:03")]
    db.switch_log()
    archived = _fetch(db, queries.ARCHIVED_LOGS, start_scn=0, end_scn=db.current_scn())
    assert [name for name, *_ in archived] == [
        "/u01/app/oracle/fra/ORCLPDB1/archivelog/1_1_3.arc"
    ]  # not the second incarnation's 1_1_2.arc, which began at the same SCN
    assert _keys(db, db.current_scn()) == [1]


def test_a_transaction_open_at_the_recovery_scn_or_ddl_after_it_is_refused() -> None:
    db = SimDatabase()
    db.create_table(TABLE)
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1, "NAME": "open"})
    with pytest.raises(SimUsageError, match="open at SCN"):
        db.open_resetlogs(db.current_scn())
    txn.commit()
    before = db.current_scn()
    db.create_table(one_table(("X", "NUMBER"), name="U"))
    with pytest.raises(SimUsageError, match="DDL"):
        db.open_resetlogs(before)
    db.open_resetlogs(db.current_scn())  # after the DDL: allowed
    assert _keys(db, db.current_scn()) == [1]
