"""The pipeline benchmarks run end to end on tiny inputs (so they cannot rot).

Each test drives a benchmark's own measuring function through the same code path as its
CLI and checks that the numbers are sane (counts that match the input, phases that add up),
never that they are fast.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import _common
import catalog_bench
import consolidation_bench
import extract_land_bench
import sync_bench


def test_counts_accept_k_and_m_suffixes() -> None:
    assert _common.parse_counts("100k,1M,2_500") == [100_000, 1_000_000, 2_500]


def test_saved_results_carry_rows_machine_and_load_average(tmp_path: Path) -> None:
    run = _common.BenchRun("smoke", {"rows": 3})
    run.add(rows=3, seconds=0.5)
    saved = json.loads(run.save(tmp_path).read_text(encoding="utf-8"))
    assert saved["rows"][0]["rows"] == 3
    assert "load_1m" in saved["rows"][0]
    assert saved["rows"][0]["cpu_probe_s"] > 0
    assert len(saved["load_average_start"]) == 3
    assert saved["machine"]["cpus"] >= 1


def test_table_aligns_every_column_under_its_header() -> None:
    text = _common.format_table([{"a": 1, "b": "xyz"}, {"a": 12345, "b": None}], ["a", "b"])
    header, rule, *body = text.splitlines()
    assert {len(line) for line in (header, rule, *body)} == {len(header)}
    assert body[1].split() == ["12,345"]


def _finite_positive(*values: Any) -> bool:
    return all(isinstance(v, int | float) and math.isfinite(v) and v > 0 for v in values)


@pytest.mark.spark
def test_extract_land_bench_lands_every_change_row_of_a_tiny_bundle(
    spark: Any, tmp_path: Path
) -> None:
    meta = extract_land_bench.record(300, 3, 5, tmp_path / "bundle")
    assert meta["dml_rows"] >= 300
    results = {}
    for reader in ("inline", "process"):
        spark.sql("drop database if exists bench_staging cascade")  # one session: start empty
        work = tmp_path / reader
        result = extract_land_bench.measure(tmp_path / "bundle", work, reader=reader)
        assert result["reader"] == reader
        assert result["change_rows"] > 0
        assert result["landed_rows"] == result["change_rows"]
        assert _finite_positive(result["rows_per_s"], result["total_s"], result["peak_rss_mb"])
        phases = [result[f"{name}_s"] for name in extract_land_bench.PHASES]
        assert all(seconds >= 0 for seconds in phases)
        assert sum(phases) == pytest.approx(result["total_s"], abs=0.05)
        results[reader] = result
    assert results["process"]["change_rows"] == results["inline"]["change_rows"]
    assert results["inline"]["mining_rss_mb"] == 0
    assert results["process"]["mining_rss_mb"] > 10  # a Python process's, read while it ran
    # a second start: the checkpoint moved aside, the tables kept; the same rows land again
    again = extract_land_bench.measure(tmp_path / "bundle", tmp_path / "process", start="second")
    assert again["start"] == "second" and results["process"]["start"] == "first"
    assert again["change_rows"] == again["landed_rows"] == results["process"]["change_rows"]
    assert (tmp_path / "process" / "data" / "checkpoint.json.aside").exists()
    with pytest.raises(RuntimeError, match="a second start needs a run before it"):
        extract_land_bench.measure(tmp_path / "bundle", tmp_path / "never", start="second")


@pytest.mark.spark
def test_consolidation_bench_on_a_tiny_replica(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", consolidation_bench.REPLICA_SCHEMA)
    project = consolidation_bench.prepare_project(tmp_path)
    # measure() itself raises when a replica's row count differs from the expected one
    setting = consolidation_bench.BucketSetting("hash", 2)
    rows = consolidation_bench.measure(spark, project, 200, setting, [0.1], "run")
    assert [r["step"] for r in rows] == ["first load", "incremental"]
    assert rows[0]["layout"] == "hash:2" and rows[1]["rewritten_buckets"] == "2/2"
    assert rows[1]["changes"] == 20
    assert _finite_positive(rows[0]["dbt_s"], rows[1]["dbt_s"], rows[1]["full_rebuild_s"])
    assert rows[1]["ratio"] == pytest.approx(rows[1]["dbt_s"] / rows[1]["full_rebuild_s"], 0.1)

    # merge-on-read: the run writes the delta only; reads and the compaction are timed
    setting = consolidation_bench.BucketSetting.named("merge_on_read", None, 50)
    rows = consolidation_bench.measure(spark, project, 200, setting, [0.1], "run")
    assert rows[0]["layout"] == "mor key_range:number:64"
    assert rows[1]["rewritten_buckets"] == "0/4"
    assert _finite_positive(
        rows[1]["compact_s"], rows[1]["read_view_s"], rows[1]["read_base_s"], rows[1]["read_ratio"]
    )
    delta = f"{consolidation_bench.REPLICA_SCHEMA}.{consolidation_bench.MODEL}__delta"
    assert spark.table(delta).count() == 0  # compacted, then rebuilt


def test_consolidation_bench_skewed_changes_rewrite_the_top_buckets_of_key_ranges(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,000 keys, 100 per bucket: 16 ranges of 128 keys. The skewed 1% (20 changes: 2 new
    keys at the top, 18 updates among the newest 5%, keys 1900..2041) rewrites the two top
    ranges; one old change rewrites one range more."""
    monkeypatch.setenv("ORACDC_DBT_SCHEMA", consolidation_bench.REPLICA_SCHEMA)
    project = consolidation_bench.prepare_project(tmp_path)
    setting = consolidation_bench.BucketSetting("key_range", None, 100)
    rows = consolidation_bench.measure(spark, project, 2000, setting, [0.01], "run", "skewed")
    assert rows[0]["layout"] == "key_range:number:128"
    assert rows[1]["rewritten_buckets"] == "2/16"
    rows = consolidation_bench.measure(spark, project, 2000, setting, [0.01], "run", "skewed", 1)
    assert rows[1]["rewritten_buckets"] == "3/16"


