"""Consolidation rules, checked on hand-written staging data (scenarios.py).

The dbt runs are batched: one module fixture lands each phase for every scenario table and runs
dbt once per phase; each test then checks one rule on one table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from dbt_helpers import REPLICA_SCHEMA, dbt
from scenarios import (
    ADDED_COLUMN,
    BUCKETS,
    DELETES,
    DROPPED_COLUMN,
    DUPLICATES,
    EMPTIED,
    NO_PK,
    ORDERING,
    PARTIAL,
    SNAPSHOTS,
    SOFT_DELETES,
    TABLES,
    TOUCHED_BUCKET_KEY,
    Landing,
)

from extractor.dbt_gen import generate_project_files
from extractor.dictionary import TableDef
from extractor.keys import consolidation_key
from extractor.staging_contract import replica_model_name

pytestmark = pytest.mark.spark

VIEW = "hr__employees_with_department"
HISTORY_TABLES = (PARTIAL, DELETES, DUPLICATES)
HISTORY_MODEL = """
{{{{ config(materialized='table') }}}}
{{{{ oracle_cdc.history(source('oracdc_staging', '{staging}'), key_columns={key}) }}}}
"""


def model(table: TableDef) -> str:
    return replica_model_name(table.owner, table.name)


@dataclass
class History:
    """Replica contents after each phase, plus what the checks of dbt commands returned."""

    project: Path
    phases: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    bucket_files: dict[str, dict[int, set[str]]] = field(default_factory=dict)
    partitions: dict[str, list[str]] = field(default_factory=dict)
    view_columns: dict[str, list[str]] = field(default_factory=dict)
    command_results: dict[str, Any] = field(default_factory=dict)
    histories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def rows(self, phase: str, table: TableDef) -> list[dict[str, Any]]:
        return self.phases[phase][model(table)]

    def by_id(self, phase: str, table: TableDef) -> dict[int, dict[str, Any]]:
        return {int(r["id"]): r for r in self.rows(phase, table)}


def _snapshot(spark: Any, history: History, phase: str) -> None:
    replicas = {}
    for table in TABLES:
        order = consolidation_key(table)
        frame = spark.table(f"{REPLICA_SCHEMA}.{model(table)}")
        replicas[model(table)] = [r.asDict() for r in frame.orderBy(*order).collect()]
    history.phases[phase] = replicas
    files = spark.sql(
        f"select _bucket, input_file_name() as file from {REPLICA_SCHEMA}.{model(BUCKETS)}"
    ).collect()
    by_bucket: dict[int, set[str]] = {}
    for entry in files:
        by_bucket.setdefault(entry["_bucket"], set()).add(entry["file"])
    history.bucket_files[phase] = by_bucket
    history.partitions[phase] = [
        r[0] for r in spark.sql(f"show partitions {REPLICA_SCHEMA}.{model(EMPTIED)}").collect()
    ]
    history.view_columns[phase] = spark.table(f"{REPLICA_SCHEMA}.{VIEW}").columns


def _soft_deletes_for(project: Path, table: TableDef) -> None:
    """The documented per-model override: meta oracle_cdc_soft_deletes in the model's config."""
    path = project / "models" / "replica" / f"{model(table)}.sql"
    text = path.read_text()
    edited = text.replace(
        "meta={'oracle_cdc_replica': true,",
        "meta={'oracle_cdc_soft_deletes': true, 'oracle_cdc_replica': true,",
    )
    assert edited != text
    path.write_text(edited)


def _add_history_models(project: Path) -> None:
    """History (SCD2) models, written as an engineer would: a table model calling the macro."""
    folder = project / "models" / "history"
    folder.mkdir(parents=True)
    for table in HISTORY_TABLES:
        staging = f"{model(table)}_log"
        key = list(consolidation_key(table))
        text = HISTORY_MODEL.format(staging=staging, key=key)
        (folder / f"{model(table)}_history.sql").write_text(text)


def _read_histories(spark: Any, history: History) -> None:
    for table in HISTORY_TABLES:
        frame = spark.table(f"{REPLICA_SCHEMA}.{model(table)}_history")
        ordered = frame.orderBy(*consolidation_key(table), "_valid_from_scn")
        history.histories[model(table)] = [r.asDict() for r in ordered.collect()]


