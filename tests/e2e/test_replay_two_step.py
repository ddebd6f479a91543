"""The whole pipeline on a replay bundle that grows: the first part of a recorded workload and a
sync, then the whole bundle and a sync; each time the replicas equal the simulator's state, and
``oracdc status`` reports the batches landed, consolidated and in the replicas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extractor.cli import options as cli_options
from extractor.cli.main import main
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.staging_contract import staging_table_name
from tests.e2e.replica_compare import compare_table
from tests.e2e.sim_project import bundle_with_snapshot_midway, replay_project

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "replay_two_step"


def test_a_growing_bundle_synced_in_two_steps_gives_the_source_state(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=5, seed=21, interleave=6))
    bundle = bundle_with_snapshot_midway(workload, 120, 120, tmp_path / "bundle")

    config = replay_project(
        tmp_path / "project", bundle.out, monkeypatch, REPLICA_SCHEMA, "replay_two_step_staging"
    )
    config_file = tmp_path / "project" / "oracdc.yml"

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

    def staged_batch(table: str) -> int:
        owner, name = table.split(".")
        relation = f"replay_two_step_staging.{staging_table_name(owner, name)}"
        return int(spark.sql(f"select max(_batch_id) from {relation}").collect()[0][0])

    def status() -> dict[str, Any]:
        monkeypatch.setattr(cli_options, "open_spark", lambda config: spark)
        capsys.readouterr()  # dbt's output of the sync
        assert main(["status", "--json", "--replicas", "--config", str(config_file)]) == 0
        report: dict[str, Any] = json.loads(capsys.readouterr().out)
        for table, row in report["tables"].items():  # what staging holds, read independently
            assert row["last_landed_batch"] == staged_batch(table), table
        return report

    first_scn = sync_and_compare()
    first_status = status()
    workload.run(120)
    bundle.record()
    second_scn = sync_and_compare()
    second_status = status()

    assert second_scn > first_scn
    for report in (first_status, second_status):
        assert report["overall"]["redo_logs_in_use"], "the window's logs from logs.json"
        assert len(report["tables"]) == 5
        for table, row in report["tables"].items():
            assert row["last_consolidated_batch"] == row["last_landed_batch"], table
            assert row["replica_batch"] is not None, table
            assert row["replica_batch"] <= row["last_consolidated_batch"], table
    for table, row in second_status["tables"].items():
        before = first_status["tables"][table]["last_consolidated_batch"]
        assert row["last_consolidated_batch"] > before, table
