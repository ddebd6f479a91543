"""TRUNCATE TABLE end to end: a workload that truncates tables, synced through the extractor
(reset markers in staging) and dbt (which honours them): every replica equals the source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from tests.e2e.sim_project import sim_project, sync_and_compare

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "truncate_e2e"
STAGING_SCHEMA = "truncate_e2e_staging"


def test_replicas_equal_the_source_after_truncates(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=3, seed=11, interleave=3))
    workload.run(50)
    config = sim_project(tmp_path / "project", monkeypatch, REPLICA_SCHEMA, STAGING_SCHEMA)

    def sync() -> list[str]:
        return sync_and_compare(spark, config, db, REPLICA_SCHEMA)

    assert sync() == []
    # Truncates between other transactions, and rows inserted after them, in one cycle.
    workload.spec = WorkloadSpec(tables=3, seed=11, interleave=3, truncate_ratio=0.15)
    workload.run(40)
    assert workload.truncates > 0
    assert sync() == []
    workload.run(20)
    assert sync() == []
