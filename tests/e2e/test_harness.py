"""Randomized crash-and-compare runs of the whole pipeline (see harness.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import HarnessCase, extra_seeds, run_case

pytestmark = pytest.mark.spark

CI_CASES = [
    # changes tables' supplemental logging 8 times: to and from ALL the replica key changes
    HarnessCase(seed=7, bucket_layout="hash", logging_change_ratio=0.04),
    # gives tables ROW ARCHIVAL: their archived rows stay in the replica through dbt
    HarnessCase(seed=11, tables=7, row_archival_ratio=0.03),
    # restores the source once (OPEN RESETLOGS): dbt retires the lost changes in a delta too
    HarnessCase(seed=13, replica_layout="merge_on_read", resetlogs_after=1),
]
EXTRA_CASES = [
    HarnessCase(
        seed=s,
        bucket_layout=("auto", "hash")[s % 2],
        replica_layout=("copy_on_write", "merge_on_read")[s // 2 % 2],
    )
    for s in extra_seeds()
]


@pytest.mark.parametrize("case", CI_CASES + EXTRA_CASES, ids=lambda c: f"seed{c.seed}")
def test_replicas_equal_the_source_after_random_workloads_and_crashes(
    spark: Any, tmp_path: Path, case: HarnessCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", "")  # run_case sets it; restored after the test
    outcome = run_case(spark, tmp_path, case)
    assert outcome.comparisons, "no table was compared"
    assert outcome.passed, outcome.describe()
