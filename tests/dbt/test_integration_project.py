"""``integration_tests/``, the package's dbt-native checks (the dbt-utils convention), built on
the embedded target in two phases as the extractor lands batches: each consolidation rule's
model equals its expected seed after phase 2, and the checks do fail on a wrong replica (the
replicas of phase 1 are not yet what the rules give after phase 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.lakehouse.dbt_runner import run_dbt

pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]
PROJECT = REPO / "integration_tests"
RULES = {
    "commit_order", "duplicates", "partial_images", "hard_deletes", "soft_deletes",
    "schema_change", "commit_order_history",
}  # fmt: skip


def _dbt(args: list[str], phase: int) -> Any:
    return run_dbt(args, project_dir=PROJECT, profiles_dir=REPO, variables={"phase": phase})


def _failed_tests(result: Any) -> set[str]:
    return {r.node.attached_node.split(".")[-1] for r in result.result if r.status != "pass"}


def test_each_rule_gives_its_expected_replica_after_two_phases(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", "oracle_cdc_integration")
    assert run_dbt(["deps"], project_dir=PROJECT, profiles_dir=REPO).success
    assert _dbt(["seed", "--full-refresh"], phase=1).success
    assert _dbt(["run", "--full-refresh"], phase=1).success

    early = _dbt(["test"], phase=1)  # the phase 2 expectations on phase 1 replicas
    assert not early.success
    assert {"commit_order", "partial_images", "hard_deletes"} <= _failed_tests(early)

    built = _dbt(["build"], phase=2)  # seeds again, the replicas incrementally, every test
    assert built.success, [(r.node.name, r.message) for r in built.result if r.status != "pass"]
    tested = {
        r.node.attached_node.split(".")[-1]
        for r in built.result
        if r.node.resource_type == "test" and r.status == "pass"
    }
    assert tested == RULES
