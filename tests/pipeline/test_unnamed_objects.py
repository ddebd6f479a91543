"""Rows LogMiner cannot name (SEG_OWNER ``UNKNOWN``, TABLE_NAME ``OBJ# n``) of a replicated
table are mined by object id and quarantined under the table's name, never dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle import queries
from tests.pipeline.test_extract_to_staging import (
    ITEMS,
    TABLES,
    make_config,
    run_cycle,
    staged_rows,
)

pytestmark = pytest.mark.spark


def test_rows_logminer_cannot_name_are_quarantined_under_their_table(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_extract_unnamed", error_policy="warn")
    db = SimDatabase(unnamed_object_ratio=0.3)
    for table in TABLES:
        db.create_table(table)
    run_cycle(spark, config, db, lambda e: e.snapshot())
    after_snapshot = db.current_scn() + 1
    for key in range(100, 120):
        txn = db.begin()
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"item {key}"})
        txn.commit()

    result = run_cycle(spark, config, db, lambda e: e.stream_once())

    mined = db.logminer_contents(after_snapshot, db.current_scn())
    unnamed = [r for r in mined if r.seg_owner == "UNKNOWN"]
    assert 0 < len(unnamed) < 20
    assert {r.table_name for r in unnamed} == {f"OBJ# {db.object_id('APP', 'ITEMS')}"}
    assert result.quarantined == len(unnamed)
    errors = spark.table(f"{config.staging_schema}._oracdc_errors").toArrow().to_pylist()
    assert sorted(e["scn"] for e in errors) == sorted(r.scn for r in unnamed)
    assert {(e["owner"], e["table_name"]) for e in errors} == {("APP", "ITEMS")}
    assert all("APP.ITEMS" in e["reason"] and "UNKNOWN" in e["reason"] for e in errors)
    landed = {r["id"] for r in staged_rows(spark, config, ITEMS) if r["_op"] == "c"}
    assert len(landed) == 20 - len(unnamed)


def test_the_object_id_filter_keeps_unnamed_rows_of_mined_tables_only() -> None:
    db = SimDatabase(unnamed_object_ratio=1.0)
    for table in TABLES:
        db.create_table(table)
    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": 1})
    txn.insert("APP", "LOGS", {"MSG": "x"})
    txn.commit()
    cursor = SimConnection(db).cursor()
    first = db.log_files()[0].first_change
    for log in db.log_files():
        cursor.callproc(queries.ADD_LOGFILE, keyword_parameters={"LogFileName": log.name})
    cursor.callproc(
        queries.START_LOGMNR,
        keyword_parameters={"startScn": first, "endScn": db.current_scn(), "Options": 16},
    )
    items_id = db.object_id("APP", "ITEMS")
    statement, binds = queries.logminer_contents_query(
        ["NOBODY"], [("NOBODY", "NOTHING")], [items_id]
    )
    cursor.execute(statement, binds, start_scn=first, end_scn=db.current_scn())
    names = {(row[8], row[9], row[-1]) for row in cursor.fetchall() if row[8] is not None}
    assert names == {("UNKNOWN", f"OBJ# {items_id}", items_id), ("APP", "ITEMS", items_id)}
