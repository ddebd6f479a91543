"""Sync cycle: wall time of one ``oracdc sync --once`` cycle (``run_cycle``) over 5 tables.

    .venv/bin/python bench/sync_bench.py --rows 100k [--repeat 2] [--tables 5]

A simulated Oracle runs the demo workload over ``--tables`` tables. An initial cycle
(snapshot of the first ``--initial`` transactions' rows, first ``dbt build``) is run and
reported but is not the measurement. Then, per repetition, the workload issues ``--rows``
more DML rows (not timed) and one ``run_cycle`` applies them, timed and split into:

- ``extract``: mining the simulator (``read``), joining, assembling, parsing and typing;
- ``land``: Arrow conversion and the Spark appends to the staging tables;
- ``generate``: dbt model files for new tables (none after the first cycle);
- ``dbt``: the in-process ``dbt build`` of what changed (every replica after a loaded cycle:
  the workload changes every table; nothing in an idle cycle).

Then ``--idle`` cycles with nothing new are timed the same way. Targets: the loaded cycle
under 60 s on this machine; an idle cycle at most a quarter of the loaded one; with
``--tables 50``, an idle cycle under 10 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import (
    BenchRun,
    PhaseTimer,
    TimedSource,
    format_table,
    instrumented,
    parse_counts,
    peak_rss_mb,
    rate,
)

TARGET_SECONDS = 60.0
IDLE_TARGET_RATIO = 0.25  # an idle cycle against one with --rows changes
IDLE_TARGET_SECONDS_50_TABLES = 10.0
_WORKLOAD_CHUNK = 2_000


def make_config(project: Path) -> Any:
    from extractor.config import config_from_mapping

    return config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": "bench_sync_staging",
            "dbt": {"project_dir": "."},
        },
        base_dir=project,
    )


def prepare_project(project: Path, tables: int = 5) -> None:
    """The demo's dbt project; without its example view unless the tables are the demo's 5
    (the view refers to two of them)."""
    import shutil

    from extractor.demo import prepare_work_dir
    from extractor.lakehouse.dbt_runner import run_dbt

    prepare_work_dir(project)
    if tables != 5:
        shutil.rmtree(project / "models" / "views", ignore_errors=True)
    os.environ["ORACDC_DBT_SCHEMA"] = "bench_sync"
    deps = run_dbt(["deps"], project_dir=project, profiles_dir=project)
    if not deps.success:
        raise RuntimeError(f"dbt deps failed: {deps.exception}")


def grow(runner: Any, rows: int) -> int:
    """Run the workload until it has issued ``rows`` more DML rows; returns the rows issued."""
    start = runner.dml_rows
    while runner.dml_rows - start < rows:
        runner.run(min(_WORKLOAD_CHUNK, max(1, (rows - (runner.dml_rows - start)) // 4)))
    return int(runner.dml_rows - start)


def timed_cycle(spark: Any, config: Any, db: Any, dbt: Any) -> dict[str, Any]:
    """One run_cycle on a fresh runtime (as ``oracdc sync --once`` runs it), phases split."""
    from extractor.pipeline.runtime import open_runtime
    from extractor.pipeline.sync import run_cycle
    from extractor.source.factory import open_source

    timer = PhaseTimer()
    source = TimedSource(open_source({"kind": "sim", "database": db}), timer)
    started = time.perf_counter()
    with (
        open_runtime(config, source=source, spark=spark) as runtime,
        instrumented(runtime.extractor, timer),
    ):
        report = run_cycle(runtime, dbt)
    total = time.perf_counter() - started
    land = timer.seconds.get("arrow", 0.0) + timer.seconds.get("spark", 0.0)
    extract_and_land = report.seconds["snapshot"] + report.seconds["extract+land"]
    rows = report.snapshot.rows + report.stream.change_rows
    return {
        "snapshot_rows": report.snapshot.rows,
        "change_rows": report.stream.change_rows,
        "transactions": report.stream.transactions,
        "cycle_s": round(total, 1),
        "extract_s": round(extract_and_land - land, 1),
        "read_s": round(timer.seconds.get("read", 0.0), 1),
        "parse_s": round(timer.seconds.get("parse+type", 0.0), 1),
        "land_s": round(land, 1),
        "generate_s": round(report.seconds["generate"], 1),
        "dbt_s": round(report.seconds["dbt"], 1),
        "setup_s": round(total - sum(report.seconds.values()), 1),
        "rows_per_s_to_staging": round(rate(rows, extract_and_land)),
        "peak_rss_mb": round(peak_rss_mb()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100k", help="DML rows applied by a measured cycle")
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--initial", type=int, default=2_000, help="transactions before 1st cycle")
    parser.add_argument("--repeat", type=int, default=2, help="measured cycles")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--idle", type=int, default=2, help="cycles with nothing new, timed")
    parser.add_argument("--work-dir", type=Path, help="keep the project and data here")
    args = parser.parse_args(argv)
    rows = parse_counts(args.rows)[0]
    run = BenchRun("sync", vars(args))
    from extractor.lakehouse.spark_session import get_spark
    from extractor.pipeline.runtime import spark_settings
    from extractor.pipeline.sync import dbt_settings
    from extractor.sim.database import SimDatabase
    from extractor.sim.workload import WorkloadRunner, WorkloadSpec

    with tempfile.TemporaryDirectory(prefix="oracdc-sync-bench-") as tmp:
        project = (args.work_dir or Path(tmp)).resolve() / "project"
        prepare_project(project, args.tables)
        config = make_config(project)
        dbt = dbt_settings(config)
        spark = get_spark(spark_settings(config))
        db = SimDatabase()
        runner = WorkloadRunner(db, WorkloadSpec(tables=args.tables, seed=args.seed))
        runner.run(args.initial)
        row = run.add(
            cycle="initial", dml_rows=runner.dml_rows, **timed_cycle(spark, config, db, dbt)
        )
        print(format_table([row], list(row)), flush=True)
        for attempt in range(1, args.repeat + 1):
            started = time.perf_counter()
            issued = grow(runner, rows)
            workload_s = round(time.perf_counter() - started, 1)
            measured = timed_cycle(spark, config, db, dbt)
            row = run.add(cycle=attempt, dml_rows=issued, workload_s=workload_s, **measured)
            print(format_table([row], list(row)), flush=True)
        loaded = min(
            (float(r["cycle_s"]) for r in run.rows if r["cycle"] != "initial"), default=None
        )
        for attempt in range(1, args.idle + 1):
            row = run.add(
                cycle=f"idle {attempt}", dml_rows=0, **timed_cycle(spark, config, db, dbt)
            )
            print(format_table([row], list(row)), flush=True)
    columns = ["cycle", "dml_rows", "change_rows", "cycle_s", "extract_s", "read_s", "parse_s"]
    columns += ["land_s", "dbt_s", "setup_s", "peak_rss_mb", "load_1m", "cpu_probe_s"]
    print(format_table(run.rows, columns))
    print(f"target: a cycle under {TARGET_SECONDS:.0f} s")
    idle = [float(r["cycle_s"]) for r in run.rows if str(r["cycle"]).startswith("idle")]
    if idle and loaded:
        print(
            f"idle cycle: {min(idle):.1f} s, {min(idle) / loaded:.2f} of the fastest loaded cycle "
            f"({loaded:.1f} s; target <= {IDLE_TARGET_RATIO}); with {args.tables} tables "
            f"(target with 50: under {IDLE_TARGET_SECONDS_50_TABLES:.0f} s)"
        )
    print(f"results: {run.save()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
