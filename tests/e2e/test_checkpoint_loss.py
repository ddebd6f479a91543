"""A lost checkpoint, as a user meets it: sync, move ``checkpoint.json`` aside (what its own
error message advises for a damaged one), commit more transactions, sync again. Every table is
snapshotted again and batch ids must continue above the highest landed ``_batch_id``, or dbt
(whose watermark is that id) skips every new batch without an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.state.checkpoint import CHECKPOINT_FILE
from tests.e2e.sim_project import sim_project, sync_and_compare

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "checkpoint_loss"
STAGING_SCHEMA = "checkpoint_loss_staging"


def test_a_sync_after_the_checkpoint_was_moved_aside_reaches_the_replicas(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = SimDatabase()
    # No deletes and no key updates: a lost checkpoint re-snapshots, and retiring keys deleted
    # in between is the re-snapshot's business, not the batch ids'.
    spec = WorkloadSpec(tables=3, seed=5, delete_ratio=0.0, pk_update_ratio=0.0, interleave=4)
    workload = WorkloadRunner(db, spec)
    workload.run(60)
    config = sim_project(
        tmp_path / "project", monkeypatch, REPLICA_SCHEMA, STAGING_SCHEMA, snapshot_batch_rows=25
    )

    def sync() -> list[str]:
        return sync_and_compare(spark, config, db, REPLICA_SCHEMA)

    assert sync() == []
    checkpoint = config.data_dir / CHECKPOINT_FILE
    checkpoint.rename(checkpoint.with_name(CHECKPOINT_FILE + ".damaged"))
    workload.run(40)
    assert sync() == []  # the re-snapshot (it carries the new rows)
    workload.run(40)
    assert sync() == []  # the stream after it
