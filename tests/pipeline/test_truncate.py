"""TRUNCATE TABLE on the simulator: the extractor lands a table reset marker (``_op = 't'``)
at the DDL's commit position, so the consolidated staging equals the source again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.logminer_row import OperationCode
from extractor.redo_position import RedoPosition
from extractor.sim.database import SimDatabase
from tests.pipeline.reference_replica import consolidate
from tests.pipeline.test_extract_to_staging import (
    ITEMS,
    NOTES,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
    seed_database,
    staged_rows,
)

pytestmark = pytest.mark.spark


def truncate_row(db: SimDatabase, scn: int) -> Any:
    """The DDL row the simulator wrote for the TRUNCATE at ``scn``."""
    rows = db.logminer_contents(scn, scn)
    (ddl,) = [r for r in rows if r.operation_code == OperationCode.DDL]
    return ddl


def test_a_truncate_lands_a_reset_marker_at_the_ddl_position(spark: Any, tmp_path: Path) -> None:
    config = make_config(tmp_path, "t_extract_truncate")
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    before = db.begin()
    before.insert("APP", "ITEMS", {"ID": 10, "NAME": "gone by the truncate"})
    before.commit()
    truncated_at = db.truncate_table("APP", "ITEMS")
    after = db.begin()
    after.insert("APP", "ITEMS", {"ID": 2, "NAME": "after the truncate", "QTY": 1})
    after.commit()

    result = run_cycle(spark, config, db, lambda e: e.stream_once())

    ddl = truncate_row(db, truncated_at)
    assert ddl.sql_redo.lower().startswith("truncate table")
    markers = [r for r in staged_rows(spark, config, ITEMS) if r["_op"] == "t" and r["_xid"]]
    assert len(markers) == 1
    marker = markers[0]
    assert (marker["_scn"], marker["_commit_scn"]) == (truncated_at, truncated_at)
    assert marker["_redo_pos"] == RedoPosition.of(ddl.rs_id, ddl.ssn).packed()
    assert (marker["_rs_id"], marker["_ssn"], marker["_xid"]) == (ddl.rs_id.strip(), 0, ddl.xid)
    assert marker["_present"] == [] and marker["_row_id"] is None
    assert all(marker[c.name.lower()] is None for c in ITEMS.columns)
    assert marker["_commit_ts"] is not None
    assert [r["ID"] for r in db.truth("APP", "ITEMS", result.mined_to_scn)] == [2]
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def test_a_truncate_before_the_snapshot_lands_no_marker(spark: Any, tmp_path: Path) -> None:
    config = make_config(tmp_path, "t_extract_truncate_covered")
    db, open_before = seed_database()
    open_before.rollback()
    db.truncate_table("APP", "NOTES")
    run_cycle(spark, config, db, lambda e: e.snapshot())
    txn = db.begin()
    txn.insert("APP", "NOTES", {"ID": 7, "TXT": "after the snapshot"})
    txn.commit()
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)
    # The snapshot's own reset marker has no transaction; a TRUNCATE's has the DDL's.
    assert not [r for r in staged_rows(spark, config, NOTES) if r["_op"] == "t" and r["_xid"]]


def test_a_drop_table_lands_a_reset_marker_on_the_staging_tables_columns(
    spark: Any, tmp_path: Path
) -> None:
    """DROP TABLE resets like TRUNCATE. Mined by a process that never described the table
    (it is gone from the source), the marker is written with the staging table's columns,
    every value NULL (tests/pipeline/test_drop_table.py has the cases in memory)."""
    config = make_config(tmp_path, "t_extract_drop_table")
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    dropped_at = db.drop_table("APP", "ITEMS")

    run_cycle(spark, config, db, lambda e: e.stream_once())

    markers = [r for r in staged_rows(spark, config, ITEMS) if r["_op"] == "t" and r["_xid"]]
    assert [(m["_scn"], m["_present"], m["id"], m["name"]) for m in markers] == [
        (dropped_at, [], None, None)
    ]
    assert consolidate(ITEMS, staged_rows(spark, config, ITEMS)) == {}
    assert_staging_matches_truth(spark, config, db, db.current_scn(), (NOTES,))
