"""The landing layer's catalog calls: through the session's JVM against their SQL, per table.

    .venv/bin/python bench/catalog_bench.py [--tables 20] [--repeat 5]

Starts its own embedded Spark (local[2]), creates ``--tables`` staging-like tables (15
DECIMAL columns and the metadata columns), reads each once (so that a refresh has a cached
relation to drop), then times per table, best of ``--repeat``, in one run:

- ``refresh``: ``REFRESH TABLE`` against ``session_catalog.refresh_table`` (what a stream
  pass does for each table it landed in);
- ``location``: ``DESCRIBE TABLE EXTENDED`` against ``session_catalog.table_location``;
- ``columns``: ``spark.catalog.tableExists`` + ``spark.table(...).schema`` against
  ``session_catalog.table_columns``;
- ``columns+location``: both SQL lookups above against ``session_catalog.table_facts``, one
  read of the metastore: what the writer asks once per table and process (before
  2026-11-27, ``table_columns`` and ``table_location``: the sum of their two JVM times);
- ``create``: ``CREATE TABLE`` (a first start, for scale).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import BenchRun, format_table

SCHEMA = "bench_catalog"


def _best_ms(call: Callable[[str], object], tables: list[str], repeat: int) -> float:
    """Milliseconds a table, best of ``repeat`` passes over ``tables``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for table in tables:
            call(table)
        best = min(best, (time.perf_counter() - started) / len(tables))
    return best * 1000


def measure(spark: Any, count: int, repeat: int) -> list[dict[str, Any]]:
    from extractor.land import session_catalog

    columns = ", ".join(f"c{i} DECIMAL(38,10)" for i in range(15))
    columns += ", _op STRING, _scn BIGINT, _present ARRAY<STRING>"
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
    tables = [f"t{n}" for n in range(count)]
    started = time.perf_counter()
    for table in tables:
        spark.sql(f"CREATE TABLE {SCHEMA}.{table} ({columns}) USING PARQUET")
    create_ms = (time.perf_counter() - started) / count * 1000
    for table in tables:
        spark.sql(f"SELECT count(*) FROM {SCHEMA}.{table}").collect()

    def sql_columns(table: str) -> object:
        assert spark.catalog.tableExists(f"{SCHEMA}.{table}")
        return spark.table(f"{SCHEMA}.{table}").schema

    def sql_location(table: str) -> object:
        return spark.sql(f"DESCRIBE TABLE EXTENDED {SCHEMA}.{table}").collect()

    pairs: dict[str, tuple[Callable[[str], object], Callable[[str], object]]] = {
        "refresh": (
            lambda t: spark.sql(f"REFRESH TABLE {SCHEMA}.{t}"),
            lambda t: session_catalog.refresh_table(spark, SCHEMA, t),
        ),
        "location": (sql_location, lambda t: session_catalog.table_location(spark, SCHEMA, t)),
        "columns": (sql_columns, lambda t: session_catalog.table_columns(spark, SCHEMA, t)),
        "columns+location": (
            lambda t: (sql_columns(t), sql_location(t)),
            lambda t: session_catalog.table_facts(spark, SCHEMA, t),
        ),
    }
    rows = []
    for call, (through_sql, through_jvm) in pairs.items():
        sql_ms = _best_ms(through_sql, tables, repeat)
        jvm_ms = _best_ms(through_jvm, tables, repeat)
        rows.append(
            {"call": call, "sql_ms": round(sql_ms, 2), "jvm_ms": round(jvm_ms, 2),
             "sql_over_jvm": round(sql_ms / jvm_ms, 1)}
        )  # fmt: skip
    rows.append({"call": "create", "sql_ms": round(create_ms, 1), "jvm_ms": None})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    from extractor.lakehouse.spark_session import SparkSettings, get_spark

    run = BenchRun("catalog", {"tables": args.tables, "repeat": args.repeat})
    with tempfile.TemporaryDirectory(prefix="oracdc-catalog-bench-") as work:
        spark = get_spark(SparkSettings(data_dir=Path(work)))
        spark.sql("SELECT 1").collect()  # JVM warm before the clock starts
        for row in measure(spark, args.tables, args.repeat):
            run.add(**row)
        spark.stop()
    print(format_table(run.rows, ["call", "sql_ms", "jvm_ms", "sql_over_jvm", "load_1m"]))
    print(f"results: {run.save()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
