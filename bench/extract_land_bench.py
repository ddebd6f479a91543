"""Extract + land throughput: a recorded replay bundle into the Spark staging tables.

    .venv/bin/python bench/extract_land_bench.py --rows 100k,1M [--repeat 2] [--tables 5]
        [--parsers compiled,python] [--landings auto,spark] [--readers process,inline]
        [--starts first,second]

For each row count: a simulated workload over ``--tables`` tables is recorded once as a
replay bundle under ``bench/results/bundles/`` (reused by later runs; generation and
recording are not timed), then a fresh child process (one JVM at a time) opens the pipeline
on the bundle exactly as ``oracdc stream --once`` would (``open_runtime`` on a ``replay``
source, ``Extractor.snapshot`` then ``Extractor.stream_once``) and times the phases:

- ``read``: every call into the source (loading and decoding the bundle, serving rows);
- ``parse+type``: ``ChangeBuilder.build`` (SQL_REDO parsing, value typing, change rows);
- ``arrow``: ``change_batch`` (change rows to an Arrow table);
- ``spark``: ``StagingWriter.append`` (Arrow into the Parquet staging table: a file written
  by pyarrow, or a Spark append);
- ``assemble+loop``: the rest of ``stream_once``: CSF joining, transaction assembly,
  checkpoints and stats.

Each measurement runs once per ``--parsers`` entry: ``compiled`` (the C extension, when
built) and ``python`` (``ORACDC_PARSER=python``, the pure-Python reference), in the same run.
``--landings`` does the same for ``spark.landing`` (``auto``: Parquet files written by
pyarrow; ``spark``: appends through Spark). The I/O floor is what pyarrow alone needs for the
same bundle: read ``logminer.jsonl`` and write it as one Parquet file (``io_floor_s``);
``vs_floor`` is our total over it.

Peak RSS is the Python process's (VmHWM; the JVM is another process), so the 100k
and 1M runs show whether memory grows with rows; ``mining_rss_mb`` is the mining process's
(``--readers process``, read before it stops).

``--readers`` measures each ``mining.reader``: ``process`` (a mining process reads windows
and assembles transactions; its time is not in any phase: ``read`` is then what this process
asks of the bundle, its snapshot and index, and ``assemble+loop`` includes the waits for the
mining process) and ``inline``.

``--starts`` measures a ``first`` start (the staging tables are created in the measurement)
and a ``second`` one: a child process replicates the bundle untimed, its
``checkpoint.json`` is moved aside (what docs/extraction.md gives to replicate every table
again), and a new child, with its own JVM, replicates it again into the tables that exist.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import (
    RESULTS_DIR,
    BenchRun,
    PhaseTimer,
    TimedSource,
    child_peak_rss_mb,
    current_rss_mb,
    format_table,
    instrumented,
    parse_counts,
    peak_rss_mb,
    rate,
)

TARGET_ROWS_PER_S = 50_000
PHASES = ("read", "assemble+loop", "parse+type", "arrow", "spark")
STARTS = ("first", "second")  # the staging tables created in the measurement, or there before
_WORKLOAD_CHUNK = 2_000  # transactions per WorkloadRunner.run call while recording


def bundle_dir(rows: int, tables: int, seed: int, root: Path = RESULTS_DIR) -> Path:
    return root / "bundles" / f"extract-{rows}-t{tables}-s{seed}"


def record(rows: int, tables: int, seed: int, out: Path) -> dict[str, Any]:
    """Record a workload of at least ``rows`` DML rows as a bundle in ``out`` (once)."""
    meta_path = out / "bench-meta.json"
    if meta_path.exists():
        meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        return meta
    from extractor.sim.database import SimDatabase
    from extractor.sim.workload import WorkloadRunner, WorkloadSpec
    from extractor.source.replay.recorder import record_bundle

    started = time.perf_counter()
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(tables=tables, seed=seed, open_at_end=0))
    runner.create_tables()
    while runner.dml_rows < rows:
        runner.run(min(_WORKLOAD_CHUNK, max(1, (rows - runner.dml_rows) // 4)))
    runner.close_all()
    shutil.rmtree(out, ignore_errors=True)
    record_bundle(db, out)
    meta = {
        "dml_rows": runner.dml_rows,
        "committed": runner.committed,
        "rolled_back": runner.rolled_back,
        "record_seconds": round(time.perf_counter() - started, 1),
        "bundle_bytes": sum(p.stat().st_size for p in out.iterdir()),
    }
    meta_path.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    return meta


def measure(
    bundle: Path,
    work: Path,
    *,
    profile: Path | None = None,
    landing: str = "auto",
    reader: str = "inline",
    start: str = "first",
) -> dict[str, Any]:
    """Stream the whole bundle into the staging tables under ``work``: fresh ones on a
    ``first`` start; on a ``second`` those a run before left there, its checkpoint moved
    aside. Phase seconds."""
    from extractor.config import config_from_mapping
    from extractor.lakehouse.spark_session import get_spark
    from extractor.parse import implementation
    from extractor.pipeline.runtime import open_runtime, spark_settings
    from extractor.source.factory import open_source
    from extractor.state.checkpoint import CHECKPOINT_FILE

    config = config_from_mapping(
        {
            "source": {"kind": "replay", "path": str(bundle)},
            "tables": ["SIM.*"],
            "data_dir": str(work / "data"),
            "staging_schema": "bench_staging",
            "spark": {"landing": landing},
            "mining": {"reader": reader},
        },
        base_dir=work,
    )
    if start == "second":
        checkpoint = config.data_dir / CHECKPOINT_FILE
        if not checkpoint.exists():
            raise RuntimeError(f"a second start needs a run before it in {work}")
        checkpoint.rename(checkpoint.with_name(f"{CHECKPOINT_FILE}.aside"))
    timer = PhaseTimer()
    spark = get_spark(spark_settings(config))
    spark.sql("select 1").collect()  # JVM warm before the clock starts
    rss_before = current_rss_mb()
    source = TimedSource(open_source(config.source), timer)
    with open_runtime(config, source=source, spark=spark) as runtime:
        extractor = runtime.extractor
        landed_before = extractor.writer.max_batch_id() or 0  # a second start's first run
        with instrumented(extractor, timer):
            started = time.perf_counter()
            extractor.snapshot()  # no snapshot files: marks the tables done, loads the bundle
            snapshot_seconds = time.perf_counter() - started
            profiler = None
            if profile is not None:
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
            started = time.perf_counter()
            result = extractor.stream_once()
            total = time.perf_counter() - started + snapshot_seconds
            mining_rss = child_peak_rss_mb("extractor.assemble.mining_process")
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(str(profile))
            landed = sum(
                spark.table(extractor.writer.staging_table(extractor.registry.staging_def(t)))
                .where("_op <> 't'")  # each snapshot also lands one reset marker
                .where(f"_batch_id > {landed_before}")
                .count()
                for t in extractor.registry.resolve()
            )
    measured = [name for name in PHASES if name != "assemble+loop"]
    phases = {name: round(timer.seconds.get(name, 0.0), 2) for name in measured}
    phases["assemble+loop"] = round(total - sum(phases.values()), 2)
    return {
        "change_rows": result.change_rows,
        "landed_rows": landed,
        "transactions": result.transactions,
        "windows": result.windows,
        "snapshot_s": round(snapshot_seconds, 2),
        "total_s": round(total, 2),
        "rows_per_s": round(rate(result.change_rows, total)),
        **{f"{name}_s": phases[name] for name in PHASES},
        "rss_before_mb": round(rss_before),
        "parser": "compiled" if implementation.compiled else "python",
        "landing": landing,
        "reader": reader,
        "start": start,
        "peak_rss_mb": round(peak_rss_mb()),
        "mining_rss_mb": round(mining_rss),
    }


def io_floor_seconds(bundle: Path) -> float:
    """pyarrow reads the bundle's ``logminer.jsonl`` and writes it as Parquet: the least any
    extractor of this bundle must spend (best of 2)."""
    import pyarrow.json as pa_json
    import pyarrow.parquet as pq

    best = float("inf")
    with tempfile.TemporaryDirectory(prefix="oracdc-io-floor-") as work:
        for _ in range(2):
            started = time.perf_counter()
            table = pa_json.read_json(bundle / "logminer.jsonl")
            pq.write_table(table, Path(work) / "floor.parquet")
            best = min(best, time.perf_counter() - started)
            del table
    return best


def run_child(
    rows: int,
    tables: int,
    seed: int,
    profile: Path | None,
    parser: str = "compiled",
    landing: str = "auto",
    reader: str = "inline",
    bundles: Path = RESULTS_DIR,
    start: str = "first",
) -> dict[str, Any]:
    """One measurement in a fresh Python process (its own peak RSS, its own JVM), of the
    bundle recorded under ``bundles``; a ``second`` start is measured after a first one,
    untimed, in another process on the same work directory."""
    command = [sys.executable, __file__, "--child", "--rows", str(rows), "--tables", str(tables)]
    command += ["--seed", str(seed), "--landings", landing, "--readers", reader]
    command += ["--bundles", str(bundles)]
    environment = {**os.environ, "ORACDC_PARSER": parser}
    with tempfile.TemporaryDirectory(prefix="oracdc-extract-bench-") as work:
        command += ["--work", work]
        if start == "second":
            _child_result(command, environment)
            command += ["--starts", "second"]
        if profile is not None:
            command += ["--profile", str(profile)]
        return _child_result(command, environment)


def _child_result(command: list[str], environment: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    if done.returncode != 0:
        raise RuntimeError(f"child run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    last = done.stdout.strip().splitlines()[-1]
    result: dict[str, Any] = json.loads(last)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100k,1M", help="DML rows per bundle, comma list")
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1, help="measurements per row count")
    parser.add_argument("--profile", type=Path, help="cProfile stats file of the stream phase")
    parser.add_argument("--bundles", type=Path, default=RESULTS_DIR, help="bundle cache root")
    parser.add_argument("--record-only", action="store_true", help="record bundles, no runs")
    parser.add_argument(
        "--parsers", default="compiled,python", help="parser implementations to measure"
    )
    parser.add_argument(
        "--landings", default="auto", help="spark.landing modes to measure (auto,spark)"
    )
    parser.add_argument(
        "--readers",
        default="process,inline",
        help="mining.reader modes to measure (process: a mining process reads and assembles)",
    )
    parser.add_argument(
        "--starts",
        default="first",
        help="first: the staging tables created in the run; second: they exist (first,second)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)  # a child's work directory
    args = parser.parse_args(argv)
    counts = parse_counts(args.rows)
    unknown_starts = set(args.starts.split(",")) - set(STARTS)
    if unknown_starts:
        parser.error(f"--starts takes {', '.join(STARTS)}, not {', '.join(sorted(unknown_starts))}")
    if args.child:
        bundle = bundle_dir(counts[0], args.tables, args.seed, args.bundles)
        with contextlib.ExitStack() as stack:
            work = args.work or Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="oracdc-extract-bench-"))
            )
            measured = measure(
                bundle, work, profile=args.profile, landing=args.landings.split(",")[0],
                reader=args.readers.split(",")[0], start=args.starts.split(",")[0],
            )  # fmt: skip
            print(json.dumps(measured))
        return 0
    run = BenchRun("extract_land", vars(args))
    for rows in counts:
        bundle = bundle_dir(rows, args.tables, args.seed, args.bundles)
        print(f"recording (or reusing) bundle of {rows:,} DML rows in {bundle}", flush=True)
        meta = record(rows, args.tables, args.seed, bundle)
        if args.record_only:
            print(meta)
            continue
        floor = io_floor_seconds(bundle)
        for attempt in range(1, args.repeat + 1):
            variants = [
                (parser_name, landing, reader, start)
                for start in args.starts.split(",")
                for reader in args.readers.split(",")
                for landing in args.landings.split(",")
                for parser_name in args.parsers.split(",")
            ]
            for parser_name, landing, reader, start in variants:
                measured = run_child(
                    rows, args.tables, args.seed, args.profile, parser_name, landing, reader,
                    args.bundles, start,
                )  # fmt: skip
                if measured["landed_rows"] != measured["change_rows"]:
                    raise RuntimeError(f"landed rows differ from change rows: {measured}")
                vs_floor = round(measured["total_s"] / floor, 1)
                row = run.add(
                    rows=rows, run=attempt, **meta, **measured, io_floor_s=round(floor, 2),
                    vs_floor=vs_floor,
                )  # fmt: skip
                shown = ["rows", "run", "parser", "landing", "reader", "start", "rows_per_s"]
                shown += ["peak_rss_mb", "mining_rss_mb"]
                print(format_table([row], shown), flush=True)
    columns = ["rows", "run", "parser", "landing", "reader", "start", "change_rows", "total_s"]
    columns += ["rows_per_s"]
    columns += [f"{name}_s" for name in PHASES] + ["io_floor_s", "vs_floor"]
    columns += ["peak_rss_mb", "mining_rss_mb", "load_1m", "cpu_probe_s"]
    print(format_table(run.rows, columns))
    best = max((r["rows_per_s"] for r in run.rows), default=0)
    print(f"target {TARGET_ROWS_PER_S:,} rows/s; best {best:,} rows/s")
    print(f"results: {run.save(args.bundles if args.bundles != RESULTS_DIR else RESULTS_DIR)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