@pytest.fixture(scope="module")
def history(spark: Any, dbt_project: Path) -> History:
    generate_project_files(TABLES, dbt_project)
    _soft_deletes_for(dbt_project, SOFT_DELETES)
    _add_history_models(dbt_project)
    result = History(project=dbt_project)
    landing = Landing()
    landing.phase1(spark)
    dbt(dbt_project, "run")
    _snapshot(spark, result, "phase1")
    landing.phase2(spark)
    dbt(dbt_project, "run")
    _snapshot(spark, result, "phase2")
    _read_histories(spark, result)
    dbt(dbt_project, "run")
    _snapshot(spark, result, "phase3")
    result.command_results["test"] = dbt(dbt_project, "test")
    result.command_results["docs"] = dbt(dbt_project, "docs", "generate")
    result.command_results["freshness"] = dbt(dbt_project, "source", "freshness")
    dbt(dbt_project, "run", "--full-refresh", "--exclude", model(DROPPED_COLUMN))
    _snapshot(spark, result, "full_refresh")
    return result


# --- order of changes ---------------------------------------------------------------------


def test_commit_scn_orders_before_change_scn(history: History) -> None:
    assert history.by_id("phase1", ORDERING)[1]["v"] == "change committed at 105"


def test_change_scn_orders_changes_of_one_commit(history: History) -> None:
    assert history.by_id("phase1", ORDERING)[2]["v"] == "scn 150 in commit 200"


def test_redo_position_orders_changes_of_one_scn(history: History) -> None:
    assert history.by_id("phase1", ORDERING)[3]["v"] == "redo position 2"


def test_change_after_a_snapshot_wins(history: History) -> None:
    assert history.by_id("phase1", SNAPSHOTS)[1]["v"] == "updated after the snapshot"


def test_snapshot_landed_later_but_older_than_the_replica_row_loses(history: History) -> None:
    assert history.by_id("phase2", SNAPSHOTS)[2]["v"] == "change at 130"


# --- duplicates -------------------------------------------------------------------------


def test_identical_change_rows_collapse_into_one_replica_row(history: History) -> None:
    assert [(int(r["id"]), r["v"]) for r in history.rows("phase1", DUPLICATES)] == [(1, "updated")]


def test_change_landed_again_in_a_later_batch_changes_nothing(history: History) -> None:
    assert history.rows("phase2", DUPLICATES) == history.rows("phase1", DUPLICATES)


# --- partial row images -----------------------------------------------------------------


def test_partial_images_merge_column_by_column(history: History) -> None:
    merged = history.by_id("phase1", PARTIAL)[1]
    assert (merged["a"], merged["c"]) == ("a1", "c3")


def test_null_written_by_a_partial_image_is_a_value(history: History) -> None:
    assert history.by_id("phase1", PARTIAL)[1]["b"] is None


def test_partial_image_merges_onto_the_replica_row_of_an_earlier_run(history: History) -> None:
    merged = history.by_id("phase2", PARTIAL)[2]
    assert (merged["a"], merged["b"], merged["c"]) == ("a2", "b1", "c1")


def test_partial_image_older_than_the_latest_full_image_is_ignored(history: History) -> None:
    assert history.by_id("phase1", PARTIAL)[3]["c"] is None


def test_columns_never_carried_stay_null_without_a_full_image(history: History) -> None:
    only = history.by_id("phase1", PARTIAL)[4]
    assert (only["a"], only["b"], only["c"]) == ("only a", None, None)


# --- deletes ----------------------------------------------------------------------------


def test_key_deleted_and_reinserted_in_one_batch_comes_back(history: History) -> None:
    assert history.by_id("phase1", DELETES)[1]["v"] == "re-inserted"


def test_deleted_key_leaves_the_replica(history: History) -> None:
    assert 2 in history.by_id("phase1", DELETES)
    assert 2 not in history.by_id("phase2", DELETES)


def test_key_deleted_and_reinserted_in_a_later_run_comes_back(history: History) -> None:
    assert history.by_id("phase2", DELETES)[3]["v"] == "back"


def test_late_snapshot_older_than_a_delete_does_not_bring_the_key_back(history: History) -> None:
    assert 4 not in history.by_id("phase2", DELETES)


def test_deleting_every_key_of_a_bucket_empties_it(history: History) -> None:
    assert history.rows("phase2", EMPTIED) == []
    assert history.partitions["phase2"] == []


def test_soft_deleted_key_stays_flagged_with_its_last_values(history: History) -> None:
    deleted = history.by_id("phase2", SOFT_DELETES)[1]
    assert (deleted["_deleted"], deleted["v"]) == (True, "kept as deleted")


def test_soft_deletes_leave_live_keys_unflagged(history: History) -> None:
    assert history.by_id("phase2", SOFT_DELETES)[2]["_deleted"] is False


def test_soft_deletes_are_off_by_default(history: History) -> None:
    assert all(r["_deleted"] is False for r in history.rows("phase2", DELETES))


