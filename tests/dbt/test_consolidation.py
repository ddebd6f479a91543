"""Consolidation rules, checked on hand-written staging data (scenarios.py).

The dbt runs are batched: one module fixture lands each phase for every scenario table and runs
dbt once per phase; each test then checks one rule on one table. The fixture runs three times:
copy-on-write replicas with each bucket layout (key ranges, hashes), and merge-on-read replicas
(key ranges), with about four keys per bucket so that the scenario tables span several buckets.
Merge-on-read replicas serve phase 2 from their delta tables (no compaction), and compact by
themselves at the phase 3 run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from extractor.dbt_gen import generate_project_files
from extractor.dictionary import TableDef
from extractor.keys import consolidation_key
from extractor.land.staging_writer import StagingWriter
from extractor.staging_contract import replica_model_name
from tests.dbt.dbt_helpers import (
    REPLICA_SCHEMA,
    STAGING_SCHEMA,
    copy_project,
    dbt,
    recorded_bucket_layout,
)
from tests.dbt.scenarios import (
    ADDED_COLUMN,
    BUCKETS,
    DELETES,
    DROPPED_COLUMN,
    DUPLICATES,
    EMPTIED,
    EXACTNESS_SOFT_TABLES,
    HISTORY_TXN,
    KEY_TYPE,
    KEY_TYPE_KEYS,
    KEY_UPDATES,
    KEY_UPDATES_SOFT,
    LATE_PARTIAL,
    LATE_RESET,
    NO_PK,
    ORDERING,
    PARTIAL,
    RESNAPSHOT,
    RESNAPSHOT_SOFT,
    SNAPSHOTS,
    SOFT_DELETES,
    TABLES,
    TOUCHED_BUCKET_KEY,
    TRUNCATED,
    TRUNCATED_SOFT,
    Landing,
)

pytestmark = pytest.mark.spark

VIEW = "hr__employees_with_department"
HISTORY_TABLES = (
    PARTIAL, DELETES, DUPLICATES, HISTORY_TXN, KEY_UPDATES, TRUNCATED, RESNAPSHOT, LATE_RESET,
)  # fmt: skip
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
    layout: str  # the bucket layout (key_range, hash)
    merge_on_read: bool
    phases: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    # per phase and replica model: the recorded bucket layout (table property oracle_cdc.buckets)
    bucket_specs: dict[str, dict[str, str | None]] = field(default_factory=dict)
    bucket_files: dict[str, dict[int, set[str]]] = field(default_factory=dict)
    partitions: dict[str, list[str]] = field(default_factory=dict)
    view_columns: dict[str, list[str]] = field(default_factory=dict)
    command_results: dict[str, Any] = field(default_factory=dict)
    histories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # per phase: rows of the delta table of each replica model (None: it has none)
    delta_rows: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def rewrite_phase(self) -> str:
        """The phase after which the base's buckets are rewritten: a merge-on-read replica
        writes phase 2's changes to its delta and compacts them into the base at phase 3."""
        return "phase3" if self.merge_on_read else "phase2"

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
    stored = "__base" if history.merge_on_read else ""  # the table holding the buckets
    history.bucket_specs[phase] = {
        m: recorded_bucket_layout(spark, f"{REPLICA_SCHEMA}.{m}{stored}") for m in replicas
    }
    history.delta_rows[phase] = {
        m: spark.table(f"{REPLICA_SCHEMA}.{m}__delta").count()
        if spark.catalog.tableExists(f"{REPLICA_SCHEMA}.{m}__delta")
        else None
        for m in replicas
    }
    files = spark.sql(
        "select _bucket, input_file_name() as file"
        f" from {REPLICA_SCHEMA}.{model(BUCKETS)}{stored} where _op is not null"
    ).collect()
    by_bucket: dict[int, set[str]] = {}
    for entry in files:
        by_bucket.setdefault(entry["_bucket"], set()).add(entry["file"])
    history.bucket_files[phase] = by_bucket
    history.partitions[phase] = [
        r[0]
        for r in spark.sql(f"show partitions {REPLICA_SCHEMA}.{model(EMPTIED)}{stored}").collect()
    ]
    history.view_columns[phase] = spark.table(f"{REPLICA_SCHEMA}.{VIEW}").columns


