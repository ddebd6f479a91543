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


def _update_codes(db: SimDatabase, code: str) -> None:
    txn = db.begin()
    txn.update("SIM", "ACCOUNTS", lambda r: True, {"CODE": code})
    txn.commit()


def _replicated(
    tmp_path: Path, **settings: Any
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    db = SimDatabase()
    db.create_table(ACCOUNTS)
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


def test_logging_lowered_for_the_database_quarantines_then_sends_the_table_back(
    tmp_path: Path,
) -> None:
    """No DDL row of the table: the running process meets updates without the key. Landed,
    each would make a row with a NULL key; quarantined, they say so, and a restart reads the
    lower level and snapshots the table again under its new key."""
    db = SimDatabase()
    db.set_database_supplemental_logging("ALL")  # the table's own level is MINIMAL
    db.create_table(replace(ITEMS, supplemental_logging="MINIMAL"))
    txn = db.begin()
    for key in range(1, 4):
        txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"n{key}", "QTY": key})
    txn.commit()
    config = make_config(tmp_path, "t_database_logging", error_policy="warn")
    staging = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        assert extractor.checkpoint.tables["APP.ITEMS"].replica_key == ("id",)
        db.set_database_supplemental_logging("MINIMAL")
        txn = db.begin()
        txn.update("APP", "ITEMS", lambda r: r["ID"] == 2, {"QTY": 20})  # no ID in the image
        txn.commit()
        assert extractor.stream_once().quarantined == 1
    [error] = staging.quarantined_rows()
    assert "primary-key column(s) ID" in error["reason"]
    staged = staging.staged_rows(db.table("APP", "ITEMS"))
    assert [r for r in staged if r["id"] is None and r["_op"] != "t"] == []
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot().tables == ("APP.ITEMS",)
        assert extractor.checkpoint.tables["APP.ITEMS"].replica_key == ("_row_id",)
    assert _differences(db, staging, "APP", "ITEMS") == []