# --- tables without a primary key ---------------------------------------------------------


def test_table_without_primary_key_keeps_equal_rows_apart_by_row_id(history: History) -> None:
    assert [(r["_row_id"], r["qty"]) for r in history.rows("phase1", NO_PK)] == [
        ("AAAR0A", 1),
        ("AAAR0B", 1),
    ]


def test_table_without_primary_key_applies_updates_by_row_id(history: History) -> None:
    assert [(r["_row_id"], r["qty"]) for r in history.rows("phase2", NO_PK)] == [
        ("AAAR0A", 2),
        ("AAAR0B", 1),
    ]


# --- schema changes ---------------------------------------------------------------------


def test_added_source_column_appears_in_the_replica(history: History) -> None:
    rows = history.by_id("phase2", ADDED_COLUMN)
    assert (rows[1]["note"], rows[2]["note"]) == (None, "new column value")


def test_dropped_source_column_stays_with_its_last_value(history: History) -> None:
    rows = history.by_id("phase2", DROPPED_COLUMN)
    assert (rows[1]["v"], rows[1]["gone"]) == ("b", "last value")


def test_dropped_source_column_is_null_for_new_keys(history: History) -> None:
    assert history.by_id("phase2", DROPPED_COLUMN)[2]["gone"] is None


def test_dependent_view_shows_a_column_added_to_its_replica(history: History) -> None:
    assert "email" not in history.view_columns["phase1"]
    assert "email" in history.view_columns["phase2"]


# --- incremental runs ---------------------------------------------------------------------


def test_untouched_buckets_are_not_rewritten(history: History) -> None:
    before, after = history.bucket_files["phase1"], history.bucket_files["phase2"]
    touched = next(
        r["_bucket"] for r in history.rows("phase2", BUCKETS) if r["id"] == TOUCHED_BUCKET_KEY
    )
    assert {b: f for b, f in after.items() if b != touched} == {
        b: f for b, f in before.items() if b != touched
    }
    assert after[touched] != before[touched]


def test_touched_bucket_keeps_its_untouched_keys(history: History) -> None:
    assert len(history.rows("phase2", BUCKETS)) == len(history.rows("phase1", BUCKETS))


def test_run_without_new_batches_changes_no_replica(history: History) -> None:
    assert history.phases["phase3"] == history.phases["phase2"]


def test_incremental_runs_equal_one_full_refresh(history: History) -> None:
    compared = [model(t) for t in TABLES if t is not DROPPED_COLUMN]
    incremental = {m: history.phases["phase3"][m] for m in compared}
    full = {m: history.phases["full_refresh"][m] for m in compared}
    assert full == incremental


# --- history (SCD type 2) -----------------------------------------------------------------


def _versions(history: History, table: TableDef, id_: int, *columns: str) -> list[tuple[Any, ...]]:
    return [
        (r["_valid_from_scn"], r["_valid_to_scn"], *(r[c] for c in columns))
        for r in history.histories[model(table)]
        if r["id"] == id_
    ]


def test_history_has_one_row_per_version_with_merged_partial_images(history: History) -> None:
    assert _versions(history, PARTIAL, 1, "a", "b", "c") == [
        (100, 110, "a1", "b1", "c1"),
        (110, 120, "a1", None, "c1"),
        (120, None, "a1", None, "c3"),
    ]


def test_history_ends_a_version_at_a_delete(history: History) -> None:
    assert _versions(history, DELETES, 1, "v") == [(100, 110, "first"), (120, None, "re-inserted")]


def test_history_counts_a_change_landed_twice_once(history: History) -> None:
    assert _versions(history, DUPLICATES, 1, "v") == [
        (100, 110, "inserted"),
        (110, None, "updated"),
    ]


def test_history_marks_only_the_latest_version_current(history: History) -> None:
    rows = [r for r in history.histories[model(PARTIAL)] if r["id"] == 1]
    assert [r["_is_current"] for r in rows] == [False, False, True]


# --- dbt commands on the generated project --------------------------------------------------


def test_dbt_test_passes_on_the_generated_project(history: History) -> None:
    results = history.command_results["test"].result.results
    assert results
    assert all(str(r.status) == "pass" for r in results)


def test_dbt_docs_generate_documents_every_replica(history: History) -> None:
    catalog = history.command_results["docs"].result
    documented = {node.split(".")[-1] for node in catalog.nodes}
    assert {model(t) for t in TABLES} <= documented


def test_dbt_source_freshness_passes_on_fresh_staging(history: History) -> None:
    results = history.command_results["freshness"].result.results
    assert len(results) == len(TABLES)
    assert all(str(r.status) == "pass" for r in results)
