"""The differential harness: random simulated workloads through the whole pipeline (extractor,
staging, dbt) with crashes injected at random points, then every replica compared row by row
and column by column with the simulator's committed state at the SCN the replica is at.

Used by ``test_harness.py`` (a fixed set of seeds in CI); ``ORACDC_HARNESS_SEEDS=N`` runs N
more seeds (``ORACDC_HARNESS_SEEDS=1000`` for a long run).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extractor.config import OracdcConfig, config_from_mapping
from extractor.demo import prepare_work_dir
from extractor.land.checkpoint import CHECKPOINT_FILE
from extractor.land.spark_session import run_dbt
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.base import Source
from extractor.source.factory import open_source
from extractor.verify.compare import TableComparison, compare_table

FAULT_POINTS = (
    "snapshot:after_land",
    "stream:after_land_table",
    "stream:before_checkpoint",
    "stream:after_checkpoint",
)


class InjectedCrash(Exception):
    """A crash the harness injected."""


@dataclass(frozen=True)
class HarnessCase:
    seed: int
    tables: int = 5  # 5: the demo tables (every type and logging level); more: random tables
    cycles: int = 3
    transactions_per_cycle: int = 120
    # After a cycle, at this rate: checkpoint.json moved aside, then a recovery cycle at once
    # (re-snapshot; batch ids continue above staging's). Its own random stream: the crash
    # points of a seed stay what they were.
    checkpoint_loss_ratio: float = 0.35


@dataclass
class HarnessOutcome:
    case: HarnessCase
    crashes: list[str]
    comparisons: list[TableComparison]

    @property
    def passed(self) -> bool:
        return all(c.matches for c in self.comparisons)

    def describe(self) -> str:
        lines = [f"seed {self.case.seed} ({self.case}); crashes injected at {self.crashes}"]
        for comparison in self.comparisons:
            if not comparison.matches:
                lines.append(
                    f"  {comparison.table}: missing {comparison.missing}, extra "
                    f"{comparison.extra}, changed {comparison.changed}"
                )
                lines += [f"    {example}" for example in comparison.examples[:5]]
        return "\n".join(lines)


def extra_seeds() -> list[int]:
    count = int(os.environ.get("ORACDC_HARNESS_SEEDS", "0"))
    return list(range(1000, 1000 + count))


def run_case(spark: Any, work_root: Path, case: HarnessCase) -> HarnessOutcome:
    rng = random.Random(case.seed)
    # Half the seeds: XID sequence FFFFFFFF on the end rows of transactions spanning mining
    # sessions (production Oracle), with small windows so that many do. Own random stream.
    partial_xid_rate = random.Random(f"ffffffff-{case.seed}").choice((0.0, 0.5))
    # Half the seeds: RAC, two instances each writing its own redo thread. Own random stream.
    threads = random.Random(f"rac-{case.seed}").choice((1, 2))
    db = SimDatabase(partial_xid_rate=partial_xid_rate, partial_xid_seed=case.seed, threads=threads)
    # Half the seeds: redo trails the current SCN (LGWR not yet written) until a log switch.
    db.redo_write_lag_scns = random.Random(f"redo-lag-{case.seed}").choice((0, 25))
    # Half the seeds: row-moving DDL (MOVE / SHRINK SPACE: re-snapshots) and TRUNCATEs.
    ddl_ratio = random.Random(f"row-moving-ddl-{case.seed}").choice((0.0, 0.01))
    spec = WorkloadSpec(
        tables=case.tables,
        seed=case.seed,
        rollback_ratio=0.05,
        savepoint_rollback_ratio=0.05,
        pk_update_ratio=0.05,
        delete_ratio=0.15,
        long_value_ratio=0.03,
        interleave=6,
        add_column_at=case.transactions_per_cycle + case.transactions_per_cycle // 2,
        max_statements=5,
        key_shift_ratio=0.15,  # `set id = id + 1` and key swaps over several rows
        row_move_ratio=ddl_ratio,
        truncate_ratio=ddl_ratio / 2,
    )
    workload = WorkloadRunner(db, spec)
    workload.run(case.transactions_per_cycle)
    work_dir = work_root / f"seed{case.seed}"
    config = _project(work_dir, case, small_windows=partial_xid_rate > 0)
    dbt = dbt_settings(config)
    crashes: list[str] = []
    loss_rng = random.Random(f"checkpoint-loss-{case.seed}")
    for cycle in range(case.cycles + 1):
        point = rng.choice(FAULT_POINTS) if cycle < case.cycles and rng.random() < 0.7 else None
        _cycle_with_restart(spark, config, db, dbt, point, crashes)
        if cycle < case.cycles and loss_rng.random() < case.checkpoint_loss_ratio:
            _lose_checkpoint(config, crashes)
            point = loss_rng.choice(FAULT_POINTS) if loss_rng.random() < 0.5 else None
            _cycle_with_restart(spark, config, db, dbt, point, crashes)
        if cycle < case.cycles:
            workload.run(case.transactions_per_cycle)
    with open_runtime(config, source=_source(db), spark=spark) as runtime:
        scn = runtime.extractor.checkpoint.mined_to_scn
        assert scn is not None
        comparisons = [
            compare_table(table, runtime.source, spark, _replica_schema(case), scn)
            for table in runtime.extractor.registry.resolve()
        ]
    return HarnessOutcome(case, crashes, comparisons)


def _cycle_with_restart(
    spark: Any, config: OracdcConfig, db: SimDatabase, dbt: Any, point: str | None,
    crashes: list[str],
) -> None:  # fmt: skip
    fired: list[str] = []

    def fault(at: str) -> None:
        if at == point and not fired:
            fired.append(at)
            crashes.append(at)
            raise InjectedCrash(at)

    try:
        with open_runtime(config, source=_source(db), spark=spark, fault=fault) as runtime:
            run_cycle(runtime, dbt)
    except InjectedCrash:
        # The process "died": a new one starts from the checkpoint and completes the cycle.
        with open_runtime(config, source=_source(db), spark=spark) as runtime:
            run_cycle(runtime, dbt)


def _lose_checkpoint(config: OracdcConfig, crashes: list[str]) -> None:
    """Move checkpoint.json aside, as its error message advises for a damaged one. Done right
    after a cycle: keys deleted between the last landing and the re-snapshot would stay in the
    replicas until re-snapshots retire them (docs/extraction.md, "Checkpoint and crashes")."""
    checkpoint = config.data_dir / CHECKPOINT_FILE
    checkpoint.rename(checkpoint.with_name(f"{CHECKPOINT_FILE}.lost{len(crashes)}"))
    crashes.append("checkpoint moved aside")


def _source(db: SimDatabase) -> Source:
    return open_source({"kind": "sim", "database": db})


def _replica_schema(case: HarnessCase) -> str:
    return f"harness_{case.seed}"


def _project(work_dir: Path, case: HarnessCase, *, small_windows: bool = False) -> OracdcConfig:
    prepare_work_dir(work_dir)
    if case.tables != 5:
        shutil.rmtree(work_dir / "models" / "views", ignore_errors=True)
    os.environ["ORACDC_DBT_SCHEMA"] = _replica_schema(case)
    config = config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": f"harness_{case.seed}_staging",
            "snapshot_batch_rows": 40,
            "memory_budget_mb": 1,
            "dbt": {"project_dir": "."},
            **(
                {"mining": {"window_scns": 100, "min_window_scns": 100, "max_window_scns": 200}}
                if small_windows
                else {}
            ),
        },
        base_dir=work_dir,
    )
    deps = run_dbt(["deps"], project_dir=work_dir, profiles_dir=work_dir)
    assert deps.success, deps.exception
    return config


Runner = Callable[[Any, Path, HarnessCase], HarnessOutcome]
