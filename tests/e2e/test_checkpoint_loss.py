"""A lost checkpoint, as a user meets it: sync, move ``checkpoint.json`` aside (what its own
error message advises for a damaged one), commit more transactions, sync again. Every table is
snapshotted again and batch ids must continue above the highest landed ``_batch_id``, or dbt
(whose watermark is that id) skips every new batch without an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.config import config_from_mapping
from extractor.demo import prepare_work_dir
from extractor.land.checkpoint import CHECKPOINT_FILE
from extractor.land.spark_session import run_dbt
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.verify.compare import compare_table

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
    work = tmp_path / "project"
    prepare_work_dir(work)
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", REPLICA_SCHEMA)
    config = config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": STAGING_SCHEMA,
            "snapshot_batch_rows": 25,
            "dbt": {"project_dir": "."},
        },
        base_dir=work,
    )
    assert run_dbt(["deps"], project_dir=work, profiles_dir=work).success

    def sync_and_compare() -> list[str]:
        source = open_source({"kind": "sim", "database": db})
        with open_runtime(config, source=source, spark=spark) as runtime:
            run_cycle(runtime, dbt_settings(config))
            scn = runtime.extractor.checkpoint.mined_to_scn
            tables = runtime.extractor.registry.resolve()
        assert scn is not None
        truth = open_source({"kind": "sim", "database": db})
        results = [compare_table(t, truth, spark, REPLICA_SCHEMA, scn) for t in tables]
        differing = [r for r in results if not r.matches]
        return [f"{r.table}: {r.missing} missing, {r.changed} changed" for r in differing]

    assert sync_and_compare() == []
    checkpoint = config.data_dir / CHECKPOINT_FILE
    checkpoint.rename(checkpoint.with_name(CHECKPOINT_FILE + ".damaged"))
    workload.run(40)
    assert sync_and_compare() == []  # the re-snapshot (it carries the new rows)
    workload.run(40)
    assert sync_and_compare() == []  # the stream after it
