"""A dbt project replicating a simulated database, synced and compared as a user would:
``oracdc sync``'s cycle in-process, then every replica against the source at its SCN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from extractor.config import OracdcConfig, config_from_mapping, load_config
from extractor.demo import prepare_work_dir
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
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
