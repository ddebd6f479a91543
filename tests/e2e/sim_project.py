"""A dbt project replicating a simulated database, synced and compared as a user would:
``oracdc sync``'s cycle in-process, then every replica against the source at its SCN."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from extractor.cli import options as cli_options
from extractor.config import OracdcConfig, config_from_mapping, load_config
from extractor.demo import prepare_work_dir
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.pipeline import runtime as runtime_module
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner
from extractor.source.factory import open_source
from extractor.source.replay.recorder import record_bundle
from tests.e2e.replica_compare import compare_table


def sim_project(
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    replica_schema: str,
    staging_schema: str,
    **settings: Any,
) -> OracdcConfig:
    """The demo's project files in ``work`` with an oracdc.yml for ``kind: sim`` (SIM.*)."""
    _project_files(work, monkeypatch, replica_schema)
    return config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": staging_schema,
            "dbt": {"project_dir": "."},
            **settings,
        },
        base_dir=work,
    )


def replay_project(
    work: Path,
    bundle: Path,
    monkeypatch: pytest.MonkeyPatch,
    replica_schema: str,
    staging_schema: str,
    **settings: Any,
) -> OracdcConfig:
    """The demo's project files in ``work`` with an oracdc.yml file for ``kind: replay`` of
    ``bundle`` (SIM.*), loaded as ``oracdc`` loads it."""
    _project_files(work, monkeypatch, replica_schema)
    raw = {
        "source": {"kind": "replay", "path": str(bundle)},
        "tables": ["SIM.*"],
        "data_dir": "data",
        "staging_schema": staging_schema,
        "dbt": {"project_dir": "."},
        **settings,
    }
    config_file = work / "oracdc.yml"
    config_file.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return load_config(config_file)


def _project_files(work: Path, monkeypatch: pytest.MonkeyPatch, replica_schema: str) -> None:
    """The demo's dbt project in ``work``, its packages installed, replicas in
    ``replica_schema``."""
    prepare_work_dir(work)
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", replica_schema)
    assert run_dbt(["deps"], project_dir=work, profiles_dir=work).success


def sync_and_compare(
    spark: Any, config: OracdcConfig, db: SimDatabase, replica_schema: str
) -> list[str]:
    """One sync cycle, then the replicas that differ from the source (empty: all match)."""
    source = open_source({"kind": "sim", "database": db})
    with open_runtime(config, source=source, spark=spark) as runtime:
        run_cycle(runtime, dbt_settings(config))
        scn = runtime.extractor.checkpoint.mined_to_scn
        tables = runtime.extractor.registry.resolve()
    assert scn is not None
    truth = open_source({"kind": "sim", "database": db})
    results = [compare_table(t, truth, spark, replica_schema, scn) for t in tables]
    return [
        f"{r.table}: {r.missing} missing, {r.extra} extra, {r.changed} changed"
        for r in results
        if not r.matches
    ]


def use_shared_spark(monkeypatch: pytest.MonkeyPatch, spark: Any, replica_schema: str) -> None:
    """oracdc commands run in this test (``main``, the demo) use the suite's Spark session and
    build their replicas in ``replica_schema``."""
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", replica_schema)
    monkeypatch.setattr(runtime_module, "get_spark", lambda settings: spark)
    monkeypatch.setattr(cli_options, "open_spark", lambda config: spark)


@dataclass(frozen=True)
class MidwayBundle:
    """A replay bundle of a workload's database, every table snapshotted at ``snapshot_scn``
    and its redo from ``since_scn`` (before the snapshot) on."""

    db: SimDatabase
    out: Path
    snapshot_scn: int
    since_scn: int

    def record(self) -> Path:
        """(Re)write the bundle with everything the database has run so far."""
        snapshots = {(t.owner, t.name): self.snapshot_scn for t in self.db.tables()}
        return record_bundle(self.db, self.out, snapshot_scns=snapshots, since_scn=self.since_scn)


def bundle_with_snapshot_midway(
    workload: WorkloadRunner, before: int, after: int, out: Path
) -> MidwayBundle:
    """Run ``before`` transactions, snapshot there, run ``after`` more; record the bundle."""
    first = workload.run(before)
    bundle = MidwayBundle(workload.db, out, workload.db.current_scn(), first.first_scn)
    workload.run(after)
    bundle.record()
    return bundle
