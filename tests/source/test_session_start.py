"""Each mining window's LogMiner session starts at the oldest open transaction's first SCN,
not at the window's start: LogMiner cannot always rebuild a change of a transaction whose
earlier redo lies before its session, and shows it as UNSUPPORTED (Debezium DBZ-8747). The
simulator models that (``pre_session_unsupported_rate``); the rows handed on stay those of
the window (docs/transactions.md "Transactions across windows")."""

from __future__ import annotations

import itertools
import logging
from pathlib import Path

import pytest

from extractor.assemble.records import CommittedTransaction
from extractor.assemble.window_miner import MinedWindow, WindowMiner
from extractor.config import MiningSettings
from extractor.errors import MissingRedoLogError
from extractor.logminer_row import OperationCode
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.oracle_source import OracleSource, open_oracle_source
from tests.sim.sim_tables import one_table

TABLE = one_table(("NAME", "VARCHAR2(40)"))


def _spanning_workload(db: SimDatabase) -> tuple[int, int]:
    """A transaction open across many small windows: changes, a savepoint rollback and a
    commit far above its start, among short transactions. Returns (first SCN, last SCN)."""
    db.create_table(TABLE)
    first = db.current_scn() + 1
    long = db.begin()
    long.insert("O", "T", {"ID": 1, "NAME": "first change"})
    for key in range(100, 130):
        short = db.begin()
        short.insert("O", "T", {"ID": key, "NAME": "short"})
        short.commit()
        if key == 110:
            kept = long.insert("O", "T", {"ID": 2, "NAME": "kept"})
            long.savepoint("s")
            long.update("O", "T", kept, {"NAME": "rolled back"})
            long.insert("O", "T", {"ID": 3, "NAME": "rolled back too"})
            long.rollback_to("s")
        if key == 120:
            long.update("O", "T", kept, {"NAME": "changed late"})
    long.commit()
    return first, db.current_scn()


def _mine(tmp_path: Path, rate: float) -> tuple[list[CommittedTransaction], list[MinedWindow]]:
    db = SimDatabase(pre_session_unsupported_rate=rate)
    first, last = _spanning_workload(db)
    source = OracleSource(SimConnection(db), nls=db.nls)
    miner = WindowMiner(source, MiningSettings(window_scns=6, min_window_scns=6,
                                               max_window_scns=6), 1 << 20, tmp_path)  # fmt: skip
    miner.reset(None)
    events = list(miner.mine([TABLE], first, last))
    miner.close()
    committed = [e for e in events if isinstance(e, CommittedTransaction)]
    windows = [e for e in events if isinstance(e, MinedWindow)]
    return committed, windows


def test_the_simulator_shows_rows_of_earlier_transactions_as_unsupported() -> None:
    db = SimDatabase(pre_session_unsupported_rate=1.0)
    first, last = _spanning_workload(db)
    late = db.logminer_contents(first + 20, last)
    codes = {(r.operation_code, r.row_id) for r in late if r.xid == late[-1].xid and r.table_name}
    assert codes == {(OperationCode.UNSUPPORTED, "AAAAAAAAAAAAAAAAAA")}
    whole = db.logminer_contents(first + 20, last, session_start_scn=first)
    assert OperationCode.UNSUPPORTED not in {r.operation_code for r in whole}


def test_a_transaction_across_windows_comes_out_whole(tmp_path: Path) -> None:
    committed, windows = _mine(tmp_path, rate=1.0)
    expected, _ = _mine(tmp_path, rate=0.0)

    assert len(windows) > 10  # the long transaction spans many sessions
    assert len(committed) == len(expected) == 31
    rows = list(committed[-1].rows)  # the long transaction (rows: read once)
    assert OperationCode.UNSUPPORTED not in {r.operation_code for r in rows}
    texts = [r.sql_redo or "" for r in rows]
    assert texts == [r.sql_redo for r in expected[-1].rows]
    assert len(texts) == 3  # its first insert, the kept insert, the late update
    assert texts[-1].startswith('update "O"."T" set "NAME" = \'changed late\'')


def test_a_window_reports_where_its_session_started(tmp_path: Path) -> None:
    _, windows = _mine(tmp_path, rate=0.0)
    open_across = [w for w in windows if w.oldest_open_scn is not None]
    assert open_across
    for before, window in itertools.pairwise(windows):
        expected = window.start_scn
        if before.oldest_open_scn is not None:
            expected = min(expected, before.oldest_open_scn)
        assert window.session_start_scn == expected


def test_a_retried_window_starts_its_new_session_at_the_oldest_open_transaction() -> None:
    """A transient error (ORA-00310: a log switched while mined) starts a new session: it too
    starts where the open transaction began, and its rows go on from where they stopped."""
    db = SimDatabase(pre_session_unsupported_rate=1.0)
    first, last = _spanning_workload(db)
    window = (first + 30, last)
    expected = _window_rows(OracleSource(SimConnection(db), nls=db.nls), window, first)
    connection = SimConnection(db)
    connection.faults.append(("FETCH", 310))
    retried = OracleSource(
        connection, nls=db.nls, logminer_arraysize=2, retry_attempts=2, sleep=lambda _: None
    )

    rows = _window_rows(retried, window, first)

    assert rows == expected
    assert OperationCode.UNSUPPORTED not in {code for _, _, code in rows}
    assert any(r[2] == OperationCode.UPDATE for r in rows)  # the long one's late update


