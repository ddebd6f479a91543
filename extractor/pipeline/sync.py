"""One sync cycle: snapshot what is new, mine up to the current SCN, land, then ``dbt build``
of what changed (``build_plan``).

A table that row-moving or key-changing DDL sent back to be snapshotted while mining is
snapshotted again within the same cycle, and mining goes on from the handover, before dbt
runs.

Everything runs in the process that owns the Spark session (dbt in-process through
``dbtRunner``), or against a shared Spark Connect server. A failed step raises
:class:`SyncStepError` naming the step, the table (or dbt node) and the reason; the checkpoint
only ever covers landed data, so rerunning the cycle completes the work.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import ConfigError, OracdcError, SyncStepError
from extractor.lakehouse.dbt_runner import dbt_package_dir, run_dbt
from extractor.pipeline.build_plan import columns_fingerprint, model_digest, plan_build
from extractor.pipeline.extractor import Extractor, SnapshotResult, StreamResult
from extractor.pipeline.runtime import Runtime
from extractor.source.base import WorkloadBetweenCycles
from extractor.state.consolidation_state import (
    cycles_since_full_build,
    landed_batches,
    load_consolidated,
    record_build,
    record_consolidated,
)

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class DbtSettings:
    """Which dbt project the cycle builds, with which profile and variables."""

    project_dir: Path
    profiles_dir: Path
    target: str | None
    variables: dict[str, object] = field(default_factory=dict)
    full_build_every: int = 0  # cycles; 0: full builds only when asked


@dataclass(frozen=True)
class CycleReport:
    snapshot: SnapshotResult
    stream: StreamResult
    models_written: tuple[str, ...]
    seconds: dict[str, float]
    built: tuple[str, ...] = ()  # tables whose replicas dbt built this cycle
    full_build: bool = False


def dbt_settings(config: OracdcConfig) -> DbtSettings:
    """The configured dbt project (``dbt.project_dir``, else the directory of oracdc.yml, as
    ``oracdc init`` writes them), its profiles and variables.

    profiles.yml is taken from the project directory when it has one, else from the
    ``oracle_cdc`` package; the staging schema variable follows ``staging_schema``.
    """
    project = config.dbt_project_dir
    if project is None or not (project / "dbt_project.yml").is_file():
        where = "no dbt project given" if project is None else f"no dbt_project.yml in {project}"
        raise ConfigError(
            f"{where}: the replicas' models need a dbt project of yours",
            fix="run `oracdc init DIR` and use the oracdc.yml it writes, or set dbt.project_dir "
            "in oracdc.yml to your dbt project",
        )
    profiles = project if (project / "profiles.yml").exists() else dbt_package_dir()
    return DbtSettings(
        project_dir=project,
        profiles_dir=profiles,
        target=config.dbt_target,
        variables={"oracle_cdc__staging_schema": config.staging_schema},
        full_build_every=config.dbt_full_build_every,
    )


def ensure_models(tables: Sequence[TableDef], project_dir: Path) -> tuple[str, ...]:
    """Generate sources and models for the tables (files edited by hand are kept)."""
    from extractor.dbt_gen.project_files import generate_project_files

    report = generate_project_files(tables, project_dir)
    written = tuple(str(c.path.relative_to(project_dir)) for c in report.changes if c.action.writes)
    for path in written:
        LOG.info("dbt model file written: %s", path)
    return written


def run_dbt_build(
    dbt: DbtSettings, select: Sequence[str] = (), exclude: Sequence[str] = ()
) -> None:
    """``dbt build`` in-process; raises SyncStepError naming the first failing node.

    A sync cycle selects ``path:models/replica+``: the replicas, their tests and everything
    downstream; the staging source tests run with a plain ``dbt build`` / ``dbt test``."""
    args = ["build", *(["--select", *select] if select else [])]
    args += ["--exclude", *exclude] if exclude else []
    result = run_dbt(
        args,
        project_dir=dbt.project_dir,
        profiles_dir=dbt.profiles_dir,
        target=dbt.target,
        variables=dbt.variables,
    )
    if result.success:
        return
    node, reason = first_dbt_failure(result)
    raise SyncStepError(
        "dbt build",
        reason,
        table=node,
        fix="read the dbt log in the project's logs/ directory; fix the model and rerun",
    )


def run_cycle(runtime: Runtime, dbt: DbtSettings, *, full_build: bool = False) -> CycleReport:
    """One sync cycle; each step's failure is reported as that step's SyncStepError.

    dbt builds the replicas whose staging tables changed, what depends on them and their
    tests (``build_plan``); nothing when nothing changed; everything with ``full_build``, on
    the first cycle, and every ``dbt.full_build_every`` cycles."""
    seconds: dict[str, float] = {}
    if isinstance(runtime.source, WorkloadBetweenCycles):
        started = time.monotonic()
        if _step("source workload", runtime.source.advance_workload):
            seconds["source workload"] = time.monotonic() - started
    extractor = runtime.extractor
    counters_behind = _counters_behind(extractor)  # before this cycle's batches hide it
    snapshot, stream = extract_and_land(extractor, seconds)
    started = time.monotonic()
    tables = [extractor.registry.replicated(t) for t in extractor.registry.resolve()]
    models = _step("generate", lambda: ensure_models(tables, dbt.project_dir))
    seconds["generate"] = time.monotonic() - started
    started = time.monotonic()
    data_dir = runtime.config.data_dir
    landed = landed_batches(extractor.stats)
    digests = {t.qualified_name: model_digest(dbt.project_dir, t) for t in tables}
    waiting = _waiting_for_a_snapshot(extractor, tables)
    plan = plan_build(
        tables,
        landed,
        load_consolidated(data_dir),
        digests,
        full_build_reason=_full_build_reason(full_build, dbt, data_dir, counters_behind),
        waiting=waiting,
    )
    built = tuple(t.qualified_name for t in tables if t.qualified_name in plan.reasons)
    if plan.selectors:
        run_dbt_build(dbt, select=plan.selectors, exclude=plan.excluded)
        record_consolidated(
            data_dir,
            {name: landed.get(name, 0) for name in built},
            datetime.now().astimezone(),
            reasons=plan.reasons,
            columns={t.qualified_name: columns_fingerprint(t) for t in tables},
            models=digests,
        )
    else:
        LOG.info("dbt build skipped: no staging table received a batch")
    record_build(data_dir, full=plan.full, at=datetime.now().astimezone())
    seconds["dbt"] = time.monotonic() - started
    return CycleReport(snapshot, stream, models, seconds, built, plan.full)


def _waiting_for_a_snapshot(extractor: Extractor, tables: Sequence[TableDef]) -> set[str]:
    """Selected tables whose snapshot is not finished after the cycle's retry (Oracle refused
    the read, or it read short: taken again next cycle); said in a WARNING: their replicas
    keep their last build."""
    states = extractor.checkpoint.tables
    waiting = {
        t.qualified_name
        for t in tables
        if t.qualified_name in states and states[t.qualified_name].status != "done"
    }
    if waiting:
        LOG.warning(
            "not built this cycle, waiting for their snapshot: %s (their replicas keep their "
            "last build)", ", ".join(sorted(waiting)),
        )  # fmt: skip
    return waiting


def _counters_behind(extractor: Extractor) -> bool:
    """True when the landing counters (``status.json``, as loaded) miss a batch the checkpoint
    handed out: the file was lost, or the process stopped between the checkpoint and the
    file. Which tables received batches is then unknown. Asked before the cycle lands:
    its own batches would raise the counters' last batch past the gap."""
    last_landed = extractor.stats.last_batch_id or 0
    return last_landed < extractor.checkpoint.next_batch_id - 1


