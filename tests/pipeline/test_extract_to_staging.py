"""The extraction loop against the simulator: what lands in staging, consolidated by a simple
independent reference, equals the simulator's committed state — also across crashes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.pipeline.runtime import open_runtime
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.staging_contract import staging_table_name
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

pytestmark = pytest.mark.spark

ITEMS = TableDef(
    "APP",
    "ITEMS",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("NAME", 2, "VARCHAR2", 50),
        ColumnDef("QTY", 3, "NUMBER", 22),
    ),
    ("ID",),
    "ALL",
)
NOTES = TableDef(
    "APP",
    "NOTES",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("TXT", 2, "VARCHAR2", 4000),
        ColumnDef("FLAG", 3, "CHAR", 1),
    ),
    ("ID",),
    "MINIMAL",
)
LOGS = TableDef(
    "APP",
    "LOGS",
    (ColumnDef("MSG", 1, "VARCHAR2", 100), ColumnDef("N", 2, "NUMBER", 22, 5, 0)),
    (),
    "ALL",
)
TABLES = (ITEMS, NOTES, LOGS)


class Crash(Exception):
    """An injected crash."""


def make_config(tmp_path: Path, schema: str, **extra: Any) -> OracdcConfig:
    raw = {
        "source": {"kind": "sim"},
        "tables": ["APP.*"],
        "data_dir": str(tmp_path / "data"),
        "staging_schema": schema,
        **extra,
    }
    return config_from_mapping(raw, base_dir=tmp_path)


def seed_database() -> tuple[SimDatabase, Any]:
    """Tables with committed rows, and one transaction left open before the snapshot."""
    db = SimDatabase()
    for table in TABLES:
        db.create_table(table)
    setup = db.begin()
    for i in range(1, 6):
        setup.insert("APP", "ITEMS", {"ID": i, "NAME": f"item {i}", "QTY": f"{i}.5"})
        setup.insert("APP", "NOTES", {"ID": i, "TXT": f"note {i}", "FLAG": "Y"})
        setup.insert("APP", "LOGS", {"MSG": f"log {i}", "N": i})
    setup.commit()
    open_before_snapshot = db.begin()
    open_before_snapshot.update("APP", "ITEMS", lambda r: r["ID"] == 1, {"NAME": "changed early"})
    return db, open_before_snapshot


def later_changes(db: SimDatabase, open_before_snapshot: Any) -> None:
    """Every kind of change, after the snapshot."""
    open_before_snapshot.commit()
    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": 10, "NAME": "it's new", "QTY": "1e-5"})
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"ID": 20})  # primary-key update
    txn.delete("APP", "ITEMS", lambda r: r["ID"] == 3)
    txn.update("APP", "NOTES", lambda r: r["ID"] == 1, {"TXT": "x" * 5000})  # CSF rows
    txn.update("APP", "NOTES", lambda r: r["ID"] == 2, {"FLAG": None})  # partial image, NULL
    txn.update("APP", "NOTES", lambda r: r["ID"] == 4, {"ID": 40})  # PK update, MINIMAL logging
    txn.update("APP", "LOGS", lambda r: r["N"] <= 2, {"MSG": "multi"})  # multi-row, no PK
    txn.savepoint("s1")
    txn.delete("APP", "LOGS", lambda r: r["N"] == 5)
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 4, {"QTY": "99"})
    txn.rollback_to("s1")  # undone: LOGS 5 stays, ITEMS 4 keeps its QTY
    txn.commit()
    rolled_back = db.begin()
    rolled_back.delete("APP", "ITEMS", lambda r: True)
    rolled_back.rollback()
    again = db.begin()
    again.delete("APP", "ITEMS", lambda r: r["ID"] == 5)
    again.insert("APP", "ITEMS", {"ID": 5, "NAME": "re-inserted", "QTY": None})
    again.commit()
    still_open = db.begin()
    still_open.update("APP", "ITEMS", lambda r: r["ID"] == 1, {"QTY": "7"})  # never commits


def assert_staging_matches_truth(
    spark: Any,
    config: OracdcConfig,
    db: SimDatabase,
    scn: int,
    tables: tuple[TableDef, ...] = TABLES,
) -> None:
    problems: list[str] = []
    for table in tables:
        current = db.table(table.owner, table.name)
        name = f"{config.staging_schema}.{staging_table_name(table.owner, table.name)}"
        rows = spark.table(name).toArrow().to_pylist()
        replica = consolidate(current, rows)
        expected = truth_by_key(current, db.truth(table.owner, table.name, scn))
        problems += [f"{table.name}: {d}" for d in differences(expected, replica)]
    assert problems == []


def run_cycle(
    spark: Any,
    config: OracdcConfig,
    db: SimDatabase,
    step: Callable[[Any], Any],
    fault: Callable[[str], None] | None = None,
) -> Any:
    with open_runtime(config, source=open_source({"kind": "sim", "database": db}), spark=spark,
                      fault=fault) as runtime:  # fmt: skip
        return step(runtime.extractor)


def test_snapshot_then_stream_gives_the_committed_state(spark: Any, tmp_path: Path) -> None:
    config = make_config(tmp_path, "t_extract_basic")
    db, open_before = seed_database()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    later_changes(db, open_before)
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert result.change_rows > 0
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


@pytest.mark.parametrize(
    "point", ["stream:after_land_table", "stream:before_checkpoint", "stream:after_checkpoint"]
)
def test_a_crash_while_streaming_then_a_restart_gives_the_same_state(
    spark: Any, tmp_path: Path, point: str
) -> None:
    config = make_config(tmp_path, "t_extract_crash_" + point.split(":")[1])
    db, open_before = seed_database()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    later_changes(db, open_before)
    crashed: list[str] = []

    def fault(at: str) -> None:
        if at == point and not crashed:
            crashed.append(at)
            raise Crash(at)

    with pytest.raises(Crash):
        run_cycle(spark, config, db, lambda e: e.stream_once(), fault)
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert crashed == [point]
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def test_a_snapshot_cut_off_midway_resumes_from_its_last_chunk(spark: Any, tmp_path: Path) -> None:
    config = make_config(tmp_path, "t_extract_snapshot_resume", snapshot_batch_rows=2)
    db, open_before = seed_database()
    chunks: list[str] = []

    def fault(at: str) -> None:
        if at == "snapshot:after_land":
            chunks.append(at)
            if len(chunks) == 2:
                raise Crash(at)

    with pytest.raises(Crash):
        run_cycle(spark, config, db, lambda e: e.snapshot(), fault)
    run_cycle(spark, config, db, lambda e: e.snapshot())
    staged = spark.table(f"{config.staging_schema}.app__items_log").where("_op = 'r'").count()
    # Chunk 1 (2 rows) was checkpointed; chunk 2 landed but the crash came before its
    # checkpoint, so it lands again; then the last row: 2 + 2 + 2 + 1, not a restart from zero.
    assert staged == 7
    later_changes(db, open_before)
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def staged_rows(spark: Any, config: OracdcConfig, table: TableDef) -> list[dict[str, Any]]:
    name = f"{config.staging_schema}.{staging_table_name(table.owner, table.name)}"
    rows: list[dict[str, Any]] = spark.table(name).toArrow().to_pylist()
    return rows


def test_a_dropped_column_stays_in_staging_and_keeps_its_last_value(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_extract_drop_column")
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    db.drop_column("APP", "ITEMS", "QTY")
    txn = db.begin()
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"NAME": "after drop"})
    txn.insert("APP", "ITEMS", {"ID": 30, "NAME": "new after drop"})
    txn.commit()
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)
    rows = staged_rows(spark, config, ITEMS)
    assert "qty" in rows[0]
    replica = consolidate(ITEMS, rows)  # the dictionary before the drop: QTY included
    assert replica[(2,)]["name"] == "after drop"
    assert replica[(2,)]["qty"] == "2.5"  # the value before the drop, not NULL
    assert replica[(30,)]["qty"] is None


def test_a_table_created_later_is_snapshotted_alone_and_then_streamed(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_extract_added_table")
    db, open_before = seed_database()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    later_changes(db, open_before)
    run_cycle(spark, config, db, lambda e: e.stream_once())
    late = TableDef("APP", "LATE", (ColumnDef("K", 1, "NUMBER", 22, 6, 0, nullable=False),
                                    ColumnDef("V", 2, "VARCHAR2", 20)), ("K",), "ALL")  # fmt: skip
    db.create_table(late)
    setup = db.begin()
    for k in range(3):
        setup.insert("APP", "LATE", {"K": k, "V": f"v{k}"})
    setup.commit()
    spanning = db.begin()  # open while LATE is snapshotted, commits after
    spanning.update("APP", "LATE", lambda r: r["K"] == 0, {"V": "spanning"})
    spanning.update("APP", "ITEMS", lambda r: r["ID"] == 10, {"NAME": "spanning too"})

    snapshot = run_cycle(spark, config, db, lambda e: e.snapshot())

    assert snapshot.tables == ("APP.LATE",)
    spanning.commit()
    more = db.begin()
    more.delete("APP", "LATE", lambda r: r["K"] == 1)
    more.commit()
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn, (*TABLES, late))


def test_a_crash_while_a_spilled_transaction_is_open_loses_nothing(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(
        tmp_path,
        "t_extract_spill_crash",
        memory_budget_mb=1,
        mining={"window_scns": 100, "min_window_scns": 100, "target_rows_per_window": 10**9},
    )
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    big = db.begin()  # ~2 MB of SQL_REDO over several mining windows: spills to disk
    for i in range(400):
        big.update("APP", "NOTES", lambda r, i=i: r["ID"] == 1 + i % 5, {"TXT": f"{i}" * 5000})
    big.commit()
    windows: list[str] = []

    def fault(at: str) -> None:
        if at == "stream:after_checkpoint":
            windows.append(at)
            if len(windows) == 2:  # windows of 100 then 200 SCNs: ~1.5 MB buffered, spilled
                raise Crash(at)

    with pytest.raises(Crash):
        run_cycle(spark, config, db, lambda e: e.stream_once(), fault)
    status = json.loads((config.data_dir / "status.json").read_text())
    assert status["open_transactions"] == 1
    assert status["spill_bytes"] > 0
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)