def _window_rows(
    source: OracleSource, window: tuple[int, int], session_start: int
) -> list[tuple[int, str, int]]:
    with source.mine(*window, [TABLE], session_start) as rows:
        return [(r.scn, r.rs_id, r.operation_code) for r in rows]


def _open_across_a_purge(
    tmp_path: Path, *, pdb: bool, purge_the_window: bool = False
) -> tuple[SimDatabase, OracleSource, WindowMiner, int, int]:
    """A transaction open since SCN ``first`` among short ones, mined up to ``resume`` - 1
    (the buffer holds it open); 30 more short ones; then the archived logs below the one
    holding ``resume`` deleted (with ``purge_the_window``, that one too). Returns (database,
    source, miner, first, resume)."""
    db = SimDatabase(log_switch_every=10)
    if pdb:  # a session in the PDB (19c+): LogMiner picks the logs; ORA-01291 from START_LOGMNR
        db.server.cdb = True
        db.server.container_name = db.server.pdb_name
    db.create_table(TABLE)
    first = db.current_scn() + 1
    long = db.begin()
    long.insert("O", "T", {"ID": 1, "NAME": "open across the purge"})
    for key in range(100, 110):
        _commit_one(db, key)
    resume = db.current_scn() + 1
    source = open_oracle_source(lambda: SimConnection(db), nls=db.nls)
    miner = WindowMiner(source, MiningSettings(window_scns=6, min_window_scns=6,
                                               max_window_scns=6), 1 << 20, tmp_path)  # fmt: skip
    miner.reset(None)
    assert (
        len(
            [
                e
                for e in miner.mine([TABLE], first, resume - 1)
                if isinstance(e, CommittedTransaction)
            ]
        )
        == 10
    )
    for key in range(110, 140):
        _commit_one(db, key)
    (holding,) = [
        f for f in db.log_files()
        if not f.is_online and f.first_change <= resume < (f.next_change or resume + 1)
    ]  # fmt: skip
    db.purge_archived_logs(below_sequence=holding.sequence + (1 if purge_the_window else 0))
    return db, source, miner, first, resume


def _commit_one(db: SimDatabase, key: int) -> None:
    short = db.begin()
    short.insert("O", "T", {"ID": key, "NAME": "short"})
    short.commit()


@pytest.mark.parametrize("pdb", [False, True], ids=["added-logs", "pdb-session"])
def test_with_the_redo_before_the_window_gone_windows_start_their_own_sessions(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, pdb: bool
) -> None:
    """The archived logs back to the open transaction's start are deleted while it is still
    open: each window is mined from a session at its own start (as before sessions started
    at the oldest open transaction), at once, not after the retries for a log not yet
    archived, and says so once."""
    db, source, miner, first, resume = _open_across_a_purge(tmp_path, pdb=pdb)
    sleeps: list[float] = []
    source._sleep = sleeps.append  # the retry delays, counted not slept
    with caplog.at_level(logging.WARNING, logger="extractor.source.oracle.oracle_source"):
        events = list(miner.mine([TABLE], resume, db.written_scn()))
    miner.close()

    windows = [e for e in events if isinstance(e, MinedWindow)]
    committed = [e for e in events if isinstance(e, CommittedTransaction)]
    assert len(windows) > 5
    assert all(w.oldest_open_scn == first and w.session_start_scn == w.start_scn for w in windows)
    assert len(committed) == 30  # every short transaction after `resume`, none lost
    assert sleeps == []
    warnings = [r.getMessage() for r in caplog.records if "cannot start at SCN" in r.getMessage()]
    assert len(warnings) == 1 and f"SCN {first}" in warnings[0]


def test_with_the_windows_own_redo_gone_mining_stops(tmp_path: Path) -> None:
    db, _, miner, _, resume = _open_across_a_purge(tmp_path, pdb=False, purge_the_window=True)
    with pytest.raises(MissingRedoLogError) as gap:
        list(miner.mine([TABLE], resume, db.written_scn()))
    miner.close()
    assert gap.value.last_scn is not None and gap.value.last_scn >= resume  # the window's own


def test_a_log_not_yet_available_is_retried_from_the_oldest_open_transaction(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """ORA-01291 from START_LOGMNR does not say which log is missing: the session at the
    window's start is tried; when it fails too, the retries go on from the oldest open
    transaction, and nothing says its redo is gone."""
    db = SimDatabase(pre_session_unsupported_rate=1.0)
    first, last = _spanning_workload(db)
    window = (first + 30, last)
    expected = _window_rows(OracleSource(SimConnection(db), nls=db.nls), window, first)
    connection = SimConnection(db)
    connection.faults.extend([("START_LOGMNR", 1291), ("START_LOGMNR", 1291)])
    sleeps: list[float] = []
    source = OracleSource(connection, nls=db.nls, retry_attempts=2, sleep=sleeps.append)

    with caplog.at_level(logging.WARNING, logger="extractor.source.oracle.oracle_source"):
        rows = _window_rows(source, window, first)

    assert rows == expected
    assert OperationCode.UNSUPPORTED not in {code for _, _, code in rows}
    assert source.last_session_start_scn() == first
    assert len(sleeps) == 1
    assert not [r for r in caplog.records if "cannot start at SCN" in r.getMessage()]
