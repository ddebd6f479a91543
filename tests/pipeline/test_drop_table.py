"""DROP TABLE of a replicated table, and a new table under its name.

Oracle frees the name at once: a new table under it has a new OBJECT_ID. LogMiner's online
catalog names rows of the dropped table, mined after the drop, by the name the recycle bin
gave it (``BIN$…``), or ``UNKNOWN`` / ``OBJ# n`` once purged. The replica must end as the
source: the dropped table's rows retired at the drop, the new table's rows after it."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import SyncStepError
from extractor.parse.ddl_statements import creates_table, resets_table
from extractor.pipeline.extractor import Extractor, open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.source.replay.recorder import record_bundle
from extractor.state.checkpoint import CheckpointStore
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.mining_wire import ThreadMiningProcess, sim_opener
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import ITEMS, NOTES, make_config


@contextmanager
def _running(
    config: OracdcConfig, db: SimDatabase, staging: MemoryStagingWriter, **options: Any
) -> Iterator[Extractor]:
    """One process that runs several cycles (``extract_and_land`` each)."""
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging, **options) as extractor:
        yield extractor


def _cycle(
    config: OracdcConfig, db: SimDatabase, staging: MemoryStagingWriter, *, wire: bool = False
) -> None:
    """One cycle in a new process; ``wire``: mined on the mining process's side of its wire."""
    feed = ThreadMiningProcess(config, sim_opener(db)) if wire else None
    try:
        with _running(config, db, staging, feed=feed) as extractor:
            extract_and_land(extractor, {})
    finally:
        if feed is not None:
            feed.close()


def _items_with(
    tmp_path: Path, schema: str, *keys: int, with_notes: bool = False, **config: Any
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    """ITEMS with rows ``keys`` (and an empty NOTES ``with_notes``: a table that stays when
    ITEMS is dropped), a configuration and empty staging (nothing extracted yet)."""
    db = SimDatabase()
    db.create_table(ITEMS)
    if with_notes:
        db.create_table(NOTES)
    _insert(db, *keys)
    made = make_config(tmp_path, schema, **config)
    return db, made, MemoryStagingWriter(made.staging_schema)


def _insert(db: SimDatabase, *keys: int) -> None:
    txn = db.begin()
    for key in keys:
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"item {key}", "QTY": key})
    txn.commit()


def _replica_differences(db: SimDatabase, staging: MemoryStagingWriter) -> list[str]:
    table = db.table("APP", "ITEMS")
    replica = consolidate(table, staging.staged_rows(table))
    expected = truth_by_key(table, db.truth("APP", "ITEMS", db.current_scn()))
    return differences(expected, replica, limit=50)


def _reload_behind_lgwr_then_compare(
    db: SimDatabase, config: OracdcConfig, staging: MemoryStagingWriter, *, wire: bool
) -> None:
    """A reload (ITEMS_NEW created and filled, ITEMS dropped with PURGE, ITEMS_NEW renamed
    into ITEMS) in redo LGWR has not written yet, then a cycle: the replica must equal the
    source at the SCN the checkpoint says it is at; and once LGWR catches up, at the end."""
    written = db.current_scn()
    db.create_table(replace(ITEMS, name="ITEMS_NEW"))
    txn = db.begin()
    txn.insert("APP", "ITEMS_NEW", {"ID": 10, "NAME": "item 10", "QTY": 10})
    txn.commit()
    db.drop_table("APP", "ITEMS", purge=True)
    db.rename_table("APP", "ITEMS_NEW", "ITEMS")
    db.redo_write_lag_scns = db.current_scn() - written  # LGWR has written up to `written`
    _cycle(config, db, staging, wire=wire)

    with CheckpointStore(config.data_dir) as store:
        scn = store.current.replica_scn_of("APP.ITEMS")
    assert scn is not None
    expected = truth_by_key(ITEMS, db.truth("APP", "ITEMS", scn))
    assert differences(expected, consolidate(ITEMS, staging.staged_rows(ITEMS)), limit=20) == []
    db.redo_write_lag_scns = 0
    _cycle(config, db, staging, wire=wire)
    assert _replica_differences(db, staging) == []


