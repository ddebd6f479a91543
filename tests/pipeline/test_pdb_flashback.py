"""A pluggable database flashed back (FLASHBACK PLUGGABLE DATABASE, or a PDB point-in-time
recovery, then OPEN RESETLOGS of the PDB): the changes committed in it after the SCN it went
back to are gone from its tables, but they were mined and landed, and V$DATABASE does not
change. The PDB's new incarnation (V$PDB_INCARNATION) stops replication until every table is
snapshotted again (by itself under ``when_needed``); the CDB's SCNs go on, so the snapshot
does not wait, and its reset markers retire the undone changes."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from extractor.cli.verify import check_incarnation
from extractor.config import OracdcConfig
from extractor.errors import SyncStepError, VerifyError
from extractor.incarnation import PdbIncarnation, SourceIncarnation
from extractor.pipeline import incarnation_guard
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint, CheckpointStore
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.test_extract_to_staging import ITEMS, make_config
from tests.pipeline.test_resetlogs import _replica_differences, _snapshot_force, _write

CONTAINERS = ("pdb", "root")  # a session in the PDB (19c+), or in CDB$ROOT with source.pdb


def _database(container: str) -> SimDatabase:
    db = SimDatabase()
    db.server.cdb = True
    if container == "root":
        db.server.container_name = "CDB$ROOT"
        db.server.container_data_all = True
    db.create_table(ITEMS)
    return db


def _source_config(db: SimDatabase) -> dict[str, Any]:
    in_root = db.server.container_name == "CDB$ROOT"
    return {"kind": "sim", "database": db, **({"pdb": db.server.pdb_name} if in_root else {})}


def _run(config: OracdcConfig, db: SimDatabase, staging: MemoryStagingWriter, step: Any) -> Any:
    with open_extractor(config, open_source(_source_config(db)), None, writer=staging) as ex:
        return step(ex)


def _cycle(config: OracdcConfig, db: SimDatabase, staging: MemoryStagingWriter) -> None:
    _run(config, db, staging, lambda extractor: extract_and_land(extractor, {}))


def _never_waits() -> SimpleNamespace:
    def sleep(seconds: float) -> None:
        raise AssertionError("the snapshot waited: the CDB's SCNs never went back")

    return SimpleNamespace(sleep=sleep, monotonic=lambda: 0.0)


def _forget_the_pdbs_incarnation(checkpoint: Path) -> None:
    """The checkpoint as a version that did not keep the PDB's incarnation wrote it."""
    raw = json.loads(checkpoint.read_text())
    for key in ("pdb_dbid", "pdb_incarnation", "pdb_incarnation_scn", "pdb_opened_scn"):
        del raw["incarnation"][key]
    checkpoint.write_text(json.dumps(raw))


def _flashed_back(
    tmp_path: Path, container: str, **config: Any
) -> tuple[SimDatabase, OracdcConfig, MemoryStagingWriter]:
    """ITEMS replicated; changes landed, then undone by a flashback of the PDB to the SCN
    before them; a change after it."""
    db = _database(container)
    _write(db, insert=(1, 2, 3))
    made = make_config(tmp_path, f"t_pdb_flashback_{container}", **config)
    staging = MemoryStagingWriter(made.staging_schema)
    _cycle(made, db, staging)
    flashed_to = db.current_scn()
    _write(db, insert=(4,), update=(1,), delete=(2,), qty=100)  # undone by the flashback
    _cycle(made, db, staging)
    assert {row["id"] for row in staging.staged_rows(ITEMS)} >= {4}
    assert db.flashback_pdb(flashed_to) == 1
    _write(db, insert=(5,), update=(3,), qty=7)
    return db, made, staging


@pytest.mark.parametrize("container", CONTAINERS)
def test_a_flashed_back_pdb_stops_replication_with_the_fix(tmp_path: Path, container: str) -> None:
    db, config, staging = _flashed_back(tmp_path, container)
    landed_before = staging.staged_rows(ITEMS)
    with CheckpointStore(config.data_dir) as store:
        before = store.current
    assert before.incarnation is not None
    assert before.incarnation.pdb == PdbIncarnation(db.pdb_dbid, 0, 1, 1)
    with pytest.raises(SyncStepError) as raised:
        _cycle(config, db, staging)
    assert "pluggable database was flashed back or recovered" in str(raised.value)
    assert "oracdc snapshot --force" in (raised.value.fix or "")
    assert staging.staged_rows(ITEMS) == landed_before
    with CheckpointStore(config.data_dir) as store:
        assert store.current == before


