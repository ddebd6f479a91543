"""A table whose replica key changes (docs/keys.md, "When the key changes"): the versions
landed before are keyed the old way (under MINIMAL logging an update carries no primary
key), so the table is snapshotted again, whether the DDL row is mined by the process or the
change was made before the process read the dictionary."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import QuarantineError
from extractor.keys import consolidation_key
from extractor.parse.ddl_statements import changes_supplemental_logging
from extractor.pipeline.extractor import open_extractor
from extractor.sim.database import SimDatabase
from extractor.sim.table_catalog import demo_tables
from extractor.source.factory import open_source
from extractor.state.checkpoint import CheckpointStore, TableSnapshotState
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import ITEMS, make_config

ACCOUNTS = demo_tables()[3]  # primary key ACC_NO, MINIMAL logging: keyed by ROWID
CUSTOMERS = demo_tables()[0]


def _update_codes(db: SimDatabase, code: str) -> None:
    txn = db.begin()
    txn.update("SIM", "ACCOUNTS", lambda r: True, {"CODE": code})
    txn.commit()


def _replicated(
    tmp_path: Path, *others: TableDef, **settings: Any
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    db = SimDatabase()
    db.create_table(ACCOUNTS)
    for other in others:
        db.create_table(other)
    txn = db.begin()
    for number in range(1, 6):
        txn.insert("SIM", "ACCOUNTS", {"ACC_NO": f"A{number}", "HOLDER": f"h{number}"})
    txn.commit()
    config = make_config(tmp_path, "t_key_change", tables=["SIM.*"], **settings)
    staging = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        _update_codes(db, "a")  # a partial image: CODE only, no ACC_NO
        extractor.stream_once()
        assert extractor.checkpoint.tables["SIM.ACCOUNTS"].replica_key == ("_row_id",)
    return db, config, staging


def _differences(db: SimDatabase, staging: MemoryStagingWriter, owner: str, name: str) -> list[str]:
    table = db.table(owner, name)
    replica = consolidate(table, staging.staged_rows(table))
    return differences(truth_by_key(table, db.truth(owner, name, db.current_scn())), replica)


def _source(db: SimDatabase) -> object:
    return open_source({"kind": "sim", "database": db})


def _replica_differences(db: SimDatabase, staging: MemoryStagingWriter) -> list[str]:
    return _differences(db, staging, "SIM", "ACCOUNTS")


def test_a_key_change_mined_by_the_process_sends_the_table_back(tmp_path: Path) -> None:
    db, config, staging = _replicated(tmp_path)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.stream_once()  # the process reads the dictionary before the change
        db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
        _update_codes(db, "b")
        extractor.stream_once()
        assert extractor.snapshot_pending()
        assert extractor.snapshot().tables == ("SIM.ACCOUNTS",)
        assert extractor.checkpoint.tables["SIM.ACCOUNTS"].replica_key == ("acc_no",)
    assert consolidation_key(db.table("SIM", "ACCOUNTS")) == ("acc_no",)
    assert _replica_differences(db, staging) == []


def test_a_key_changed_before_the_process_started_sends_the_table_back(tmp_path: Path) -> None:
    db, config, staging = _replicated(tmp_path)
    db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
    _update_codes(db, "b")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot_pending()  # what `oracdc stream` asks before it streams
        assert extractor.snapshot().tables == ("SIM.ACCOUNTS",)
        extractor.stream_once()
        assert extractor.checkpoint.tables["SIM.ACCOUNTS"].replica_key == ("acc_no",)
    assert _replica_differences(db, staging) == []
    # the partial images landed before the change have no key: only the new snapshot's
    # reset marker, ordered after them, keeps them out of the replica
    keyless = [r for r in staging.staged_rows(db.table("SIM", "ACCOUNTS")) if r["acc_no"] is None]
    assert sorted(r["_op"] for r in keyless) == ["t", "t"] + ["u"] * 5


def test_changes_without_the_new_key_before_the_change_are_covered_not_quarantined(
    tmp_path: Path,
) -> None:
    """Updates without ACC_NO committed while the process was down, before the change of
    logging: the new snapshot covers them (error_policy fail would stop at each restart).
    Another table keeps mining where the checkpoint is, before them."""
    db, config, staging = _replicated(tmp_path, CUSTOMERS)
    _update_codes(db, "b")  # MINIMAL: no ACC_NO, not mined yet
    changed_at = db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot().tables == ("SIM.ACCOUNTS",)
        _update_codes(db, "c")
        extractor.stream_once()
        runner = extractor._stream  # what the window asks of each change
        assert runner.snapshot_covers("SIM.ACCOUNTS", changed_at)
        assert not runner.snapshot_covers("SIM.ACCOUNTS", db.current_scn())
        assert not runner.snapshot_covers("SIM.CUSTOMERS", changed_at)
        assert not runner.snapshot_covers("SIM.UNKNOWN_TABLE", changed_at)  # still reported
        db.set_supplemental_logging("SIM", "ACCOUNTS", "MINIMAL")
        extractor.stream_once()  # sends it back: its snapshot to come covers every change
        assert runner.snapshot_covers("SIM.ACCOUNTS", db.current_scn())
        extractor.snapshot()
    assert staging.quarantined_rows() == []
    assert _replica_differences(db, staging) == []


def test_a_table_snapshotted_by_an_older_oracdc_gets_its_key_recorded(tmp_path: Path) -> None:
    """Its checkpoint holds no key: whether it changed before is not known (docs/keys.md);
    the key now is recorded, and a later change is seen."""
    db, config, staging = _replicated(tmp_path)
    with CheckpointStore(config.data_dir) as store:
        state = store.current.tables["SIM.ACCOUNTS"]
        store.save(store.current.with_table("SIM.ACCOUNTS", _without_key(state)))
    db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot().tables == ()
        # its key is recorded now: a later change is seen
        assert extractor.checkpoint.tables["SIM.ACCOUNTS"].replica_key == ("acc_no",)
    db.set_supplemental_logging("SIM", "ACCOUNTS", "MINIMAL")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot().tables == ("SIM.ACCOUNTS",)


def test_logging_dropped_and_added_again_sends_the_table_back(tmp_path: Path) -> None:
    """The key is the same before and after, but the updates in between carry no key."""
    db = SimDatabase()
    db.create_table(ITEMS)  # primary key ID, ALL logging
    txn = db.begin()
    for key in range(1, 4):
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"n{key}", "QTY": key})
    txn.commit()
    config = make_config(tmp_path, "t_logging_toggle")
    staging = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
    db.set_supplemental_logging("APP", "ITEMS", "MINIMAL")
    txn = db.begin()
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"QTY": 20})  # no ID in the image
    txn.commit()
    db.set_supplemental_logging("APP", "ITEMS", "ALL")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot().tables == ()  # the key is the same as at the snapshot
        extractor.stream_once()
        assert extractor.snapshot_pending()
        extractor.snapshot()
    assert _differences(db, staging, "APP", "ITEMS") == []


def test_an_initial_only_table_is_not_read_again_when_its_key_changes(tmp_path: Path) -> None:
    """Its staging holds snapshot rows only: full images, which dbt builds under any key."""
    db, config, staging = _replicated(tmp_path, snapshot_mode="initial_only")
    db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert not extractor.snapshot_pending()
        assert extractor.snapshot().tables == ()


@pytest.mark.parametrize(
    ("statement", "changes"),
    [
        ('alter table "APP"."ITEMS" add supplemental log data (ALL) columns;', True),
        ("ALTER TABLE app.items DROP SUPPLEMENTAL LOG DATA (PRIMARY KEY) COLUMNS", True),
        ("alter table app.items add supplemental log group g1 (id, name) always", True),
        ("/* x */ alter table app.items drop supplemental log group g1", True),
        ("alter table app.items add (supplemental number)", False),
        ("alter database add supplemental log data (all) columns", False),
        ("alter table app.items add constraint pk primary key (id)", False),
    ],
)
def test_supplemental_logging_ddl_is_recognised(statement: str, changes: bool) -> None:
    assert changes_supplemental_logging(statement) is changes


def _without_key(state: TableSnapshotState) -> TableSnapshotState:
    return TableSnapshotState(**{**state.__dict__, "replica_key": ()})


def _items_keyed_by_id_through_the_database(
    tmp_path: Path,
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    """APP.ITEMS at MINIMAL logging of its own, ALL for the database: keyed by ID."""
    db = SimDatabase()
    db.set_database_supplemental_logging("ALL")
    db.create_table(replace(ITEMS, supplemental_logging="MINIMAL"))
    txn = db.begin()
    for key in range(1, 4):
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"n{key}", "QTY": key})
    txn.commit()
    config = make_config(tmp_path, "t_database_logging", error_policy="fail")
    return db, config, MemoryStagingWriter(config.staging_schema)


def _update_without_the_key(db: SimDatabase) -> None:
    txn = db.begin()
    txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"QTY": 20})  # MINIMAL: no ID
    txn.insert("APP", "ITEMS", {"ID": 4, "NAME": "n4", "QTY": 4})
    txn.commit()


def test_logging_lowered_for_the_database_sends_the_table_back_at_once(tmp_path: Path) -> None:
    """No DDL row of the table: the running process meets an update without the key.
    Landed, it would make a row with a NULL key; the table is read again, its key is ROWID
    now, and its new snapshot covers the update (nothing quarantined, the process goes on)."""
    db, config, staging = _items_keyed_by_id_through_the_database(tmp_path)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        assert extractor.checkpoint.tables["APP.ITEMS"].replica_key == ("id",)
        db.set_database_supplemental_logging("MINIMAL")
        _update_without_the_key(db)
        assert extractor.stream_once().quarantined == 0
        assert extractor.snapshot_pending()
        assert extractor.snapshot().tables == ("APP.ITEMS",)
        assert extractor.checkpoint.tables["APP.ITEMS"].replica_key == ("_row_id",)
        txn = db.begin()
        txn.update("APP", "ITEMS", lambda r: r["ID"] == 3, {"QTY": 30})
        txn.commit()
        assert extractor.stream_once().quarantined == 0
        assert not extractor.snapshot_pending()
    assert staging.quarantined_rows() == []
    assert _differences(db, staging, "APP", "ITEMS") == []


def test_a_key_update_without_the_whole_row_sends_the_table_back(tmp_path: Path) -> None:
    """Lowered to PRIMARY KEY for the database: an update of ID carries the key and the
    changed column only, so the new key's row cannot be built (found by the harness: it
    landed with NULL columns). The table is sent back; its new snapshot has the row."""
    db, config, staging = _items_keyed_by_id_through_the_database(tmp_path)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        db.set_database_supplemental_logging("PRIMARY KEY")
        txn = db.begin()
        txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"ID": 20})
        txn.commit()
        assert extractor.stream_once().quarantined == 0
        assert extractor.snapshot().tables == ("APP.ITEMS",)
    assert staging.quarantined_rows() == []
    assert _differences(db, staging, "APP", "ITEMS") == []


def test_logging_lowered_and_raised_again_sends_the_table_back_too(tmp_path: Path) -> None:
    """Raised again before the process reads the table: its key is ID still, and the update
    without ID is covered by the table's new snapshot all the same (never landed with a
    NULL key, nothing quarantined)."""
    db, config, staging = _items_keyed_by_id_through_the_database(tmp_path)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        db.set_database_supplemental_logging("MINIMAL")
        _update_without_the_key(db)
        db.set_database_supplemental_logging("ALL")
        assert extractor.stream_once().quarantined == 0
        assert extractor.snapshot().tables == ("APP.ITEMS",)
        assert extractor.checkpoint.tables["APP.ITEMS"].replica_key == ("id",)
    assert staging.quarantined_rows() == []
    staged = staging.staged_rows(db.table("APP", "ITEMS"))
    assert [r for r in staged if r["id"] is None and r["_op"] != "t"] == []
    assert _differences(db, staging, "APP", "ITEMS") == []


def test_a_second_change_logged_lower_under_the_same_key_is_reported(tmp_path: Path) -> None:
    """Sent back once for it (two such changes in one window: one snapshot), the table meets
    another after its new snapshot while the dictionary still gives the same key:
    snapshotting again at every window might not end it, so the change is quarantined under
    error_policy (fail: the process stops)."""
    db, config, staging = _items_keyed_by_id_through_the_database(tmp_path)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        for _ in range(2):
            db.set_database_supplemental_logging("MINIMAL")
            _update_without_the_key(db)
            db.set_database_supplemental_logging("ALL")
        assert extractor.stream_once().quarantined == 0
        assert extractor.snapshot().tables == ("APP.ITEMS",)
        db.set_database_supplemental_logging("MINIMAL")
        txn = db.begin()
        txn.update("APP", "ITEMS", lambda r: r["ID"] == 3, {"QTY": 30})
        txn.commit()
        db.set_database_supplemental_logging("ALL")
        with pytest.raises(QuarantineError, match="a second such change under the same key"):
            extractor.stream_once()
    staged = staging.staged_rows(db.table("APP", "ITEMS"))
    assert [r for r in staged if r["id"] is None and r["_op"] != "t"] == []


def test_the_table_is_read_again_once_per_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lowered and raised again: every change between lacks the key that the table read
    again still has; one read (and one snapshot) covers them all."""
    db, config, staging = _items_keyed_by_id_through_the_database(tmp_path)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        db.set_database_supplemental_logging("MINIMAL")
        for _ in range(3):
            txn = db.begin()
            txn.update("APP", "ITEMS", lambda r: True, {"QTY": 7})  # 3 rows without ID
            txn.commit()
        db.set_database_supplemental_logging("ALL")
        refreshes: list[str] = []
        lookup = extractor.registry.lookup

        def counted(owner: str, table: str, refresh: bool = False) -> TableDef | None:
            if refresh:
                refreshes.append(f"{owner}.{table}")
            return lookup(owner, table, refresh)

        monkeypatch.setattr(extractor.registry, "lookup", counted)
        assert extractor.stream_once().quarantined == 0
    assert refreshes == ["APP.ITEMS"]


def test_a_window_failed_before_its_checkpoint_sends_the_table_back_when_mined_again(
    tmp_path: Path,
) -> None:
    """The window that sent the table back for a change logged lower fails before its
    checkpoint (the pending snapshot is not saved); mined again by the same process, the
    change sends it back again instead of being reported as "a second such change": the
    first send-back never took effect."""
    db, config, staging = _items_keyed_by_id_through_the_database(tmp_path)
    failures = ["stream:before_checkpoint"]

    def fail_once(point: str) -> None:
        if failures and point == failures[0]:
            failures.pop()
            raise RuntimeError("the window fails before its checkpoint")

    with open_extractor(config, _source(db), None, writer=staging, fault=fail_once) as ex:
        ex.snapshot()
        db.set_database_supplemental_logging("MINIMAL")
        _update_without_the_key(db)
        db.set_database_supplemental_logging("ALL")
        with pytest.raises(RuntimeError, match="before its checkpoint"):
            ex.stream_once()
        assert not ex.snapshot_pending()
        assert ex.stream_once().quarantined == 0
        assert ex.snapshot().tables == ("APP.ITEMS",)
    assert staging.quarantined_rows() == []
    assert _differences(db, staging, "APP", "ITEMS") == []