def _started(tmp_path: Path) -> tuple[OracdcConfig, SimDatabase, MemoryStagingWriter]:
    """ITEMS snapshotted with keys 1-3, then key 4 streamed."""
    db, config, staging = _items_with(tmp_path, "drop_table", 1, 2, 3)
    _cycle(config, db, staging)
    _insert(db, 4)
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    return config, db, staging


def test_a_table_dropped_and_created_again_replicates_the_new_table(tmp_path: Path) -> None:
    config, db, staging = _started(tmp_path)
    _insert(db, 5)  # mined after the drop: LogMiner names it BIN$…
    db.drop_table("APP", "ITEMS")
    db.create_table(ITEMS)
    _insert(db, 10, 11)

    _cycle(config, db, staging)

    assert _replica_differences(db, staging) == []
    assert sorted(r["ID"] for r in db.truth("APP", "ITEMS", db.current_scn())) == [10, 11]


def _staged(staging: MemoryStagingWriter) -> list[tuple[str, int | None]]:
    return [
        (r["_op"], None if r["id"] is None else int(r["id"])) for r in staging.staged_rows(ITEMS)
    ]


def test_rows_mined_after_the_drop_land_under_the_table_in_a_running_extractor(
    tmp_path: Path,
) -> None:
    """The process that mined the table before its drop knows its old OBJECT_ID: the rows
    LogMiner names ``BIN$…`` reach the builder and land as the table's (history kept)."""
    db, config, staging = _items_with(tmp_path, "drop_table_running", 1, 2, 3)
    old_id = db.object_id("APP", "ITEMS")
    with _running(config, db, staging) as extractor:
        extract_and_land(extractor, {})
        _insert(db, 4)
        extract_and_land(extractor, {})
        before_drop = db.current_scn()
        _insert(db, 5, 6)
        db.drop_table("APP", "ITEMS")
        db.create_table(ITEMS)
        _insert(db, 10)
        extract_and_land(extractor, {})

    mined = db.logminer_contents(before_drop + 1, db.current_scn())
    inserts = [(r.table_name, r.data_obj) for r in mined if r.operation == "INSERT"]
    assert [name.startswith("BIN$") for name, _ in inserts] == [True, True, False]
    assert [data_obj for _, data_obj in inserts[:2]] == [old_id, old_id]
    # the new table's CREATE sends it back: snapshotted in the same cycle, its reset marker
    # retires the streamed insert of 10
    assert _staged(staging)[-6:] == [
        *[("c", 5), ("c", 6), ("t", None), ("c", 10)],
        *[("r", 10), ("t", None)],
    ]
    assert staging.quarantined_rows() == []
    assert _replica_differences(db, staging) == []


def test_rows_of_a_purged_table_are_retired_by_its_drop_not_quarantined(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """DROP TABLE … PURGE: rows written before the drop and mined after it are ``UNKNOWN`` /
    ``OBJ# n`` with no column names. The catalog no longer has object n, so they are let go
    instead of stopping the pipeline, and the table is snapshotted again."""
    db, config, staging = _items_with(tmp_path, "drop_table_purged", 1, 2, 3)
    old_id = db.object_id("APP", "ITEMS")
    with _running(config, db, staging) as extractor:
        extract_and_land(extractor, {})
        before_drop = db.current_scn()
        _insert(db, 5, 6)
        db.drop_table("APP", "ITEMS", purge=True)
        db.create_table(ITEMS)
        _insert(db, 10)
        with caplog.at_level(logging.WARNING):
            extract_and_land(extractor, {})

    mined = db.logminer_contents(before_drop + 1, db.current_scn())
    unnamed = [r for r in mined if r.table_name == f"OBJ# {old_id}"]
    assert [(r.operation, r.seg_owner) for r in unnamed] == [("INSERT", "UNKNOWN")] * 2
    assert staging.quarantined_rows() == []
    # snapshotted again in the same cycle (the drop's reset marker may not be mined yet):
    # its rows, then its reset marker, which retires everything landed before
    assert _staged(staging)[-2:] == [("r", 10), ("t", None)]
    assert _replica_differences(db, staging) == []
    retired = [r for r in caplog.records if "the table purged" in r.getMessage()]
    assert len(retired) == 1 and str(old_id) in retired[0].getMessage()


@pytest.mark.parametrize("wire", [False, True], ids=["inline", "mining-process"])
def test_rows_of_a_table_purged_before_its_drop_is_mined_snapshot_it_again(
    tmp_path: Path, wire: bool
) -> None:
    """A reload (copy, DROP … PURGE, rename into the name) after rows were written and
    before they were mined, with LGWR behind: the rows are ``OBJ# n`` with no column
    names, and the drop's reset marker is in redo not written yet, so mining ends before
    it. The replica must still equal the source at the SCN the checkpoint says it is at
    (found by the harness, seed 2811): the table is snapshotted again."""
    db, config, staging = _items_with(tmp_path, f"drop_table_purged_lag_{int(wire)}", 1, 2, 3)
    _cycle(config, db, staging, wire=wire)
    _insert(db, 5, 6)
    txn = db.begin()
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 1, {"QTY": 100})
    txn.commit()
    _reload_behind_lgwr_then_compare(db, config, staging, wire=wire)


