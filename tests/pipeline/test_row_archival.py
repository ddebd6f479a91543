"""ROW ARCHIVAL (In-Database Archiving, Oracle 12c+): the table gets the hidden,
system-generated column ORA_ARCHIVE_STATE ('0' active, anything else archived), and a session
sees only the active rows unless it sets ROW ARCHIVAL VISIBILITY = ALL. The redo holds every
row; so the extractor's catalog session sees them all, the dictionary reads the column, and
the replica holds every row with its archive state (docs/types.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.parse.ddl_statements import is_row_moving
from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.oracle_errors import SimOracleError
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.source.oracle import queries
from extractor.source.oracle.dictionary import read_table
from extractor.source.oracle.snapshot import snapshot_statement
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

ORDERS = TableDef(
    "APP",
    "ORDERS",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("ITEM", 2, "VARCHAR2", 30),
    ),
    ("ID",),
)

ORDERS_WITH_STATE = dataclasses.replace(
    ORDERS, columns=(*ORDERS.columns, ColumnDef("ORA_ARCHIVE_STATE", 3, "VARCHAR2", 4000))
)


def _archived(db: SimDatabase, *ids: int, state: str = "1") -> None:
    txn = db.begin()
    txn.update("APP", "ORDERS", lambda r: r["ID"] in ids, {"ORA_ARCHIVE_STATE": state})
    txn.commit()


def _orders(db: SimDatabase, *ids: int) -> None:
    txn = db.begin()
    for number in ids:
        txn.insert("APP", "ORDERS", {"ID": number, "ITEM": f"item {number}"})
    txn.commit()


def _database(*, archival: bool = True) -> SimDatabase:
    """ORDERS 1..3 (ROW ARCHIVAL, order 2 archived, when ``archival``)."""
    db = SimDatabase()
    db.create_table(ORDERS)
    _orders(db, 1, 2, 3)
    if archival:
        db.set_row_archival("APP", "ORDERS", enabled=True)
        _archived(db, 2)
    return db


def _config(work: Path) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_row_archival", "error_policy": "fail"},
        base_dir=work,
    )  # fmt: skip


def _snapshotted(db: SimDatabase, work: Path) -> tuple[MemoryStagingWriter, Callable[[], None]]:
    """Staging tables in memory after a first cycle (the snapshot) of ``db``, and the cycle
    that extracts what happened since."""
    config = _config(work)
    staging = MemoryStagingWriter(config.staging_schema)

    def cycle() -> None:
        extract_into_memory(db, config, staging)

    cycle()
    return staging, cycle


def _differences(db: SimDatabase, staging: MemoryStagingWriter) -> list[str]:
    table = db.table("APP", "ORDERS")
    replica = consolidate(table, staging.staged_rows(table))
    return differences(truth_by_key(table, db.truth("APP", "ORDERS", db.current_scn())), replica)


def _replica_states(db: SimDatabase, staging: MemoryStagingWriter) -> dict[int, Any]:
    table = db.table("APP", "ORDERS")
    replica = consolidate(table, staging.staged_rows(table))
    return {int(row["id"]): row.get("ora_archive_state") for row in replica.values()}


# -- the simulator, as Oracle ---------------------------------------------------------------


def test_a_session_sees_archived_rows_only_with_row_archival_visibility_all() -> None:
    db = _database()
    statement = snapshot_statement(db.table("APP", "ORDERS"), resume=False)
    cursor = SimConnection(db).cursor()

    def ids_read() -> list[int]:
        cursor.execute(statement, {"scn": db.current_scn()})
        return sorted(int(row[0]) for row in cursor.fetchall())

    assert ids_read() == [1, 3]  # ACTIVE, Oracle's default: the archived order is not seen
    cursor.execute("ALTER SESSION SET ROW ARCHIVAL VISIBILITY = ALL")
    assert ids_read() == [1, 2, 3]
    cursor.execute("ALTER SESSION SET ROW ARCHIVAL VISIBILITY = ACTIVE")
    assert ids_read() == [1, 3]


def test_enabling_row_archival_writes_one_ddl_row_and_gives_every_row_the_active_state() -> None:
    db = _database(archival=False)
    before = db.current_scn()
    db.set_row_archival("APP", "ORDERS", enabled=True)
    rows = db.logminer_contents(before + 1, db.current_scn())
    assert [(r.operation, r.sql_redo) for r in rows if r.table_name == "ORDERS"] == [
        ("DDL", 'alter table "APP"."ORDERS" row archival;')
    ]
    truth = db.truth("APP", "ORDERS", db.current_scn())
    assert sorted(r["ORA_ARCHIVE_STATE"] for r in truth) == ["0", "0", "0"]
    _orders(db, 4)
    inserted = db.logminer_contents(db.current_scn() - 1, db.current_scn())
    (insert,) = [r.sql_redo or "" for r in inserted if r.operation == "INSERT"]
    assert '"ORA_ARCHIVE_STATE"' in insert and "'0'" in insert


def test_all_tab_cols_lists_the_column_hidden_and_system_generated() -> None:
    """USER_GENERATED = 'NO': the dictionary query names it to read it."""
    db = _database()
    table = read_table(SimConnection(db).cursor(), "APP", "ORDERS")
    assert table.column_names == ("ID", "ITEM", "ORA_ARCHIVE_STATE")
    assert table.column("ORA_ARCHIVE_STATE").data_type == "VARCHAR2"
    assert "'ORA_ARCHIVE_STATE'" in queries.normalise(queries.TABLE_COLUMNS)


@pytest.mark.parametrize(("version", "sent"), [("19.3.0.0.0", True), ("11.2.0.4.0", False)])
def test_the_catalog_session_sees_archived_rows_from_12c_on(version: str, sent: bool) -> None:
    """Oracle 11g has no row archival and refuses the setting (ORA-02248, as the simulator
    does): the source sends it to 12c and later servers only."""
    db = _database(archival=False)
    db.server.version = version
    if not sent:
        with pytest.raises(SimOracleError, match="ORA-02248"):
            SimConnection(db).cursor().execute(queries.SEE_ARCHIVED_ROWS)
    source = open_source({"kind": "sim", "database": db})
    statements = source.catalog_connection.statements  # type: ignore[attr-defined]
    source.close()
    assert (queries.normalise(queries.SEE_ARCHIVED_ROWS) in statements) == sent


# -- the extractor ----------------------------------------------------------------------------


def test_a_snapshot_holds_the_archived_rows_with_their_state(tmp_path: Path) -> None:
    db = _database()
    staging, _ = _snapshotted(db, tmp_path)
    assert _replica_states(db, staging) == {1: "0", 2: "1", 3: "0"}
    assert _differences(db, staging) == []


def test_archiving_and_restoring_rows_streams_as_updates(tmp_path: Path) -> None:
    db = _database()
    staging, cycle = _snapshotted(db, tmp_path)
    _archived(db, 3)
    _archived(db, 2, state="0")
    _orders(db, 4)
    cycle()
    assert staging.quarantined_rows() == []
    assert _replica_states(db, staging) == {1: "0", 2: "0", 3: "1", 4: "0"}
    assert _differences(db, staging) == []


def test_row_archival_enabled_while_streaming_sends_the_table_back(tmp_path: Path) -> None:
    """The existing rows hold '0' with no redo of theirs: the table is snapshotted again."""
    assert is_row_moving('alter table "APP"."ORDERS" row archival;')
    db = _database(archival=False)
    staging, cycle = _snapshotted(db, tmp_path)
    db.set_row_archival("APP", "ORDERS", enabled=True)
    _archived(db, 1)
    cycle()
    assert staging.quarantined_rows() == []
    assert _replica_states(db, staging) == {1: "1", 2: "0", 3: "0"}
    assert _differences(db, staging) == []


def test_row_archival_disabled_sends_the_table_back_and_its_state_lands_null(
    tmp_path: Path,
) -> None:
    """NO ROW ARCHIVAL drops the column (staging keeps it, as any dropped column) and shows
    every row again: the table is snapshotted again, whose rows carry no archive state (a
    row archived before would keep '1' in the replica otherwise)."""
    assert is_row_moving('alter table "APP"."ORDERS" no row archival;')
    db = _database()
    staging, cycle = _snapshotted(db, tmp_path)
    db.set_row_archival("APP", "ORDERS", enabled=False)
    _orders(db, 5)
    cycle()
    assert staging.quarantined_rows() == []
    assert _differences(db, staging) == []
    staged = staging.staged_rows(ORDERS_WITH_STATE)
    again = max(row["_scn"] for row in staged if row["_op"] == "r")
    latest = {int(r["id"]): r["ora_archive_state"] for r in staged if r["_scn"] >= again
              and r["_op"] != "t"}  # fmt: skip
    assert latest == {1: None, 2: None, 3: None, 5: None}


def test_the_workload_archives_rows_of_tables_it_gives_row_archival() -> None:
    db = SimDatabase()
    spec = WorkloadSpec(tables=4, transactions=300, row_archival_ratio=0.05, seed=5)
    runner = WorkloadRunner(db, spec)
    runner.create_tables()
    start = db.current_scn()
    runner.run(300)
    mined = db.logminer_contents(start + 1, db.current_scn())
    enabled = [r for r in mined if (r.sql_redo or "").endswith(" row archival;")]
    assert runner.row_archivals == len(enabled) > 0
    archived = [
        t.name for t in runner.tables
        if db.has_row_archival(spec.owner, t.name)
        and any(r.get("ORA_ARCHIVE_STATE") == "1"
                for r in db.truth(spec.owner, t.name, db.current_scn()))
    ]  # fmt: skip
    assert archived
    named = [r for r in mined if "ORA_ARCHIVE_STATE" in (r.sql_redo or "") and r.operation != "DDL"]
    assert named