@pytest.mark.spark
def test_sync_bench_cycle_applies_new_changes_and_splits_its_time(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from extractor.pipeline.sync import dbt_settings
    from extractor.sim.database import SimDatabase
    from extractor.sim.workload import WorkloadRunner, WorkloadSpec

    monkeypatch.setenv("ORACDC_DBT_SCHEMA", "bench_sync")
    project = tmp_path / "project"
    sync_bench.prepare_project(project)
    config = sync_bench.make_config(project)
    db = SimDatabase()
    runner = WorkloadRunner(db, WorkloadSpec(tables=5, seed=3))
    runner.run(20)
    first = sync_bench.timed_cycle(spark, config, db, dbt_settings(config))
    assert first["snapshot_rows"] > 0
    assert sync_bench.grow(runner, 40) >= 40
    cycle = sync_bench.timed_cycle(spark, config, db, dbt_settings(config))
    assert cycle["snapshot_rows"] == 0
    assert cycle["change_rows"] > 0
    assert _finite_positive(cycle["cycle_s"], cycle["dbt_s"])
    parts = cycle["extract_s"] + cycle["land_s"] + cycle["generate_s"] + cycle["dbt_s"]
    assert parts <= cycle["cycle_s"] + 0.3


def test_a_child_run_measures_the_bundle_under_the_chosen_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0, stdout='{"total_s": 1.0}\n', stderr="")

    monkeypatch.setattr(extract_land_bench.subprocess, "run", run)

    extract_land_bench.run_child(300, 3, 5, None, bundles=tmp_path)

    (command,) = commands
    assert command[command.index("--bundles") + 1] == str(tmp_path)


@pytest.mark.spark
def test_catalog_bench_times_each_call_both_ways(spark: Any) -> None:
    spark.sql(f"DROP DATABASE IF EXISTS {catalog_bench.SCHEMA} CASCADE")
    try:
        rows = catalog_bench.measure(spark, 2, 1)
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {catalog_bench.SCHEMA} CASCADE")
    by_call = {row["call"]: row for row in rows}
    assert set(by_call) == {"refresh", "location", "columns", "columns+location", "create"}
    for call in ("refresh", "location", "columns", "columns+location"):
        row = by_call[call]
        assert _finite_positive(row["sql_ms"], row["jvm_ms"], row["sql_over_jvm"]), row
    assert _finite_positive(by_call["create"]["sql_ms"])
