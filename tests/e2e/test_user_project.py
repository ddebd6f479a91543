"""A new user's own project, step by step as the README gives them: ``oracdc init myproj``,
oracdc.yml pointed at a replay bundle, then in that directory with no flags ``oracdc
generate``, ``oracdc sync --once``, ``oracdc status`` and ``dbt test``. (``verify`` reads the
source AS OF the replicas' SCN, which a bundle holds only at its snapshot SCN.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from extractor.cli.main import main
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint
from tests.e2e.replica_compare import compare_table
from tests.e2e.sim_project import bundle_with_snapshot_midway, use_shared_spark

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "user_project"
STAGING_SCHEMA = "user_project_staging"


def test_init_then_generate_sync_and_dbt_test_from_inside_the_project(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=5, seed=31))
    bundle = bundle_with_snapshot_midway(workload, 100, 100, tmp_path / "bundle")
    use_shared_spark(monkeypatch, spark, REPLICA_SCHEMA)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "myproj"]) == 0
    project = tmp_path / "myproj"
    assert (project / "dbt_packages" / "oracle_cdc" / "macros").is_dir()  # dbt deps ran

    # the user's edits: the source, the tables, their own staging schema
    config = yaml.safe_load((project / "oracdc.yml").read_text(encoding="utf-8"))
    config["source"] = {"kind": "replay", "path": str(bundle.out)}
    config["tables"] = ["SIM.*"]
    config["staging_schema"] = STAGING_SCHEMA
    (project / "oracdc.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    dbt_project = project / "dbt_project.yml"
    dbt_project.write_text(
        dbt_project.read_text(encoding="utf-8").replace("oracdc_staging", STAGING_SCHEMA),
        encoding="utf-8",
    )

    monkeypatch.chdir(project)
    assert main(["generate"]) == 0
    models = sorted(p.name for p in (project / "models" / "replica").glob("*.sql"))
    assert models == [
        f"sim__{t.name.lower()}.sql" for t in sorted(db.tables(), key=lambda t: t.name)
    ]
    assert main(["sync", "--once"]) == 0
    capsys.readouterr()
    assert main(["status"]) == 0
    assert capsys.readouterr().out.count("SIM.") >= 5
    assert run_dbt(["test"], project_dir=project, profiles_dir=project).success

    checkpoint = (project / "data" / CHECKPOINT_FILE).read_text(encoding="utf-8")
    mined_to = Checkpoint.from_json(json.loads(checkpoint)).mined_to_scn
    assert mined_to is not None and mined_to > bundle.snapshot_scn
    truth = open_source({"kind": "sim", "database": db})
    results = [compare_table(t, truth, spark, REPLICA_SCHEMA, mined_to) for t in db.tables()]
    assert [r.table for r in results if not r.matches] == []