@pytest.mark.parametrize("wire", [False, True], ids=["inline", "mining-process"])
def test_a_table_created_and_purged_before_its_create_is_mined_is_not_missed(
    tmp_path: Path, wire: bool
) -> None:
    """ITEMS dropped and created again, written, then reloaded (copy, DROP … PURGE, rename
    into the name) before any of it is mined, with LGWR behind the reload. The catalog read
    after the CREATE already shows the copy, so the created table's rows are ``OBJ# n`` of
    an object the extractor never knew, and the DROP that would retire them is not minable
    yet. The replica must still equal the source at the SCN the checkpoint says it is at
    (found by the harness, seed 1880): a table created under a replicated name is
    snapshotted again."""
    db, config, staging = _items_with(tmp_path, f"created_and_purged_{int(wire)}", 1, 2, 3)
    _cycle(config, db, staging, wire=wire)
    db.drop_table("APP", "ITEMS")
    db.create_table(ITEMS)
    _insert(db, 7, 8)
    _reload_behind_lgwr_then_compare(db, config, staging, wire=wire)


def test_a_replay_bundle_replicates_a_table_created_again_from_its_create(
    tmp_path: Path,
) -> None:
    """A replay bundle holds each table at one SCN and cannot snapshot it again: the table
    created again under the name streams from its CREATE, by the ids the bundle's dictionary
    has (a database source snapshots it instead)."""
    db = SimDatabase()
    db.create_table(ITEMS)
    first = db.current_scn()
    _insert(db, 1, 2, 3)
    snapshot_scns = {("APP", "ITEMS"): db.current_scn()}
    _insert(db, 4)
    bundle = tmp_path / "bundle"
    config = make_config(
        tmp_path, "replay_created_again", source={"kind": "replay", "path": str(bundle)}
    )
    staging = MemoryStagingWriter(config.staging_schema)
    for step in ("snapshot", "created again"):
        if step == "created again":  # the old table's snapshot cannot be read any more
            db.drop_table("APP", "ITEMS")
            db.create_table(ITEMS)
            _insert(db, 10, 11)
            snapshot_scns = {}
        record_bundle(db, bundle, snapshot_scns=snapshot_scns, since_scn=first)
        with open_extractor(config, open_source(config.source), None, writer=staging) as ex:
            extract_and_land(ex, {})

    assert _staged(staging) == [
        *[("r", 1), ("r", 2), ("r", 3), ("t", None), ("c", 4)],
        *[("t", None), ("c", 10), ("c", 11)],
    ]
    assert _replica_differences(db, staging) == []


@pytest.mark.parametrize("wire", [False, True], ids=["inline", "mining-process"])
def test_writes_to_a_table_renamed_away_do_not_snapshot_the_name_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, wire: bool
) -> None:
    """A swap (ITEMS renamed to ITEMS_OLD, a new table renamed into ITEMS) mined behind
    LGWR, every row with its DATA_OBJ#: ITEMS_OLD goes on being written under ITEMS's old
    object. Its rows are let go, and ITEMS is not snapshotted again for them (found by a
    review: it was, at every pass)."""
    db, config, staging = _items_with(
        tmp_path, f"drop_table_swap_{int(wire)}", 1, 2, 3, tables=["APP.ITEMS"]
    )
    db.unnamed_object_ratio = 1e-9  # DATA_OBJ# on every DML row, as Oracle gives it
    feed = ThreadMiningProcess(config, sim_opener(db)) if wire else None
    snapshots_again: list[int] = []
    with caplog.at_level(logging.WARNING), _running(config, db, staging, feed=feed) as extractor:
        extract_and_land(extractor, {})
        _insert(db, 5, 6)
        written = db.current_scn()
        db.create_table(replace(ITEMS, name="ITEMS_NEW"))
        db.rename_table("APP", "ITEMS", "ITEMS_OLD")
        db.rename_table("APP", "ITEMS_NEW", "ITEMS")
        db.redo_write_lag_scns = db.current_scn() - written
        extract_and_land(extractor, {})
        db.redo_write_lag_scns = 0
        for key in range(100, 103):
            txn = db.begin()
            txn.insert("APP", "ITEMS_OLD", {"ID": key, "NAME": "old", "QTY": 1})
            txn.commit()
            extract_and_land(extractor, {})
            snapshots_again.append(caplog.text.count("snapshotted again"))
    if feed is not None:
        feed.close()
    assert len(set(snapshots_again)) == 1, snapshots_again
    assert _replica_differences(db, staging) == []