def _soft_deletes_for(project: Path, table: TableDef) -> None:
    """The documented per-model override: meta oracle_cdc__soft_deletes in the model's config
    (SOFT_DELETES itself with the spelling of earlier releases, oracle_cdc_soft_deletes)."""
    path = project / "models" / "replica" / f"{model(table)}.sql"
    text = path.read_text()
    key = "oracle_cdc_soft_deletes" if table == SOFT_DELETES else "oracle_cdc__soft_deletes"
    edited = text.replace(
        "meta={'oracle_cdc__replica': true,",
        f"meta={{'{key}': true, 'oracle_cdc__replica': true,",
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


ROWS_PER_BUCKET = 4


@pytest.fixture(scope="module", params=["key_range", "hash", "merge_on_read"])
def history(
    request: pytest.FixtureRequest, spark: Any, tmp_path_factory: pytest.TempPathFactory
) -> History:
    merge_on_read = request.param == "merge_on_read"
    layout = "key_range" if merge_on_read else request.param
    for schema in (STAGING_SCHEMA, REPLICA_SCHEMA):
        spark.sql(f"drop database if exists {schema} cascade")
    project = copy_project(tmp_path_factory.mktemp(f"dbt-{request.param}") / "oracle_cdc")
    generate_project_files(TABLES, project)
    for soft in (SOFT_DELETES, *EXACTNESS_SOFT_TABLES):
        _soft_deletes_for(project, soft)
    _add_history_models(project)
    variables: dict[str, object] = {
        "oracle_cdc__bucket_layout": layout,
        "oracle_cdc__rows_per_bucket": ROWS_PER_BUCKET,
    }
    if merge_on_read:
        # no compaction until phase 3: phase 2 is read through the delta tables
        variables.update({"oracle_cdc__layout": "merge_on_read", "oracle_cdc__compact_share": 0})

    def run(*args: str) -> Any:
        return dbt(project, *args, variables=variables)

    result = History(project=project, layout=layout, merge_on_read=merge_on_read)
    landing = Landing()
    landing.phase1(spark)
    run("run")
    _snapshot(spark, result, "phase1")
    landing.phase2(spark)
    run("run")
    _snapshot(spark, result, "phase2")
    _read_histories(spark, result)
    if merge_on_read:
        # every delta is due (BUCKETS' one changed key is 1/40 of its base)
        variables["oracle_cdc__compact_share"] = 0.001
    run("run")
    _snapshot(spark, result, "phase3")
    result.command_results["test"] = run("test")
    result.command_results["docs"] = run("docs", "generate")
    # as the extractor's stream pass leaves it: a heartbeat row (the sources' freshness reads it)
    StagingWriter(spark, STAGING_SCHEMA).append_heartbeat(1, datetime.now(UTC))
    result.command_results["freshness"] = run("source", "freshness")
    run("run", "--full-refresh", "--exclude", model(DROPPED_COLUMN))
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
    # only _batch_id moves (the highest batch folded in), so the batch is not read again
    before, after = history.rows("phase1", DUPLICATES), history.rows("phase2", DUPLICATES)
    assert [{**r, "_batch_id": 2} for r in before] == after


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
    assert history.partitions[history.rewrite_phase] == []


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
    phase = history.rewrite_phase
    before, after = history.bucket_files["phase1"], history.bucket_files[phase]
    touched = next(
        r["_bucket"] for r in history.rows(phase, BUCKETS) if r["id"] == TOUCHED_BUCKET_KEY
    )
    assert {b: f for b, f in after.items() if b != touched} == {
        b: f for b, f in before.items() if b != touched
    }
    assert after[touched] != before[touched]


def test_touched_bucket_keeps_its_untouched_keys(history: History) -> None:
    assert len(history.rows("phase2", BUCKETS)) == len(history.rows("phase1", BUCKETS))


def test_key_type_change_leaves_one_row_per_key(history: History) -> None:
    rows = history.rows("phase2", KEY_TYPE)
    assert [(int(r["id"]), r["v"]) for r in rows] == [
        (k, "re-snapshot as NUMBER(19)") for k in range(KEY_TYPE_KEYS)
    ]


def test_run_without_new_batches_changes_no_replica(history: History) -> None:
    assert history.phases["phase3"] == history.phases["phase2"]


def _without_buckets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{c: v for c, v in r.items() if c != "_bucket"} for r in rows]


