"""DDL that changes ROWIDs with no DML in the redo (ALTER TABLE … MOVE, SHRINK SPACE,
partition maintenance, FLASHBACK TABLE): the extractor snapshots the table again, and the
snapshot's reset marker retires every version keyed by an old ROWID."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from extractor.dictionary import ColumnDef
from extractor.parse.ddl_statements import is_row_moving
from extractor.pipeline.extractor import open_extractor
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import (
    ITEMS,
    LOGS,
    NOTES,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
    seed_database,
    staged_rows,
)


@pytest.mark.parametrize(
    "statement",
    [
        'alter table "APP"."NOTES" move;',
        "ALTER TABLE app.notes MOVE ONLINE TABLESPACE users",
        'alter table "APP"."LOGS" shrink space;',
        'alter table "APP"."my table" shrink space compact',
        "alter table app.sales split partition p1 at (100) into (partition a, partition b)",
        "ALTER TABLE APP.SALES MERGE PARTITIONS P1, P2 INTO PARTITION P12",
        "alter table app.sales exchange partition p1 with table app.stage",
        "alter table app.sales move subpartition s1",
        "alter table app.sales drop partition p1",
        "alter table app.sales truncate partition p1",
        "alter table app.sales coalesce partition",
        "flashback table app.notes to scn 123456",
        "alter table app.sales modify partition p1 shrink space",
        "ALTER TABLE APP.SALES MODIFY SUBPARTITION S1 SHRINK SPACE CASCADE",
        'alter table app.sales modify partition "p 1" coalesce subpartition',
        "alter table app.sales modify partition p1 add subpartition s9",  # hash: rows move
        "alter table app.sales modify partition by hash (id) partitions 4 online",
        # a column with a DEFAULT: the existing rows hold it with no redo
        """alter table "APP"."ITEMS" add ("COLOR" VARCHAR2(10) default 'red');""",
        "ALTER TABLE app.items ADD (c NUMBER DEFAULT 0 NOT NULL, d DATE)",
        "alter table app.items add c number default on null 5",
        "/* x */ alter table app.items add(c number default 1) ;",
        "alter table t add (a varchar2(5) /* don't */ default 'x')",
        "alter table t add (a varchar2(5) -- don't forget\n default 'x')",
        "alter table t add (a varchar2(9) check (a <> q'[it's]'), b varchar2(3) default 'x')",
        "alter table if exists t add (c number default 0)",
        "alter table t /* c */ add (c number default 0)",
        "alter table t modify (x number) add (c number default 0)",
        "alter table t add (c varchar2(10) default 'NULL')",
        "alter table t add (c number generated always as identity)",  # filled in too
        # ROW ARCHIVAL: every row gets ORA_ARCHIVE_STATE '0' with no redo (docs/types.md);
        # NO ROW ARCHIVAL drops it, and the rows' last values would stay
        'alter table "APP"."ORDERS" row archival;',
        "ALTER TABLE app.orders ROW ARCHIVAL",
        'alter table "APP"."ORDERS" no row archival;',
        "alter table app.orders\nno  row archival",
    ],
)
def test_row_moving_ddl_is_recognised(statement: str) -> None:
    assert is_row_moving(statement)


@pytest.mark.parametrize(
    "statement",
    [
        "alter table app.notes add (c number)",
        "alter table app.notes enable row movement",
        'alter table "APP"."MOVE" add ("X" number)',
        "truncate table app.notes",  # a reset marker of its own, no new snapshot needed
        "alter table app.notes modify (txt varchar2(200))",
        "alter table app.sales modify partition p1 add values (5)",
        "alter table app.sales modify partition p1 nologging",
        "alter table app.sales add partition p9 values less than (100)",
        "create table app.move (id number)",
        "alter table app.notes modify (txt default 'x')",  # future inserts only
        "alter table app.items add (c varchar2(20) check (c <> 'default x'))",
        'alter table app.items add ("DEFAULT" number)',
        "alter table app.items add partition p values (default)",
        "alter table app.items add constraint c check (x = 'default')",
        "alter table t add (c varchar2(10) default null)",  # the rows stay NULL
        "alter table t add (c varchar2(10) default '')",
        "alter table t add (c number /* default 0 */)",
        "alter table t add (c number) default collation binary",
        "alter table app.orders add (row_archival number)",
        None,
    ],
)
def test_other_ddl_is_not(statement: str | None) -> None:
    assert not is_row_moving(statement)


@pytest.mark.spark
def test_a_move_and_a_shrink_resnapshot_the_tables_and_the_replica_stays_exact(
    spark: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = make_config(tmp_path, "t_row_moving")
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    (freed,) = [r["ROWID"] for r in db.truth("APP", "LOGS", db.current_scn()) if r["N"] == 1]
    deleted = db.begin()
    deleted.delete("APP", "LOGS", freed)
    deleted.commit()
    moved_notes = db.move_rows("APP", "NOTES", "move")
    moved_logs = db.move_rows("APP", "LOGS", "shrink")
    assert not set(moved_notes) & set(moved_notes.values())  # a new segment: all new ROWIDs
    assert freed in moved_logs.values()  # compacted: a live row now has a deleted row's ROWID
    after = db.begin()  # changes by the new ROWIDs: partial images under MINIMAL logging
    after.update("APP", "NOTES", lambda r: r["ID"] == 2, {"FLAG": "N"})
    after.update("APP", "LOGS", lambda r: r["N"] == 3, {"MSG": "after the shrink"})
    after.insert("APP", "ITEMS", {"ID": 9, "NAME": "not moved", "QTY": 1})
    after.commit()

    with caplog.at_level(logging.WARNING):
        first = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert "APP.NOTES: alter table" in caplog.text and "snapshotted again" in caplog.text
    done = run_cycle(
        spark,
        config,
        db,
        lambda e: {n for n, s in e.checkpoint.tables.items() if s.status == "done"},
    )
    assert done == {"APP.ITEMS"}  # NOTES and LOGS wait for their new snapshot (pending)

    late = db.begin()
    late.update("APP", "NOTES", lambda r: r["ID"] == 3, {"TXT": "after the new snapshot"})
    late.commit()
    again = run_cycle(spark, config, db, lambda e: e.snapshot())
    assert set(again.tables) == {"APP.NOTES", "APP.LOGS"}
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert result.mined_to_scn >= first.mined_to_scn
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)
    stats = run_cycle(spark, config, db, lambda e: e.stats.table("APP.NOTES").resnapshots)
    assert stats == 1


@pytest.mark.spark
def test_every_snapshot_ends_with_a_reset_marker_at_its_scn(spark: Any, tmp_path: Path) -> None:
    config = make_config(tmp_path, "t_snapshot_marker")
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    scn = run_cycle(spark, config, db, lambda e: e.checkpoint.tables["APP.ITEMS"].snapshot_scn)
    for table in (ITEMS, NOTES, LOGS):
        rows = staged_rows(spark, config, table)
        markers = [r for r in rows if r["_op"] == "t"]
        assert len(markers) == 1, table.name
        marker = markers[0]
        assert (marker["_scn"], marker["_commit_scn"], marker["_redo_pos"]) == (scn, scn, 0)
        assert marker["_xid"] is None and marker["_row_id"] is None and marker["_present"] == []
        snapshot_batches = {r["_batch_id"] for r in rows if r["_op"] == "r"}
        assert marker["_batch_id"] > max(snapshot_batches)


@pytest.mark.spark
def test_a_column_added_with_a_default_is_snapshotted_again_with_it(
    spark: Any, tmp_path: Path
) -> None:
    """Oracle writes no redo for the rows that exist when a column with a DEFAULT is added
    (a metadata-only default): their replica rows get the value from a new snapshot."""
    config = make_config(tmp_path, "t_add_default")
    db, open_before = seed_database()
    open_before.rollback()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    db.add_column("APP", "ITEMS", ColumnDef("COLOR", 0, "VARCHAR2", 10), default="red")
    later = db.begin()
    later.insert("APP", "ITEMS", {"ID": 9, "NAME": "takes the default", "QTY": 1})
    later.update("APP", "ITEMS", lambda r: r["ID"] == 1, {"QTY": 7})
    later.commit()
    assert {r["COLOR"] for r in db.truth("APP", "ITEMS", db.current_scn())} == {"red"}
    run_cycle(spark, config, db, lambda e: e.stream_once())
    run_cycle(spark, config, db, lambda e: e.snapshot())
    result = run_cycle(spark, config, db, lambda e: e.stream_once())
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def test_a_table_sent_back_after_a_column_dropped_lands_the_column_null(tmp_path: Path) -> None:
    """Staging keeps a column dropped from the source (docs/landing.md); a new snapshot of the
    table in the same process, which reads the table without it, lands it NULL (it stopped
    with "snapshot batch lacks column qty", and again at every retry in that process)."""
    db, open_before = seed_database()
    open_before.rollback()
    config = make_config(tmp_path, "t_moved_after_drop")
    staging = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, open_source({"kind": "sim", "database": db}), None,
                        writer=staging) as extractor:  # fmt: skip
        extractor.snapshot()
        db.drop_column("APP", "ITEMS", "QTY")
        db.move_rows("APP", "ITEMS")
        assert extractor.stream_once().quarantined == 0
        assert extractor.snapshot().tables == ("APP.ITEMS",)
    table = db.table("APP", "ITEMS")
    staged = staging.staged_rows(table)
    again = max(row["_scn"] for row in staged if row["_op"] == "r")  # the second snapshot
    assert {row["qty"] for row in staged if row["_op"] == "r" and row["_scn"] == again} == {None}
    truth = truth_by_key(table, db.truth("APP", "ITEMS", db.current_scn()))
    assert differences(truth, consolidate(table, staged)) == []
