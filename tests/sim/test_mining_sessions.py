"""What a LogMiner session shows depends on where it starts: XID sequence FFFFFFFF on the undo,
ROLLBACK and COMMIT rows of transactions begun before the session (``partial_xid_rate``);
replication-marker transactions; undo slots reused only after their transaction ended."""

from __future__ import annotations

from extractor.logminer_row import LogMinerRow
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.oracle import queries

from .sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(20)"))


def _spanning(db: SimDatabase) -> tuple[str, int, int]:
    """A transaction with a savepoint rollback and a commit after a later session start:
    (XID, the session start, the commit SCN)."""
    db.create_table(TABLE)
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1})
    txn.savepoint("s")
    txn.insert("O", "T", {"ID": 2})
    session_start = db.current_scn() + 1
    txn.rollback_to("s")
    return txn.xid, session_start, txn.commit()


def _rows(db: SimDatabase, start: int) -> list[LogMinerRow]:
    return db.logminer_contents(start, db.current_scn())


def test_off_by_default_every_row_keeps_its_xid() -> None:
    db = SimDatabase()
    xid, session_start, _ = _spanning(db)
    assert {r.xid for r in _rows(db, session_start)} == {xid}


def test_undo_and_commit_rows_of_an_earlier_transaction_lose_the_sequence() -> None:
    db = SimDatabase(partial_xid_rate=1.0)
    xid, session_start, commit_scn = _spanning(db)
    rows = _rows(db, session_start)
    assert [(r.operation_code, r.rollback) for r in rows] == [(2, 1), (7, 0)]
    assert {r.xid for r in rows} == {xid[:8] + "FFFFFFFF"}
    assert rows[-1].scn == commit_scn


def test_a_session_that_saw_the_start_keeps_the_xid() -> None:
    db = SimDatabase(partial_xid_rate=1.0)
    xid, _, _ = _spanning(db)
    assert {r.xid for r in _rows(db, 0) if r.username == "APP"} == {xid}


def test_rollback_rows_lose_it_too_and_data_rows_never_do() -> None:
    db = SimDatabase(partial_xid_rate=1.0)
    db.create_table(TABLE)
    txn = db.begin()
    rowid = txn.insert("O", "T", {"ID": 1})
    session_start = db.current_scn() + 1
    txn.update("O", "T", rowid, {"NAME": "x"})
    txn.rollback()
    by_kind = {(r.operation_code, r.rollback): r.xid for r in _rows(db, session_start)}
    assert by_kind[(3, 0)] == txn.xid  # a new change: LogMiner knows the transaction
    assert by_kind[(36, 0)] == by_kind[(2, 1)] == txn.xid[:8] + "FFFFFFFF"


def test_the_rate_picks_transactions_deterministically() -> None:
    def partial_xids(seed: int) -> list[bool]:
        db = SimDatabase(partial_xid_rate=0.5, partial_xid_seed=seed)
        db.create_table(TABLE)
        open_ones = []
        for key in range(40):
            txn = db.begin()
            txn.insert("O", "T", {"ID": key})
            open_ones.append(txn)
        session_start = db.current_scn() + 1
        for txn in open_ones:
            txn.commit()
        commits = [r for r in _rows(db, session_start) if r.operation_code == 7]
        return [r.xid.endswith("FFFFFFFF") for r in commits]

    first = partial_xids(1)
    assert first == partial_xids(1)
    assert 5 < sum(first) < 35
    assert first != partial_xids(2)


def test_a_slot_is_not_reused_while_its_transaction_is_open() -> None:
    db = SimDatabase()
    db.create_table(TABLE)
    held = db.begin()
    held.insert("O", "T", {"ID": 0})
    slots = [held.xid[:8]]
    for key in range(1, 400):  # serials wrap around the 160 segment/slot pairs
        txn = db.begin()
        txn.insert("O", "T", {"ID": key})
        slots.append(txn.xid[:8])
        txn.commit()
    assert held.xid[:8] not in slots[1:]


def test_a_replication_marker_opens_a_transaction_that_never_ends() -> None:
    db = SimDatabase()
    db.create_table(TABLE)
    first = db.current_scn() + 1
    xid = db.replication_marker()
    rows = _rows(db, first)
    assert [(r.xid, r.operation_code, r.operation, r.sql_redo) for r in rows] == [
        (xid, 6, "START", "set transaction read write;"),
        (xid, 27, "REPLICATION_MARKER", None),
    ]
    assert db.open_transactions() == []


def test_the_logminer_query_returns_replication_markers() -> None:
    db = SimDatabase()
    db.create_table(TABLE)
    xid = db.replication_marker()
    cursor = SimConnection(db).cursor()
    for log in db.log_files():
        cursor.callproc(queries.ADD_LOGFILE, keyword_parameters={"LogFileName": log.name})
    first = db.log_files()[0].first_change
    cursor.callproc(
        queries.START_LOGMNR,
        keyword_parameters={"startScn": first, "endScn": db.current_scn(), "Options": 16},
    )
    statement, binds = queries.logminer_contents_query(["NOBODY"], [("NOBODY", "NOTHING")], [0])
    cursor.execute(statement, binds, start_scn=first, end_scn=db.current_scn())
    assert (xid, 27) in {(row[5], row[7]) for row in cursor.fetchall()}


def test_the_workload_writes_replication_markers_at_its_rate() -> None:
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(tables=2, seed=3, replication_marker_ratio=0.2))
    runner.run(100)
    markers = [r for r in _rows(db, 0) if r.operation_code == 27]
    assert 5 < runner.replication_markers == len(markers) < 40
    assert {r.xid for r in markers}.isdisjoint(
        r.xid for r in _rows(db, 0) if r.operation_code in (7, 36)
    )