def test_incremental_runs_equal_one_full_refresh(history: History) -> None:
    """Row for row; the full refresh chooses its bucket layout again, from more rows."""
    compared = [model(t) for t in TABLES if t is not DROPPED_COLUMN]
    incremental = {m: _without_buckets(history.phases["phase3"][m]) for m in compared}
    full = {m: _without_buckets(history.phases["full_refresh"][m]) for m in compared}
    assert full == incremental


# --- exactness: multi-row key updates, late older changes, deletes, table resets ----------


def _values(history: History, phase: str, table: TableDef, column: str = "v") -> dict[int, Any]:
    return {id_: r[column] for id_, r in history.by_id(phase, table).items()}


def test_multi_row_key_update_keeps_every_moved_row(history: History) -> None:
    # update t set id = id + 1 over 1, 2, 3 and a swap of 10 and 11, in a later run
    assert _values(history, "phase2", KEY_UPDATES) == {
        **{2: "row R1", 3: "row R2", 4: "row R3", 10: "row R11", 11: "row R10"},
        **{22: "row R21", 23: "row R22", 24: "row R23"},
    }


def test_multi_row_key_update_in_the_first_run(history: History) -> None:
    assert _values(history, "phase1", KEY_UPDATES) == {
        **{1: "row R1", 2: "row R2", 3: "row R3", 10: "row R10", 11: "row R11"},
        **{22: "row R21", 23: "row R22", 24: "row R23"},
    }


def test_multi_row_key_update_with_soft_deletes_flags_only_the_vacated_keys(
    history: History,
) -> None:
    deleted = _values(history, "phase2", KEY_UPDATES_SOFT, "_deleted")
    assert sorted(id_ for id_, flag in deleted.items() if flag) == [1, 21]
    assert sorted(deleted) == [1, 2, 3, 4, 10, 11, 21, 22, 23, 24]


def test_older_snapshot_landed_later_fills_what_partial_images_never_carried(
    history: History,
) -> None:
    merged = history.by_id("phase2", LATE_PARTIAL)[1]
    assert (merged["a"], merged["b"], merged["c"]) == ("a at 200", "b at 180", "snap")


def test_older_partial_change_landed_later_takes_its_place_in_the_order(
    history: History,
) -> None:
    merged = history.by_id("phase2", LATE_PARTIAL)[2]
    assert (merged["a"], merged["b"], merged["c"]) == ("a at 110", "b at 120", "c1")


def test_batch_of_older_changes_moves_the_watermark(history: History) -> None:
    assert max(r["_batch_id"] for r in history.rows("phase2", LATE_PARTIAL)) == 2


def test_delete_cuts_a_dropped_column_for_the_reinserted_key(history: History) -> None:
    reinserted = history.by_id("phase2", DROPPED_COLUMN)[3]
    assert (reinserted["v"], reinserted["gone"]) == ("re-inserted", None)


def test_truncate_retires_every_earlier_version(history: History) -> None:
    # keys 1 and 3 are gone (3 also has a change older than the truncate, landed after it)
    assert _values(history, "phase2", TRUNCATED) == {
        2: "after the truncate",
        4: "new key after the truncate",
    }


def test_truncate_with_soft_deletes_flags_the_retired_keys(history: History) -> None:
    assert _values(history, "phase2", TRUNCATED_SOFT, "_deleted") == {
        1: True,
        2: False,
        3: True,
        4: False,
    }


