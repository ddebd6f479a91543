"""A small simulated database shared by the source tests (built once per module)."""

from __future__ import annotations

import pytest

from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.workload import WorkloadResult, WorkloadSpec, run_workload
from extractor.source.oracle.oracle_source import OracleSource


@pytest.fixture(scope="module")
def workload() -> tuple[SimDatabase, WorkloadResult]:
    db = SimDatabase(log_switch_every=300)
    result = run_workload(db, WorkloadSpec(transactions=300, seed=7))
    return db, result


@pytest.fixture
def sim_source(workload: tuple[SimDatabase, WorkloadResult]) -> OracleSource:
    db, _ = workload
    return OracleSource(SimConnection(db), nls=db.nls)
