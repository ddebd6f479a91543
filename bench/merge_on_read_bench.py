"""What a merge-on-read replica would cost: a measurement for a design decision, not a feature.

The replica models rewrite whole buckets (copy-on-write), so a 1% change spread over a
table rewrites all of it (docs/performance.md section 2). A merge-on-read layout would keep
a small "recent" table (the latest version of every key changed since the last compaction,
deletes as tombstones) over the bucketed base, and serve the replica as a view. This
measures, on the state ``consolidation_bench`` leaves (a replica and its staging table,
the last change batch consolidated):

1. building "recent" for the last batch with the replica model's own compiled incremental
   query, cut after its ``bucketed`` step: once reading the base rows of the touched keys
   (needed to merge partial images), once from the changes alone (full images);
2. reading the replica directly and through the view (``count(*)`` and a hash of every
   column, in both orders), checking that both serve the same rows;
3. a full rebuild (``dbt run --full-refresh``), the yardstick.

    .venv/bin/python bench/merge_on_read_bench.py --rows 10M --fraction 0.01
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import consolidation_bench as cb
from _common import BenchRun, format_table, parse_counts

RECENT = "bench_mor_recent"
RECENT_FULL_IMAGES = "bench_mor_recent_full_images"


def recent_queries(compiled: str, replica: str) -> tuple[str, str]:
    """(with base rows, full images only) queries of the "recent" table, from the model's
    compiled incremental SQL with its watermark moved back by one batch."""
    batches = re.search(r"where _batch_id > (-?\d+) and _batch_id <= (-?\d+)", compiled)
    replica_scan = "from current_rows as replica\n"
    if batches is None or replica_scan not in compiled:
        raise RuntimeError("the compiled model is not the incremental consolidation query")
    watermark = int(batches.group(1))
    query = compiled.replace(
        batches.group(0), f"where _batch_id > {watermark - 1} and _batch_id <= {batches.group(2)}"
    )
    query = query.replace(
        f"staged._batch_id <= {watermark}", f"staged._batch_id <= {watermark - 1}"
    )
    # the touched buckets the run named were the last batch's: take them from the query instead
    query = re.sub(
        r"replica\._bucket in \([^)]*\)",
        "replica._bucket in (select touched._bucket from touched_keys as touched)",
        query,
    )
    start = query.index("bucketed as (")
    with_base = query[: query.index("\n),", start)] + "\n)\nselect * from bucketed"
    full_images = with_base.replace(
        replica_scan, "from (select * from current_rows where false) as replica\n"
    )
    return with_base, full_images


def view_columns(spark: Any, replica: str) -> str:
    """The replica's columns but ``_deleted`` (a merge-on-read view serves no deleted row)."""
    return ", ".join(f"`{c}`" for c in spark.table(replica).columns if c != "_deleted")


def view_query(columns: str, replica: str, key: str) -> str:
    """The replica as a merge-on-read view: recent rows that are not deletes, plus the base
    rows whose key is not in recent."""
    return (
        f"select {columns} from {RECENT} where _op <> 'd' union all "
        f"select {columns} from {replica} as base where not exists "
        f"(select 1 from {RECENT} as recent where recent.`{key}` <=> base.`{key}`)"
    )