def _full_build_reason(
    asked: bool, dbt: DbtSettings, data_dir: Path, counters_behind: bool = False
) -> str | None:
    if asked:
        return "full build (asked: --all)"
    since = cycles_since_full_build(data_dir)
    if since is None:
        return "full build (first sync cycle)"
    if counters_behind:
        return "full build (the landing counters missed a batch: status.json lost or stale)"
    if dbt.full_build_every and since + 1 >= dbt.full_build_every:
        return f"full build (every {dbt.full_build_every} cycles)"
    return None


def extract_and_land(
    extractor: Extractor, seconds: dict[str, float]
) -> tuple[SnapshotResult, StreamResult]:
    """The extraction part of a cycle: snapshot new tables, mine to the current SCN, land.
    Adds the time of the first snapshot and of the rest to ``seconds``."""
    started = time.monotonic()
    snapshot = _step("snapshot", extractor.snapshot)
    seconds["snapshot"] = time.monotonic() - started
    started = time.monotonic()
    stream = _step("stream", extractor.stream_once)
    if extractor.snapshot_pending():
        # Row-moving or key-changing DDL sent a table back to be snapshotted: do it now, so
        # that the replicas this cycle builds are exact, then stream on from the handover.
        snapshot = snapshot.then(_step("snapshot", extractor.snapshot))
        stream = stream.then(_step("stream", extractor.stream_once))
    seconds["extract+land"] = time.monotonic() - started
    return snapshot, stream


def _step(name: str, action: Any) -> Any:
    try:
        return action()
    except SyncStepError:
        raise
    except OracdcError as error:
        raise SyncStepError(name, str(error), fix=error.fix) from error


def first_dbt_failure(result: Any) -> tuple[str | None, str]:
    """(failing node, one-line reason) of a failed dbtRunner result: its exception, else the
    first node that errored or failed."""
    if result.exception is not None:
        return None, " ".join(str(result.exception).split())
    for node_result in getattr(result.result, "results", None) or []:
        status = str(getattr(node_result, "status", "")).lower()
        if status in ("error", "fail", "runstatus.error", "teststatus.fail"):
            node = getattr(node_result, "node", None)
            name = getattr(node, "name", None)
            message = " ".join(str(getattr(node_result, "message", "") or "").split())
            return name, message[:300] or status
    return None, "dbt reported failure"
