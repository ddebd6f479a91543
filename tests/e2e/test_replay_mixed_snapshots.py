"""A replay bundle whose tables were snapshotted at different SCNs, and tables with no snapshot
file (replicated from the log only), configured together (``tables: [SIM.*]``): one sync
takes each table's own snapshot SCN and hands over per table, and the replicas equal the
simulator's state; a second sync after the bundle grew streams on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.config import config_from_mapping
from extractor.errors import OracdcError
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.source.replay.recorder import record_bundle
from tests.e2e.replica_compare import compare_table
from tests.e2e.sim_project import replay_project

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "replay_mixed"


def test_tables_snapshotted_at_different_scns_and_log_only_tables_sync_together(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = SimDatabase()
    # interleave 6: transactions are open across each snapshot SCN (the per-table handover).
    workload = WorkloadRunner(db, WorkloadSpec(tables=5, seed=23, interleave=6))
    first = workload.run(80)
    early_scn = db.current_scn()
    workload.run(80)
    late_scn = db.current_scn()
    workload.run(80)
    tables = sorted((t.owner, t.name) for t in db.tables())
    snapshots = {tables[0]: late_scn, tables[1]: early_scn, tables[2]: late_scn}
    bundle = tmp_path / "bundle"
    record_bundle(db, bundle, snapshot_scns=snapshots, since_scn=first.first_scn)

    config = replay_project(
        tmp_path / "project", bundle, monkeypatch, REPLICA_SCHEMA, "replay_mixed_staging",
        snapshot_batch_rows=30,
    )  # fmt: skip

    def sync_and_compare() -> dict[str, str]:
        with open_runtime(config, spark=spark) as runtime:  # the replay source of the config
            run_cycle(runtime, dbt_settings(config))
            checkpoint = runtime.extractor.checkpoint
            replicated = runtime.extractor.registry.resolve()
        assert checkpoint.mined_to_scn is not None
        truth = open_source({"kind": "sim", "database": db})
        results = [
            compare_table(t, truth, spark, REPLICA_SCHEMA, checkpoint.mined_to_scn)
            for t in replicated
        ]
        assert len(results) == 5
        assert [f"{r.table}: {r.examples[:3]}" for r in results if not r.matches] == []
        return {
            name: f"snapshot at {state.snapshot_scn}" for name, state in checkpoint.tables.items()
        }

    states = sync_and_compare()
    assert states[f"{tables[1][0]}.{tables[1][1]}"] == f"snapshot at {early_scn}"
    assert states[f"{tables[0][0]}.{tables[0][1]}"] == f"snapshot at {late_scn}"
    log_only = {f"{o}.{n}" for o, n in tables[3:]}
    assert {states[name] for name in log_only} == {f"snapshot at {first.first_scn}"}

    workload.run(80)
    record_bundle(db, bundle, snapshot_scns=snapshots, since_scn=first.first_scn)
    sync_and_compare()


def test_a_table_added_later_with_a_snapshot_older_than_the_landed_changes_is_refused(
    spark: Any, tmp_path: Path
) -> None:
    """Transactions at or below the last landed commit are skipped as already emitted: a
    table added later whose bundle snapshot (or log-only start) is below it would silently
    miss its changes in between."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=2, seed=29, interleave=3))
    first = workload.run(40)
    snapshot_scn = db.current_scn()
    workload.run(40)
    tables = sorted((t.owner, t.name) for t in db.tables())
    bundle = tmp_path / "bundle"
    record_bundle(db, bundle, snapshot_scns={tables[0]: snapshot_scn}, since_scn=first.first_scn)
    names = [f"{owner}.{name}" for owner, name in tables]

    def configured(*replicated: str) -> Any:
        return config_from_mapping(
            {
                "source": {"kind": "replay", "path": str(bundle)},
                "tables": list(replicated),
                "data_dir": "data",
                "staging_schema": "replay_added_staging",
            },
            base_dir=tmp_path,
        )

    with open_runtime(configured(names[0]), spark=spark) as runtime:
        runtime.extractor.snapshot()
        runtime.extractor.stream_once()
        landed = runtime.extractor.checkpoint.last_commit
    assert landed is not None and landed.scn > first.first_scn
    with (
        open_runtime(configured(*names), spark=spark) as runtime,
        pytest.raises(OracdcError, match=rf"{names[1]}: snapshot at SCN \d+ is older than"),
    ):
        runtime.extractor.snapshot()