def test_resnapshot_retires_keys_it_no_longer_has(history: History) -> None:
    assert _values(history, "phase2", RESNAPSHOT) == {1: "re-snapshot", 2: "re-snapshot"}


def test_resnapshot_with_soft_deletes_flags_the_keys_it_no_longer_has(history: History) -> None:
    assert _values(history, "phase2", RESNAPSHOT_SOFT, "_deleted") == {
        1: False,
        2: False,
        3: True,
    }


def test_reset_marker_landed_after_newer_changes_retires_only_older_versions(
    history: History,
) -> None:
    assert _values(history, "phase1", LATE_RESET) == {
        1: "inserted again after the truncate",
        2: "before the truncate",
        3: "inserted after the truncate",
    }
    assert _values(history, "phase2", LATE_RESET) == {
        1: "inserted again after the truncate",
        3: "inserted after the truncate",
    }


def test_reset_markers_are_no_key_versions(history: History) -> None:
    for table in (TRUNCATED, TRUNCATED_SOFT, RESNAPSHOT, RESNAPSHOT_SOFT, LATE_RESET):
        assert all(r["id"] is not None for r in history.rows("phase3", table))


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


def test_history_has_one_version_per_commit(history: History) -> None:
    assert _versions(history, HISTORY_TXN, 1, "v") == [
        (100, 200, "inserted"),
        (200, None, "committed at 200"),
    ]


def test_history_has_no_version_of_a_key_inserted_and_deleted_in_one_commit(
    history: History,
) -> None:
    assert _versions(history, HISTORY_TXN, 2, "v") == []


def test_history_ends_at_a_delete_that_follows_an_update_in_its_commit(history: History) -> None:
    assert _versions(history, HISTORY_TXN, 3, "v") == [(100, 200, "inserted")]


def test_history_has_one_version_for_a_delete_and_reinsert_in_one_commit(
    history: History,
) -> None:
    assert _versions(history, HISTORY_TXN, 4, "v", "w") == [
        (100, 200, "inserted", "w0"),
        (200, None, "re-inserted", "w1"),
    ]


def test_history_merges_partial_images_of_one_commit_into_its_version(history: History) -> None:
    assert _versions(history, HISTORY_TXN, 5, "v", "w") == [
        (100, 200, "v0", "w0"),
        (200, None, "v1", "w1"),
    ]


def test_history_does_not_carry_a_column_across_a_delete(history: History) -> None:
    assert _versions(history, HISTORY_TXN, 6, "v", "w") == [
        (100, 200, "v0", "w0"),
        (300, None, "after the delete", None),
    ]


def test_history_keeps_every_row_a_multi_row_key_update_moved(history: History) -> None:
    # update t set id = id + 1 at 200 (1 -> 2 -> 3 -> 4) and a swap of 10 and 11 at 210: the
    # delete of key 2 (row R2 leaving it) comes after row R1 arrived on key 2, and is R2's only.
    expected = {
        1: [(100, 200, "row R1")],
        2: [(100, 200, "row R2"), (200, None, "row R1")],
        3: [(100, 200, "row R3"), (200, None, "row R2")],
        4: [(200, None, "row R3")],
        10: [(100, 210, "row R10"), (210, None, "row R11")],
        11: [(100, 210, "row R11"), (210, None, "row R10")],
        21: [(100, 150, "row R21")],
        22: [(100, 150, "row R22"), (150, None, "row R21")],
        24: [(150, None, "row R23")],
    }
    assert {k: _versions(history, KEY_UPDATES, k, "v") for k in expected} == expected