@pytest.mark.parametrize("container", CONTAINERS)
def test_snapshot_force_retires_the_undone_changes_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, container: str
) -> None:
    db, config, staging = _flashed_back(tmp_path, container)
    assert _replica_differences(db, staging) != []  # the undone changes are in the replica
    monkeypatch.setattr(incarnation_guard, "time", _never_waits())

    _run(config, db, staging, _snapshot_force)
    with CheckpointStore(config.data_dir) as store:
        incarnation = store.current.incarnation
    assert incarnation is not None and incarnation.pdb is not None
    assert (incarnation.pdb.number, incarnation.pdb.scn) == (1, db.pdb_incarnation_scn)
    _write(db, insert=(6,), delete=(1,))
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_when_needed_snapshots_again_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, config, staging = _flashed_back(tmp_path, "pdb", snapshot_mode="when_needed")
    monkeypatch.setattr(incarnation_guard, "time", _never_waits())
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []
    _write(db, insert=(7,), update=(5,), qty=9)
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_a_checkpoint_that_knew_only_the_databases_incarnation_takes_the_pdbs(
    tmp_path: Path,
) -> None:
    """A checkpoint written before the PDB's incarnation was kept: it is recorded, and
    nothing is snapshotted again."""
    db = _database("pdb")
    _write(db, insert=(1, 2))
    config = make_config(tmp_path, "t_pdb_flashback_upgrade")
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)
    path = config.data_dir / CHECKPOINT_FILE
    _forget_the_pdbs_incarnation(path)
    with CheckpointStore(config.data_dir) as store:
        snapshot_before = store.current.tables["APP.ITEMS"].snapshot_scn
        assert store.current.incarnation == SourceIncarnation(
            db.dbid, db.resetlogs_change, db.resetlogs_time
        )
    _write(db, update=(1,), qty=3)
    _cycle(config, db, staging)
    with CheckpointStore(config.data_dir) as store:
        assert store.current.tables["APP.ITEMS"].snapshot_scn == snapshot_before
        incarnation = store.current.incarnation
    assert incarnation is not None and incarnation.pdb == PdbIncarnation(db.pdb_dbid, 0, 1, 1)
    assert _replica_differences(db, staging) == []


def test_verify_refuses_replicas_of_the_pdbs_earlier_incarnation() -> None:
    db = _database("pdb")
    source = open_source(_source_config(db))
    before = source.incarnation()
    assert before is not None
    check_incarnation(Checkpoint(incarnation=before), source)  # the same: compared
    db.flashback_pdb(db.current_scn())
    with pytest.raises(VerifyError, match="pluggable database was flashed back") as raised:
        check_incarnation(Checkpoint(incarnation=before), source)
    assert "oracdc snapshot --force" in (raised.value.fix or "")


def test_a_checkpoint_without_the_pdbs_incarnation_still_sees_a_flashback_since(
    tmp_path: Path,
) -> None:
    """Written before the PDB's incarnation was kept, and the PDB was flashed back after
    changes above its flashback SCN landed: the tables snapshotted before it opened stop."""
    db, config, staging = _flashed_back(tmp_path, "pdb")
    _forget_the_pdbs_incarnation(config.data_dir / CHECKPOINT_FILE)
    with pytest.raises(SyncStepError, match="pluggable database was flashed back"):
        _cycle(config, db, staging)


def test_a_pdb_whose_incarnation_cannot_be_read_keeps_the_one_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grant taken away for a while: replication goes on (with a warning), the
    checkpoint keeps the PDB's incarnation it knew, and a flashback meanwhile is seen once
    the view can be read again."""
    db = _database("pdb")
    _write(db, insert=(1, 2))
    config = make_config(tmp_path, "t_pdb_flashback_unreadable", snapshot_mode="when_needed")
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)
    with CheckpointStore(config.data_dir) as store:
        known = store.current.incarnation
    db.server.revoked.add("V$PDB_INCARNATION")
    flashed_to = db.current_scn()
    _write(db, insert=(3,), update=(1,), qty=5)
    _cycle(config, db, staging)
    with CheckpointStore(config.data_dir) as store:
        assert store.current.incarnation == known
    db.flashback_pdb(flashed_to)
    _cycle(config, db, staging)  # not seen: the undone changes stay
    assert _replica_differences(db, staging) != []
    db.server.revoked.discard("V$PDB_INCARNATION")
    monkeypatch.setattr(incarnation_guard, "time", _never_waits())
    _cycle(config, db, staging)
    assert _replica_differences(db, staging) == []


def test_another_pdb_in_its_place_stops_replication_for_good(tmp_path: Path) -> None:
    """A clone or another copy of the PDB under its name has a DBID of its own: its rows
    are not the replicas' history, whatever the snapshot mode."""
    db = _database("pdb")
    _write(db, insert=(1,))
    config = make_config(tmp_path, "t_pdb_flashback_another", snapshot_mode="when_needed")
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)
    db.pdb_dbid += 1
    with pytest.raises(SyncStepError, match="PDB is another one") as raised:
        _cycle(config, db, staging)
    assert "source.dsn" in (raised.value.fix or "")