def measure_merge_on_read(
    spark: Any, project: Path, setting: cb.BucketSetting
) -> list[dict[str, Any]]:
    """The steps above, each timed; raises when the view does not serve the replica's rows
    (same count and same hash sum over every column). ``ratio_to_rebuild`` compares each
    step with the rebuild's ``dbt run``; the builds of "recent" run as bare Spark SQL, so
    ``ratio_with_dbt`` adds the time of a ``dbt compile`` of the model (dbt's own start,
    parse and introspection queries), which a real model run of "recent" would pay too."""
    from extractor.lakehouse.dbt_runner import run_dbt

    replica = f"{cb.REPLICA_SCHEMA}.{cb.MODEL}"
    started = time.perf_counter()
    compiled_run = run_dbt(
        ["compile", "--select", cb.MODEL],
        project_dir=project,
        profiles_dir=project,
        variables=setting.variables(),
    )
    dbt_overhead = time.perf_counter() - started
    if not compiled_run.success:
        raise RuntimeError(f"dbt compile failed: {compiled_run.exception}")
    compiled = next(project.glob(f"target/compiled/**/{cb.MODEL}.sql")).read_text(encoding="utf-8")
    with_base, full_images = recent_queries(compiled, replica)
    results: list[dict[str, Any]] = [{"step": "dbt compile", "seconds": round(dbt_overhead, 2)}]

    def timed(step: str, sql: str) -> Any:
        started = time.perf_counter()
        rows: list[Any] = spark.sql(sql).collect()
        results.append({"step": step, "seconds": round(time.perf_counter() - started, 2)})
        return rows[0][0] if rows else None

    for table in (RECENT, RECENT_FULL_IMAGES):
        spark.sql(f"drop table if exists {table}")
    timed("recent, with base rows", f"create table {RECENT} using parquet as {with_base}")
    timed(
        "recent, full images only",
        f"create table {RECENT_FULL_IMAGES} using parquet as {full_images}",
    )
    columns = view_columns(spark, replica)
    view = view_query(columns, replica, cb.TABLE.primary_key[0].lower())
    reads = {
        "replica": (
            f"select count(*) from {replica}",
            f"select sum(hash({columns})) from {replica}",
        ),
        "view": (f"select count(*) from ({view})", f"select sum(hash({columns})) from ({view})"),
    }
    seen: dict[str, set[Any]] = {"replica": set(), "view": set()}
    for order in (("replica", "view"), ("view", "replica")):  # neither always reads warm
        for name in order:
            count_sql, hash_sql = reads[name]
            seen[name].add(
                (timed(f"count, {name}", count_sql), timed(f"every column, {name}", hash_sql))
            )
    if seen["view"] != seen["replica"] or len(seen["replica"]) != 1:
        raise RuntimeError(f"the view serves {seen['view']}, the replica holds {seen['replica']}")
    rebuild = cb.dbt_run(project, setting, full_refresh=True)
    results.append({"step": "full rebuild", "seconds": round(rebuild, 2)})
    for row in results:
        row["ratio_to_rebuild"] = round(row["seconds"] / rebuild, 3)
        if row["step"].startswith("recent"):
            row["ratio_with_dbt"] = round((row["seconds"] + dbt_overhead) / rebuild, 3)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1M", help="replica size")
    parser.add_argument("--fraction", type=float, default=0.01, help="changes of the last batch")
    parser.add_argument("--buckets", type=int, default=16, help="hash buckets of the replica")
    parser.add_argument("--work-dir", type=Path, help="keep the Spark data here (default tmp)")
    args = parser.parse_args(argv)
    rows = parse_counts(args.rows)[0]
    run = BenchRun("merge_on_read", vars(args))
    with tempfile.TemporaryDirectory(prefix="oracdc-mor-bench-") as tmp:
        spark, project = cb.open_workspace((args.work_dir or Path(tmp)).resolve())
        setting = cb.BucketSetting("hash", args.buckets)
        for row in cb.measure(spark, project, rows, setting, [args.fraction], "run"):
            run.add(**{k: v for k, v in row.items() if k in ("step", "dbt_s", "full_rebuild_s")})
        for row in measure_merge_on_read(spark, project, setting):
            run.add(rows=rows, changes=int(rows * args.fraction), **row)
    columns = ["step", "dbt_s", "full_rebuild_s", "seconds", "ratio_to_rebuild", "ratio_with_dbt"]
    columns += ["load_1m"]
    print(format_table(run.rows, [*columns, "cpu_probe_s"]))
    print(f"results: {run.save()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