def test_a_dropped_table_that_stays_dropped_ends_with_an_empty_replica(tmp_path: Path) -> None:
    # NOTES stays: the configuration still matches a table
    db, config, staging = _items_with(tmp_path, "drop_table_for_good", 1, 2, with_notes=True)
    with _running(config, db, staging) as extractor:
        extract_and_land(extractor, {})
        _insert(db, 3)
        db.drop_table("APP", "ITEMS")
        extract_and_land(extractor, {})  # mines the drop
        txn = db.begin()
        txn.insert("APP", "NOTES", {"ID": 1, "TXT": "after the drop"})
        txn.commit()
        extract_and_land(extractor, {})  # ITEMS's OBJECT_ID is read again: it has none
    _cycle(config, db, staging)  # a new process: the table is gone from the source

    assert consolidate(ITEMS, staging.staged_rows(ITEMS)) == {}
    assert _staged(staging)[-1] == ("t", None)
    assert staging.quarantined_rows() == []


def test_unnamed_rows_of_the_new_table_are_mined_by_its_new_object_id(tmp_path: Path) -> None:
    """A running extractor reads a table's OBJECT_ID again after a DDL row of it: rows of the
    table created again under the name that LogMiner cannot name reach the builder (and are
    quarantined, as every such row is) instead of being filtered out."""
    db = SimDatabase(unnamed_object_ratio=0.3)
    db.create_table(ITEMS)
    _insert(db, 1)
    config = make_config(tmp_path, "drop_table_new_id", error_policy="warn")
    staging = MemoryStagingWriter(config.staging_schema)
    with _running(config, db, staging) as extractor:
        extract_and_land(extractor, {})
        db.drop_table("APP", "ITEMS")
        db.create_table(ITEMS)
        extract_and_land(extractor, {})  # mines the DROP and the CREATE
        after_create = db.current_scn()
        for key in range(100, 120):
            _insert(db, key)
        extract_and_land(extractor, {})

    new_id = db.object_id("APP", "ITEMS")
    mined = db.logminer_contents(after_create + 1, db.current_scn())
    unnamed = [r for r in mined if r.table_name == f"OBJ# {new_id}"]
    assert 0 < len(unnamed) < 20
    quarantined = staging.quarantined_rows()
    assert sorted(q["scn"] for q in quarantined) == sorted(r.scn for r in unnamed)
    landed = {key for op, key in _staged(staging) if op == "c"}
    assert len(landed & set(range(100, 120))) == 20 - len(unnamed)


def test_a_drop_mined_by_a_process_that_never_described_the_table_still_empties_it(
    tmp_path: Path,
) -> None:
    """A new process lists only the tables that exist: the dropped one's dictionary is not
    read, and its reset marker lands on the staging table's own columns."""
    db, config, staging = _items_with(tmp_path, "drop_table_new_process", 1, 2, with_notes=True)
    _cycle(config, db, staging)
    _insert(db, 3)  # BIN$… when mined; this process does not know the old OBJECT_ID
    db.drop_table("APP", "ITEMS")
    _cycle(config, db, staging)

    assert consolidate(ITEMS, staging.staged_rows(ITEMS)) == {}
    assert _staged(staging)[-1] == ("t", None)
    assert staging.quarantined_rows() == []


