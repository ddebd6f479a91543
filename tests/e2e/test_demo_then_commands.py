"""The demo, then the commands it invites: ``verify`` sees the demo's database, ``sync``
continues its workload (issue 19.5: each command used to simulate a new database, and
``verify`` after the demo reported every table DIFFERENT)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extractor.cli.main import main
from extractor.demo import DemoSettings, run_demo
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint
from tests.e2e.replica_compare import compare_table
from tests.e2e.sim_project import use_shared_spark

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "demo_then_commands"
SEED = 42
PER_CYCLE = 60


def test_verify_and_sync_after_the_demo_see_the_demo_database(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_shared_spark(monkeypatch, spark, REPLICA_SCHEMA)
    work = tmp_path / "demo"
    assert run_demo(DemoSettings(work, cycles=2, transactions_per_cycle=PER_CYCLE, seed=SEED))
    config = str(work / "oracdc.yml")

    # the same workload, run here without the saved file: the truth the replicas must equal
    truth_db = SimDatabase()
    truth = WorkloadRunner(truth_db, WorkloadSpec(tables=5, seed=SEED, transactions=0))
    truth.run(0)

    def replicas_equal_truth(cycles: int) -> int:
        while truth.started < cycles * PER_CYCLE:
            truth.run(PER_CYCLE)
        text = (work / "data" / CHECKPOINT_FILE).read_text(encoding="utf-8")
        mined_to = Checkpoint.from_json(json.loads(text)).mined_to_scn
        assert mined_to is not None
        source = open_source({"kind": "sim", "database": truth_db})
        results = [
            compare_table(t, source, spark, REPLICA_SCHEMA, mined_to) for t in truth_db.tables()
        ]
        assert [r.table for r in results if not r.matches] == []
        return mined_to

    after_demo = replicas_equal_truth(cycles=2)
    capsys.readouterr()
    assert main(["verify", "--config", config]) == 0
    verified = capsys.readouterr().out
    assert "DIFFERENT" not in verified and verified.count("MATCH") == 5, verified

    assert main(["sync", "--once", "--config", config]) == 0
    after_sync = replicas_equal_truth(cycles=3)  # the workload went on by one cycle
    assert after_sync > after_demo
    assert main(["verify", "--config", config]) == 0

    # a table taken again on demand: its new snapshot lands, the next cycle rebuilds its
    # replica from it, and everything still matches
    capsys.readouterr()
    assert main(["snapshot", "--force", "--tables", "SIM.CUSTOMERS", "--config", config]) == 0
    forced = capsys.readouterr().out
    assert "rows landed for SIM.CUSTOMERS" in forced and "ORDERS" not in forced, forced
    assert main(["sync", "--once", "--config", config]) == 0
    replicas_equal_truth(cycles=4)
    assert main(["verify", "--config", config]) == 0
    assert main(["snapshot", "--tables", "SIM.X", "--config", config]) == 1
    assert "--tables goes with --force" in capsys.readouterr().err

    # merge-on-read replicas (docs/dbt.md "Replica layouts"), set as a user would: the next
    # cycle rebuilds every replica as base, delta and view, the one after appends to the delta;
    # verify reads them through their views
    project_file = work / "dbt_project.yml"
    settings = project_file.read_text(encoding="utf-8")
    staging_var = "  oracle_cdc__staging_schema:"
    assert staging_var in settings
    layout = "  oracle_cdc__layout: merge_on_read\n  oracle_cdc__compact_share: 1\n"
    project_file.write_text(settings.replace(staging_var, layout + staging_var), encoding="utf-8")
    for cycles in (5, 6):
        assert main(["sync", "--once", "--config", config]) == 0
        replicas_equal_truth(cycles=cycles)
        capsys.readouterr()
        assert main(["verify", "--config", config]) == 0
        verified = capsys.readouterr().out
        assert "DIFFERENT" not in verified and verified.count("MATCH") == 5, verified
    deltas = spark.sql(f"show tables in {REPLICA_SCHEMA} like '*__delta'").collect()
    assert len(deltas) == 5
    assert sum(spark.table(f"{REPLICA_SCHEMA}.{row.tableName}").count() for row in deltas) > 0
