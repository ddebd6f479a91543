"""The simulator's RAC model (``SimDatabase(threads=2)``) and second archive destination
(``archive_destinations=2``): what the extractor's views show, read through the DB-API face."""

from __future__ import annotations

import pytest

from extractor.errors import SimUsageError
from extractor.redo_position import RedoPosition
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle import queries
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _rac() -> SimDatabase:
    db = SimDatabase(threads=2)
    db.create_table(TABLE)
    return db


def _insert(db: SimDatabase, key: int, instance: int | None = None) -> str:
    txn = db.begin(instance=instance)
    txn.insert("O", "T", {"ID": key, "NAME": f"n{key}"})
    txn.commit()
    return txn.xid


def _fetch(db: SimDatabase, statement: str, **binds: object) -> list[tuple[object, ...]]:
    cursor = SimConnection(db).cursor()
    cursor.execute(statement, binds)
    return cursor.fetchall()


def test_transactions_run_on_the_instances_in_turn_each_in_its_own_thread() -> None:
    db = _rac()
    xids = [_insert(db, key) for key in range(1, 5)]
    assert sorted(db.instance_of(x) for x in xids) == [1, 1, 2, 2]
    rows = db.logminer_contents(0, db.current_scn())
    for row in rows:
        if row.xid in xids:
            sequence = RedoPosition.of(row.rs_id, row.ssn).sequence
            assert sequence == 1  # each thread's own sequence 1
    assert [r.scn for r in rows] == sorted(r.scn for r in rows)  # merged in SCN order


def test_each_thread_has_its_own_logs_and_sequences() -> None:
    db = _rac()
    _insert(db, 1, instance=2)
    db.switch_log()  # ARCHIVE LOG CURRENT: every open thread
    db.switch_log(thread=2)
    archived = _fetch(db, queries.ARCHIVED_LOGS, start_scn=0, end_scn=db.current_scn())
    assert [(r[1], r[2]) for r in archived] == [(1, 1), (2, 1), (2, 2)]
    online = _fetch(db, queries.ONLINE_LOGS, start_scn=0, end_scn=db.current_scn())
    current = [(r[1], r[2]) for r in online if r[5] == "CURRENT"]
    assert current == [(1, 2), (2, 3)]
    assert len({r[0] for r in online}) == len(online)  # distinct groups per thread


def test_v_transaction_is_local_and_gv_transaction_lists_every_instance() -> None:
    db = _rac()
    remote = db.begin(instance=2)
    remote.insert("O", "T", {"ID": 1, "NAME": "remote"})
    assert db.open_transactions(instance=1) == []
    assert db.open_transactions() == [(remote.xid, remote.start_scn)]
    assert _fetch(db, queries.OPEN_TRANSACTIONS_START_SCN, at_scn=db.current_scn()) == [
        (remote.start_scn,)
    ]


def test_v_thread_lists_every_thread_and_a_closed_one_stops_at_its_checkpoint() -> None:
    db = _rac()
    _insert(db, 1, instance=2)
    closed_at = db.close_thread(2, disable=True)
    rows = _fetch(db, queries.REDO_THREADS)
    assert [r[:3] for r in rows] == [(1, "OPEN", "PUBLIC"), (2, "CLOSED", "DISABLED")]
    assert rows[1][4:] == (closed_at - 1, closed_at)
    assert all(db.instance_of(_insert(db, key)) == 1 for key in range(2, 5))
    with pytest.raises(SimUsageError):
        db.begin(instance=2)
    online = _fetch(db, queries.ONLINE_LOGS, start_scn=0, end_scn=db.current_scn())
    assert {r[1] for r in online} == {1}  # a disabled thread's groups are dropped


def test_a_thread_none_of_whose_logs_is_added_is_not_mined() -> None:
    db = _rac()
    _insert(db, 1, instance=1)
    _insert(db, 2, instance=2)
    db.switch_log()
    thread_one = [f.name for f in db.log_files() if f.thread == 1 and not f.is_online]
    rows = db.logminer_contents(1_000_000, db.current_scn() - 1, log_names=thread_one)
    assert {db.instance_of(r.xid) for r in rows} == {1}


def test_a_second_destination_keeps_a_copy_of_each_archived_log() -> None:
    db = SimDatabase(archive_destinations=2)
    db.create_table(TABLE)
    db.switch_log()
    copies = [(f.sequence, f.dest_id, f.status) for f in db.log_files() if not f.is_online]
    assert copies == [(1, 1, "A"), (1, 2, "A")]
    db.delete_archived_copy(sequence=1, dest_id=1)
    answer = _fetch(db, queries.ARCHIVED_LOGS, start_scn=0, end_scn=db.current_scn())
    assert [r[0] for r in answer] == ["/u02/app/oracle/arch/ORCLPDB1/1_1_1.arc"]


def test_one_thread_keeps_the_single_instance_names() -> None:
    db = SimDatabase()
    db.create_table(TABLE)
    db.switch_log()
    names = sorted(f.name for f in db.log_files())
    assert names[0] == "/u01/app/oracle/fra/ORCLPDB1/archivelog/1_1_1.arc"
    assert _fetch(db, queries.REDO_THREADS)[0][:3] == (1, "OPEN", "PUBLIC")