def test_the_source_mines_on_when_a_table_of_its_list_was_dropped() -> None:
    """A window after one with a DDL row of a listed table reads that table's OBJECT_ID
    again; a dropped table has none, and mining goes on. Its old id is no longer mined:
    every row of the table preceded its DROP, in a window already mined."""
    db = SimDatabase()
    db.create_table(ITEMS)
    db.create_table(NOTES)
    old_id = db.object_id("APP", "ITEMS")
    tables = [db.table("APP", "ITEMS"), db.table("APP", "NOTES")]
    source = open_source({"kind": "sim", "database": db})
    with source.mine(db.current_scn(), db.current_scn(), tables) as rows:
        assert [r.operation for r in rows] == ["START", "DDL", "COMMIT"]  # CREATE NOTES
    start = db.current_scn() + 1
    _insert(db, 1)
    db.drop_table("APP", "ITEMS")
    with source.mine(start, db.current_scn(), tables) as rows:
        first = [(r.operation, r.table_name) for r in rows if r.table_name is not None]
    middle = db.current_scn()
    txn = db.begin()
    txn.insert("APP", "NOTES", {"ID": 1, "TXT": "after the drop"})
    txn.commit()
    with source.mine(middle + 1, db.current_scn(), tables) as rows:
        second = [(r.operation, r.table_name) for r in rows if r.table_name is not None]

    assert first[0][0] == "INSERT" and first[0][1].startswith("BIN$")
    assert first[1:] == [("DDL", "ITEMS")]
    assert second == [("INSERT", "NOTES")]
    assert source.table_for_object(old_id) is None


@pytest.mark.parametrize(
    ("statement", "resets"),
    [
        ('drop table "APP"."ITEMS" AS "BIN$um6xJvbgoc3rPVqv8YGurg==$0";', True),
        ("DROP TABLE app.items PURGE", True),
        ("  drop  table items cascade constraints", True),
        ('truncate table "APP"."ITEMS";', True),
        ('/* nightly reload */ DROP TABLE "APP"."ITEMS" PURGE', True),
        ('-- job 42\n  drop table"APP"."ITEMS"', True),
        ("drop tables", False),
        ("drop tablespace users including contents", False),
        ("drop index app.items_pk", False),
        ("alter table app.items drop partition p1", False),
        ("alter table app.items drop column qty", False),
        (None, False),
    ],
)
def test_drop_table_and_truncate_reset_a_table(statement: str | None, resets: bool) -> None:
    assert resets_table(statement) is resets


@pytest.mark.parametrize(
    ("statement", "creates"),
    [
        ('create table "APP"."ITEMS" ("ID" NUMBER(10,0) NOT NULL);', True),
        ("CREATE TABLE app.items AS SELECT * FROM app.items_copy", True),
        ('/* reload */ create global temporary table"APP"."ITEMS" (id number)', True),
        ("create private temporary table ora$ptt_items (id number)", True),
        ("create blockchain table app.ledger (id number) no drop until 1 days idle", True),
        ("create /* staging */ table app.items (id number)", True),
        ("create table if not exists app.items (id number)", True),
        ("create index app.items_ix on app.items (id) /* not a table */", False),
        ("create index app.items_pk on app.items (id)", False),
        ("create or replace view app.items_v as select * from app.items", False),
        ("create tablespace users datafile 'users01.dbf'", False),
        ("create tables", False),
        (None, False),
    ],
)
def test_create_table_is_recognised(statement: str | None, creates: bool) -> None:
    assert creates_table(statement) is creates


@pytest.mark.parametrize("wire", [False, True], ids=["inline", "mining_process"])
def test_a_new_process_mines_the_dropped_tables_rows_by_the_ids_the_checkpoint_keeps(
    tmp_path: Path, wire: bool
) -> None:
    """Every cycle a new process (as under cron): the checkpoint keeps ITEMS's OBJECT_ID from
    its snapshot, so the process that lists the new ITEMS still mines the old one's last
    rows (``BIN$…``): the staging history has them. Once the DROP is mined, the old id is
    no longer kept."""
    config, db, staging = _started(tmp_path)
    _insert(db, 5)
    db.drop_table("APP", "ITEMS")
    db.create_table(ITEMS)
    _insert(db, 10)

    _cycle(config, db, staging, wire=wire)

    assert _staged(staging)[-5:] == [("c", 5), ("t", None), ("c", 10), ("r", 10), ("t", None)]
    kept = json.loads((config.data_dir / "checkpoint.json").read_text())
    assert kept["tables"]["APP.ITEMS"]["object_ids"] == [db.object_id("APP", "ITEMS")]


