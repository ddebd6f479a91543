"""A table whose replica key changes (docs/keys.md, "When the key changes"): the versions
landed before are keyed the old way (under MINIMAL logging an update carries no primary
key), so the table is snapshotted again, whether the DDL row is mined by the process or the
change was made before the process read the dictionary."""

from __future__ import annotations

from pathlib import Path

from extractor.config import OracdcConfig
from extractor.keys import consolidation_key
from extractor.pipeline.extractor import open_extractor
from extractor.sim.database import SimDatabase
from extractor.sim.table_catalog import demo_tables
from extractor.source.factory import open_source
from extractor.state.checkpoint import CheckpointStore, TableSnapshotState
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import make_config

ACCOUNTS = demo_tables()[3]  # primary key ACC_NO, MINIMAL logging: keyed by ROWID


def _update_codes(db: SimDatabase, code: str) -> None:
    txn = db.begin()
    txn.update("SIM", "ACCOUNTS", lambda r: True, {"CODE": code})
    txn.commit()


def _replicated(tmp_path: Path) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    db = SimDatabase()
    db.create_table(ACCOUNTS)
    txn = db.begin()
    for number in range(1, 6):
        txn.insert("SIM", "ACCOUNTS", {"ACC_NO": f"A{number}", "HOLDER": f"h{number}"})
    txn.commit()
    config = make_config(tmp_path, "t_key_change", tables=["SIM.*"])
    staging = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        extractor.snapshot()
        _update_codes(db, "a")  # a partial image: CODE only, no ACC_NO
        extractor.stream_once()
        assert extractor.checkpoint.tables["SIM.ACCOUNTS"].replica_key == ("_row_id",)
    return db, config, staging


def _source(db: SimDatabase) -> object:
    return open_source({"kind": "sim", "database": db})


def _replica_differences(db: SimDatabase, staging: MemoryStagingWriter) -> list[str]:
    table = db.table("SIM", "ACCOUNTS")
    replica = consolidate(table, staging.staged_rows(table))
    return differences(truth_by_key(table, db.truth("SIM", "ACCOUNTS", db.current_scn())), replica)


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
        assert extractor.snapshot().tables == ("SIM.ACCOUNTS",)
        extractor.stream_once()
        assert extractor.checkpoint.tables["SIM.ACCOUNTS"].replica_key == ("acc_no",)
    assert _replica_differences(db, staging) == []
    # the partial images landed before the change have no key: only the new snapshot's
    # reset marker, ordered after them, keeps them out of the replica
    keyless = [r for r in staging.staged_rows(db.table("SIM", "ACCOUNTS")) if r["acc_no"] is None]
    assert sorted(r["_op"] for r in keyless) == ["t", "t"] + ["u"] * 5


def test_a_table_snapshotted_by_an_older_oracdc_is_not_sent_back(tmp_path: Path) -> None:
    """Its checkpoint holds no key: whether it changed is not known (docs/keys.md)."""
    db, config, staging = _replicated(tmp_path)
    with CheckpointStore(config.data_dir) as store:
        state = store.current.tables["SIM.ACCOUNTS"]
        store.save(store.current.with_table("SIM.ACCOUNTS", _without_key(state)))
    db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        assert extractor.snapshot().tables == ()


def _without_key(state: TableSnapshotState) -> TableSnapshotState:
    return TableSnapshotState(**{**state.__dict__, "replica_key": ()})