def test_history_ends_every_version_at_a_truncate(history: History) -> None:
    # c 1, 2, 3 at 100; u 3 at 140 (landed after the truncate); TRUNCATE at 150; c 2, 4 at 160
    expected = {
        1: [(100, 150, "before the truncate")],
        2: [(100, 150, "before the truncate"), (160, None, "after the truncate")],
        3: [(100, 140, "before the truncate"), (140, 150, "older than the truncate")],
        4: [(160, None, "new key after the truncate")],
    }
    assert {k: _versions(history, TRUNCATED, k, "v") for k in expected} == expected
    assert all(r["id"] is not None for r in history.histories[model(TRUNCATED)])


def test_history_ends_keys_a_resnapshot_no_longer_has(history: History) -> None:
    # snapshot 1, 2, 3 at 100; u 2 at 110; re-snapshot at 200 without key 3 and its marker
    expected = {
        1: [(100, 200, "row R1"), (200, None, "re-snapshot")],
        2: [(100, 110, "row R2"), (110, 200, "at 110"), (200, None, "re-snapshot")],
        3: [(100, 200, "row R3")],
    }
    assert {k: _versions(history, RESNAPSHOT, k, "v") for k in expected} == expected


def test_history_keeps_changes_after_a_truncate_that_landed_later(history: History) -> None:
    # c 1, 2 at 100; c 3 at 300, c 1 at 310; the TRUNCATE at 200 lands in a later batch
    expected = {
        1: [(100, 200, "before the truncate"), (310, None, "inserted again after the truncate")],
        2: [(100, 200, "before the truncate")],
        3: [(300, None, "inserted after the truncate")],
    }
    assert {k: _versions(history, LATE_RESET, k, "v") for k in expected} == expected


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
    assert len(results) == len(TABLES) + 1  # and the heartbeat
    assert all(str(r.status) == "pass" for r in results)


# --- bucket layouts -----------------------------------------------------------------------


def test_every_replica_records_the_layout_it_was_built_with(history: History) -> None:
    for phase, specs in history.bucket_specs.items():
        for replica_model, spec in specs.items():
            assert spec is not None, (phase, replica_model)
            assert spec.split(":")[0] == history.layout, (phase, replica_model, spec)
    if history.layout == "key_range":
        assert history.bucket_specs["phase1"][model(BUCKETS)].startswith("key_range:number:")
        assert history.bucket_specs["phase1"][model(NO_PK)].startswith("key_range:rowid:")


def test_buckets_follow_the_recorded_layout(history: History) -> None:
    """40 keys, about 4 per bucket: 10 ranges of 4 keys, or 16 hash buckets."""
    seen: dict[int, int] = {}
    for phase in ("phase1", "phase2", "phase3"):
        spec = history.bucket_specs[phase][model(BUCKETS)]
        assert spec is not None
        rows = history.rows(phase, BUCKETS)
        if history.layout == "key_range":
            assert spec == "key_range:number:4"
            assert [r["_bucket"] for r in rows] == [int(r["id"]) // 4 for r in rows]
        else:
            assert spec == "hash:16"
            assert {r["_bucket"] for r in rows} <= set(range(16))
        for r in rows:
            assert seen.setdefault(int(r["id"]), r["_bucket"]) == r["_bucket"]
    assert len(set(seen.values())) >= 8


# --- merge-on-read ------------------------------------------------------------------------


def test_only_merge_on_read_runs_write_a_delta_table(history: History) -> None:
    """Copy-on-write replicas have none. A merge-on-read run writes the latest version of the
    touched keys to its delta (a delete as a tombstone) and leaves the base's files; phase 3's
    compaction empties every delta."""
    if not history.merge_on_read:
        for phase, deltas in history.delta_rows.items():
            assert all(rows is None for rows in deltas.values()), phase
        return
    assert history.bucket_files["phase2"] == history.bucket_files["phase1"]
    assert history.delta_rows["phase1"][model(BUCKETS)] == 0
    # the touched key's new version, and nothing for the untouched keys
    assert history.delta_rows["phase2"][model(BUCKETS)] == 1
    assert history.delta_rows["phase2"][model(EMPTIED)] >= 1  # the tombstone
    assert history.rows("phase2", EMPTIED) == []
    assert all(count == 0 for count in history.delta_rows["phase3"].values())
