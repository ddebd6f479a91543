"""TRUNCATE TABLE end to end: a workload that truncates tables, synced through the extractor
(reset markers in staging) and dbt (which honours them): every replica equals the source."""

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
from extractor.verify.compare import compare_table

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "truncate_e2e"
STAGING_SCHEMA = "truncate_e2e_staging"


def test_replicas_equal_the_source_after_truncates(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=3, seed=11, interleave=3))
    workload.run(50)
    work = tmp_path / "project"
    prepare_work_dir(work)
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", REPLICA_SCHEMA)
    config = config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": STAGING_SCHEMA,
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
        return [f"{r.table}: {r}" for r in results if not r.matches]

    assert sync_and_compare() == []
    # Truncates between other transactions, and rows inserted after them, in one cycle.
    workload.spec = WorkloadSpec(tables=3, seed=11, interleave=3, truncate_ratio=0.15)
    workload.run(40)
    assert workload.truncates > 0
    assert sync_and_compare() == []
    workload.run(20)
    assert sync_and_compare() == []
