"""The real Oracle code (OracleSource over python-oracledb-shaped DB-API) against the simulator."""

from __future__ import annotations

from typing import Any

import pytest

from extractor.errors import MissingRedoLogError, SnapshotTooOldError, TableNotFoundError
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.workload import WorkloadResult
from extractor.source.arrow_schema import ROWID_COLUMN
from extractor.source.oracle import queries
from extractor.source.oracle.oracle_source import OracleSource
from extractor.staging_contract import spark_column_name

Workload = tuple[SimDatabase, WorkloadResult]


def _rows(source: OracleSource, owner: str, name: str, scn: int, **kw: Any) -> list[dict[str, Any]]:
    table = source.table(owner, name)
    out: list[dict[str, Any]] = []
    for batch in source.snapshot_batches(table, scn, **kw):
        out.extend(batch.to_pylist())
    return out


def _truth(db: SimDatabase, owner: str, name: str, scn: int) -> list[dict[str, Any]]:
    return [
        {(ROWID_COLUMN if k == "ROWID" else spark_column_name(k)): v for k, v in row.items()}
        for row in db.truth(owner, name, scn)
    ]


def test_current_scn_is_the_database_scn(workload: Workload, sim_source: OracleSource) -> None:
    assert sim_source.current_scn() == workload[0].current_scn()


def test_dictionary_matches_the_simulated_catalog(
    workload: Workload, sim_source: OracleSource
) -> None:
    db, _ = workload
    expected = sorted(db.tables(), key=lambda t: (t.owner, t.name))
    assert sim_source.list_tables([("*", "*")]) == expected


def test_unknown_named_table_is_reported(sim_source: OracleSource) -> None:
    with pytest.raises(TableNotFoundError):
        sim_source.list_tables(names=[("SIM", "NO_SUCH_TABLE")])


def test_snapshot_of_every_table_equals_the_committed_truth(
    workload: Workload, sim_source: OracleSource
) -> None:
    db, result = workload
    scn = (result.first_scn + result.end_scn) // 2
    for table in db.tables():
        got = _rows(sim_source, table.owner, table.name, scn, batch_rows=50)
        want = _truth(db, table.owner, table.name, scn)
        key = lambda r: r[ROWID_COLUMN]  # noqa: E731
        assert sorted(got, key=key) == sorted(want, key=key), table.name


def test_snapshot_resumes_after_the_last_landed_rowid(
    workload: Workload, sim_source: OracleSource
) -> None:
    db, result = workload
    table = db.tables()[0]
    full = _rows(sim_source, table.owner, table.name, result.end_scn, batch_rows=1000)
    cut = len(full) // 2
    rest = _rows(
        sim_source, table.owner, table.name, result.end_scn,
        batch_rows=7, after_rowid=full[cut - 1][ROWID_COLUMN],
    )  # fmt: skip
    assert rest == full[cut:]


def test_snapshot_older_than_undo_retention_is_snapshot_too_old(workload: Workload) -> None:
    db, _result = workload
    limited = SimDatabase(undo_retention_scns=10)
    limited.create_table(db.tables()[0])
    for _ in range(20):
        limited.switch_log()
    source = OracleSource(SimConnection(limited), nls=limited.nls)
    table = source.table(db.tables()[0].owner, db.tables()[0].name)
    with pytest.raises(SnapshotTooOldError):
        list(source.snapshot_batches(table, limited.current_scn() - 15, 10))


def test_mined_rows_are_the_logminer_rows_of_the_tables(
    workload: Workload, sim_source: OracleSource
) -> None:
    db, result = workload
    tables = sim_source.list_tables([("*", "*")])
    with sim_source.mine(result.first_scn, result.end_scn, tables) as rows:
        mined = list(rows)
    assert mined == db.logminer_contents(result.first_scn, result.end_scn)


def test_mining_one_table_leaves_other_tables_dml_out(
    workload: Workload, sim_source: OracleSource
) -> None:
    _db, result = workload
    one = sim_source.list_tables([("*", "*")])[0]
    with sim_source.mine(result.first_scn, result.end_scn, [one]) as rows:
        names = {r.table_name for r in rows if r.operation_code in (1, 2, 3)}
    assert names == {one.name}


def test_logminer_session_is_ended_after_mining(workload: Workload) -> None:
    db, result = workload
    connection = SimConnection(db)
    source = OracleSource(connection, nls=db.nls)
    with source.mine(result.end_scn - 5, result.end_scn, source.list_tables([("*", "*")])) as rows:
        list(rows)
    assert connection.statements[-1] == queries.END_LOGMNR
    assert connection.logminer_range is None


def test_logminer_session_is_ended_when_the_consumer_fails(workload: Workload) -> None:
    db, result = workload
    connection = SimConnection(db)
    source = OracleSource(connection, nls=db.nls)
    with (
        pytest.raises(RuntimeError),
        source.mine(result.end_scn - 5, result.end_scn, source.list_tables([("*", "*")])),
    ):
        raise RuntimeError("consumer failed")
    assert connection.statements[-1] == queries.END_LOGMNR


def _purged_db() -> SimDatabase:
    db = SimDatabase()
    for _ in range(6):
        db.switch_log()
    db.purge_archived_logs(below_sequence=3)
    return db


def test_purged_archive_log_stops_mining_with_missing_redo() -> None:
    db = _purged_db()
    source = OracleSource(SimConnection(db), nls=db.nls)
    first = db.log_files()[0].first_change
    with pytest.raises(MissingRedoLogError) as caught, source.mine(first, db.current_scn(), []):
        pass
    assert caught.value.first_scn == first


def test_ora_01291_from_start_logmnr_is_missing_redo() -> None:
    db = _purged_db()
    connection = SimConnection(db)
    first = db.log_files()[0].first_change
    from extractor.source.oracle.logminer_session import logminer_session
    from extractor.source.oracle.redo_logs import RedoLog

    current = next(f for f in db.log_files() if f.status == "CURRENT")
    only_current = [RedoLog(current.name, 1, current.sequence, current.first_change, None, True)]
    with (
        pytest.raises(MissingRedoLogError),
        logminer_session(connection, only_current, first, db.current_scn()),
    ):
        pass
    assert connection.statements[-1] == queries.END_LOGMNR


def test_handover_point_starts_mining_at_the_oldest_open_transaction(
    workload: Workload, sim_source: OracleSource
) -> None:
    db, _ = workload
    open_starts = [start for _, start in db.open_transactions()]
    point = sim_source.snapshot_point(sim_source.list_tables([("*", "*")]))
    assert point.scn == db.current_scn()
    assert point.mining_start_scn == min([*open_starts, point.scn])


def test_the_logs_a_window_read_are_reported_with_the_current_one_last() -> None:
    db = SimDatabase()
    for _ in range(3):
        db.switch_log()
    source = OracleSource(SimConnection(db), nls=db.nls)
    assert source.last_window_logs() == ()
    files = db.log_files()
    current = next(f for f in files if f.status == "CURRENT")
    second = min((f for f in files if f.sequence == 2), key=lambda f: f.name)
    with source.mine(second.first_change, db.current_scn(), []) as rows:
        list(rows)
    logs = source.last_window_logs()
    assert [log.sequence for log in logs] == [2, 3, current.sequence]
    assert logs[-1].online and logs[-1].name == current.name
    assert logs[-1].describe().startswith(f"thread 1 sequence {current.sequence} (online) ")