def test_a_table_named_in_tables_may_be_dropped_and_created_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table named without wildcards that was replicated is left out while it does not
    exist (said once), instead of stopping every cycle; created again, it replicates."""
    db, config, staging = _items_with(
        tmp_path, "drop_named_table", 1, with_notes=True, tables=["APP.ITEMS", "APP.NOTES"]
    )
    _cycle(config, db, staging)
    _insert(db, 2)
    db.drop_table("APP", "ITEMS")
    with caplog.at_level(logging.WARNING):
        _cycle(config, db, staging)
        _cycle(config, db, staging)
    assert consolidate(ITEMS, staging.staged_rows(ITEMS)) == {}
    assert any("APP.ITEMS is named in tables" in r.getMessage() for r in caplog.records)

    db.create_table(ITEMS)
    _insert(db, 10)
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    assert [key for op, key in _staged(staging) if op == "c"][-1] == 10


def test_a_named_table_that_never_existed_still_stops_the_first_snapshot(
    tmp_path: Path,
) -> None:
    db = SimDatabase()
    db.create_table(ITEMS)
    config = make_config(tmp_path, "misspelt_table", tables=["APP.ITEMS", "APP.ITESM"])
    staging = MemoryStagingWriter(config.staging_schema)
    with pytest.raises(SyncStepError, match=r"APP\.ITESM does not exist or is not visible"):
        _cycle(config, db, staging)


OTHER_T = TableDef("OTHER", "T", ITEMS.columns, ITEMS.primary_key, "ALL")


def test_a_dropped_table_of_an_owner_with_no_other_table_is_still_emptied(
    tmp_path: Path,
) -> None:
    """Once OTHER.T is dropped no listed table is OTHER's: its DROP and CREATE rows are still
    mined (DDL of every owner with a table replicated before), so the replica does not keep
    the dropped rows."""
    db = SimDatabase()
    db.create_table(NOTES)
    db.create_table(OTHER_T)
    txn = db.begin()
    for key in (1, 2):
        txn.insert("OTHER", "T", {"ID": key, "NAME": f"t {key}"})
    txn.commit()
    config = make_config(tmp_path, "drop_other_owner", tables=["APP.NOTES", "OTHER.T"])
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)
    db.drop_table("OTHER", "T")
    _cycle(config, db, staging)
    assert consolidate(OTHER_T, staging.staged_rows(OTHER_T)) == {}

    db.create_table(OTHER_T)
    txn = db.begin()
    txn.insert("OTHER", "T", {"ID": 10, "NAME": "t 10"})
    txn.commit()
    _cycle(config, db, staging)
    assert [int(key[0]) for key in consolidate(OTHER_T, staging.staged_rows(OTHER_T))] == [10]


def test_a_table_dropped_while_waiting_for_a_new_snapshot_is_emptied(tmp_path: Path) -> None:
    """A MOVE sends ITEMS back to be snapshotted; the process dies before the snapshot and
    ITEMS is dropped: the snapshot that cannot be taken is an empty one (a reset marker at
    the current SCN), instead of a replica left with the old rows."""
    db, config, staging = _items_with(tmp_path, "drop_pending", 1, 2, with_notes=True)
    _cycle(config, db, staging)
    db.move_rows("APP", "ITEMS")

    def die_after_the_checkpoint(at: str) -> None:
        if at == "stream:after_checkpoint":
            raise RuntimeError("the process died")

    with (
        pytest.raises(RuntimeError, match="died"),
        _running(config, db, staging, fault=die_after_the_checkpoint) as dying,
    ):
        extract_and_land(dying, {})
    pending = json.loads((config.data_dir / "checkpoint.json").read_text())
    assert pending["tables"]["APP.ITEMS"]["status"] == "pending"
    db.drop_table("APP", "ITEMS")
    with _running(config, db, staging) as extractor:
        assert extractor.snapshot_pending()  # so that `oracdc stream` takes it too

    _cycle(config, db, staging)

    assert consolidate(ITEMS, staging.staged_rows(ITEMS)) == {}
    done = json.loads((config.data_dir / "checkpoint.json").read_text())
    assert done["tables"]["APP.ITEMS"]["status"] == "done"
