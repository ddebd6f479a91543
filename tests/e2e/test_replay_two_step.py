"""The whole pipeline on a replay bundle that grows: the first part of a recorded workload and a
sync, then the whole bundle and a sync; each time the replicas equal the simulator's state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.config import config_from_mapping
from extractor.demo import prepare_work_dir
from extractor.land.spark_session import run_dbt
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.source.replay.recorder import record_bundle
from extractor.verify.compare import compare_table

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "replay_two_step"


def test_a_growing_bundle_synced_in_two_steps_gives_the_source_state(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=5, seed=21, interleave=6))
    first = workload.run(120)
    snapshot_scn = db.current_scn()
    workload.run(120)
    bundle = tmp_path / "bundle"
    snapshots = {(t.owner, t.name): snapshot_scn for t in db.tables()}
    record_bundle(db, bundle, snapshot_scns=snapshots, since_scn=first.first_scn)

    work = tmp_path / "project"
    prepare_work_dir(work)
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", REPLICA_SCHEMA)
    config = config_from_mapping(
        {
            "source": {"kind": "replay", "path": str(bundle)},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": "replay_two_step_staging",
            "dbt": {"project_dir": "."},
        },
        base_dir=work,
    )
    assert run_dbt(["deps"], project_dir=work, profiles_dir=work).success

    def sync_and_compare() -> int:
        with open_runtime(config, spark=spark) as runtime:  # the replay source of the config
            run_cycle(runtime, dbt_settings(config))
            scn = runtime.extractor.checkpoint.mined_to_scn
            tables = runtime.extractor.registry.resolve()
        assert scn is not None
        truth = open_source({"kind": "sim", "database": db})
        results = [compare_table(t, truth, spark, REPLICA_SCHEMA, scn) for t in tables]
        assert [r for r in results if not r.matches] == []
        return scn

    first_scn = sync_and_compare()
    workload.run(120)
    record_bundle(db, bundle, snapshot_scns=snapshots, since_scn=first.first_scn)
    second_scn = sync_and_compare()

    assert second_scn > first_scn
