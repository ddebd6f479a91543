"""The merge-on-read replica layout (docs/dbt.md "Replica layouts"): runs append the latest
version of each touched key to a delta table, the model's name is a view serving delta rows over
the base; compaction (the operation `oracdc compact` runs, or automatically past a share of the
base) folds the delta into the base's touched buckets; switching layouts rebuilds.

One table of 40 keys in key ranges of 4 (buckets 0..9), changed batch by batch. The expected
rows are written here by hand. The scenario rules on this layout are tests/dbt/test_consolidation.py
(its merge_on_read parameter).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from extractor.cli.compact import compact_arguments, operation_error
from extractor.dbt_gen import generate_project_files
from extractor.dictionary import TableDef
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.pipeline.sync import first_dbt_failure
from extractor.staging_contract import replica_model_name
from extractor.verify.replica_watermark import replica_watermarks
from tests.dbt.dbt_helpers import (
    REPLICA_SCHEMA,
    STAGING_SCHEMA,
    Change,
    StagingTable,
    copy_project,
    dbt,
    number,
    varchar,
)

pytestmark = pytest.mark.spark

ITEMS = TableDef(
    "MOR", "ITEMS", (number("ID", 1, nullable=False), varchar("V", 2), varchar("W", 3)),
    primary_key=("ID",),
)  # fmt: skip
MODEL = replica_model_name(ITEMS.owner, ITEMS.name)
VIEW = f"{REPLICA_SCHEMA}.{MODEL}"
BASE = f"{VIEW}__base"
DELTA = f"{VIEW}__delta"
TABLE_NAMES = (MODEL, f"{MODEL}__base", f"{MODEL}__delta")
KEYS = 40
MERGE_ON_READ = {
    "oracle_cdc__layout": "merge_on_read",
    "oracle_cdc__rows_per_bucket": 4,
    "oracle_cdc__compact_share": 0,
}


def item(key: int, v: str, w: str | None = None) -> dict[str, Any]:
    return {"id": Decimal(key), "v": v, "w": w}


def rows(spark: Any) -> dict[int, tuple[str, str | None]]:
    return {int(r["id"]): (r["v"], r["w"]) for r in spark.table(VIEW).collect()}


def base_files(spark: Any) -> dict[int, set[str]]:
    files: dict[int, set[str]] = {}
    for r in spark.sql(f"select _bucket, input_file_name() as f from {BASE}").collect():
        files.setdefault(int(r["_bucket"]), set()).add(r["f"])
    return files


def table_type(spark: Any, name: str) -> str | None:
    found = [t for t in spark.catalog.listTables(REPLICA_SCHEMA) if t.name == name]
    return found[0].tableType if found else None


def failure(project: Path, args: list[str], variables: dict[str, object]) -> str:
    """The one-line reason a failing dbt command gives (as oracdc reports it)."""
    errors: list[str] = []
    result = run_dbt(
        args, project_dir=project, profiles_dir=project, variables=variables, errors=errors
    )
    assert not result.success
    return operation_error(errors) or first_dbt_failure(result)[1]


@pytest.fixture(scope="module")
def states(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    for schema in (STAGING_SCHEMA, REPLICA_SCHEMA):
        spark.sql(f"drop database if exists {schema} cascade")
    project = copy_project(tmp_path_factory.mktemp("dbt-mor") / "oracle_cdc", with_views=False)
    generate_project_files((ITEMS,), project)
    staging = StagingTable(ITEMS)
    state: dict[str, Any] = {}
    variables: dict[str, object] = dict(MERGE_ON_READ)

    def run(name: str, *args: str) -> None:
        dbt(project, "run", *args, variables=variables)
        state[name] = rows(spark)
        state[f"{name}_delta"] = spark.table(DELTA).count()
        state[f"{name}_files"] = base_files(spark)

    staging.land(spark, [Change("r", 100, item(k, "a", "x")) for k in range(KEYS)])
    run("built")
    state["view_type"] = table_type(spark, MODEL)
    # a full image and a delete go to the delta; the base is not written
    staging.land(
        spark,
        [
            Change("u", 200, item(5, "b", "y"), batch=2),
            Change("d", 201, item(9, "a", "x"), batch=2),
        ],
    )
    run("second")
    # a partial image (V only) of a key whose current row is in the delta, and a re-insert
    staging.land(spark, [
        Change("u", 300, item(5, "c"), batch=3, present=("v",)),
        Change("c", 301, item(9, "back", "z"), batch=3),
    ])  # fmt: skip
    run("third")
    # the operation `oracdc compact` runs
    dbt(project, *compact_arguments([MODEL]), variables=variables)
    state["compacted"] = rows(spark)
    state["compacted_delta"] = spark.table(DELTA).count()
    state["compacted_files"] = base_files(spark)
    # every key of bucket 0 deleted, then compacted: its partition goes
    staging.land(spark, [Change("d", 400 + k, item(k, "a", "x"), batch=4) for k in range(4)])
    run("emptied")
    # compacted by an operation run with soft deletes on: the replica keeps its own (hard)
    dbt(
        project, *compact_arguments(None), variables={**variables, "oracle_cdc__soft_deletes": True}
    )
    state["emptied_compacted"] = rows(spark)
    state["base_flagged"] = spark.table(BASE).where("_deleted").count()
    state["partitions"] = [r[0] for r in spark.sql(f"show partitions {BASE}").collect()]
    state["watermark"] = replica_watermarks(spark, REPLICA_SCHEMA, [ITEMS.qualified_name])
    # automatic compaction past 10% of the base (36 rows): 1 row waits, 5 are due
    variables["oracle_cdc__compact_share"] = 0.1
    staging.land(spark, [Change("u", 500, item(20, "d", "x"), batch=5)])
    run("below_share")
    staging.land(spark, [Change("u", 600 + k, item(k, "e", "x"), batch=6) for k in range(30, 35)])
    run("above_share")
    # switching to copy-on-write and back: a full build each, the same rows
    variables["oracle_cdc__layout"] = "copy_on_write"
    run_dbt(["run"], project_dir=project, profiles_dir=project, variables=variables)
    state["copy_on_write"] = rows(spark)
    state["copy_on_write_types"] = {n: table_type(spark, n) for n in TABLE_NAMES}
    state["compact_refused"] = failure(project, compact_arguments([MODEL]), variables)
    variables["oracle_cdc__layout"] = "merge_on_read"
    dbt(project, "run", variables=variables)
    state["back"] = rows(spark)
    state["back_types"] = {n: table_type(spark, n) for n in TABLE_NAMES}
    state["unknown_layout"] = failure(project, ["run"], {**variables, "oracle_cdc__layout": "lsm"})
    as_delta = {**variables, "oracle_cdc__file_format": "delta"}
    state["not_parquet"] = failure(project, ["compile"], as_delta)
    return state


def expected_after_third() -> dict[int, tuple[str, str | None]]:
    expected = {k: ("a", "x") for k in range(KEYS)}
    expected[5] = ("c", "y")  # V from the partial image, W from the delta row before it
    expected[9] = ("back", "z")
    return expected


def test_the_replica_is_a_view_over_base_and_delta(states: dict[str, Any]) -> None:
    assert states["view_type"] == "VIEW"
    assert states["built"] == {k: ("a", "x") for k in range(KEYS)}
    assert states["built_delta"] == 0


def test_a_run_appends_to_the_delta_and_leaves_the_base(states: dict[str, Any]) -> None:
    expected = {k: ("a", "x") for k in range(KEYS) if k != 9}
    expected[5] = ("b", "y")
    assert states["second"] == expected
    assert states["second_delta"] == 2  # key 5 and the tombstone of key 9
    assert states["second_files"] == states["built_files"]
    assert states["third_files"] == states["built_files"]


def test_a_partial_image_merges_onto_the_delta_row(states: dict[str, Any]) -> None:
    assert states["third"] == expected_after_third()
    assert states["third_delta"] == 4  # each run's row of keys 5 and 9


def test_compaction_empties_the_delta_and_rewrites_only_touched_buckets(
    states: dict[str, Any],
) -> None:
    assert states["compacted"] == expected_after_third()
    assert states["compacted_delta"] == 0
    before, after = states["built_files"], states["compacted_files"]
    touched = {5 // 4, 9 // 4}
    assert {b for b in before if before[b] != after[b]} == touched
    assert set(after) == set(before)


def test_compaction_drops_a_bucket_whose_keys_were_all_deleted(states: dict[str, Any]) -> None:
    expected = {k: v for k, v in expected_after_third().items() if k >= 4}
    assert states["emptied"] == expected
    assert states["emptied_compacted"] == expected
    assert states["base_flagged"] == 0  # the deletes left, not kept as soft deletes
    assert "_bucket=0" not in states["partitions"]
    assert "_bucket=1" in states["partitions"]


def test_the_watermark_keeps_the_compacted_deletes(states: dict[str, Any]) -> None:
    """Batch 4 held deletes only: after its compaction no row has _batch_id 4, yet status (and
    the next run) count it as consolidated."""
    assert states["watermark"] == {ITEMS.qualified_name: 4}
    assert states["below_share_delta"] == 1  # the next run did not read batch 4 again


def test_runs_compact_once_the_delta_passes_the_share(states: dict[str, Any]) -> None:
    assert states["below_share_delta"] == 1
    assert states["above_share_delta"] == 0
    assert states["above_share"][20] == ("d", "x")
    assert all(states["above_share"][k] == ("e", "x") for k in range(30, 35))


def test_switching_layouts_rebuilds_with_the_same_rows(states: dict[str, Any]) -> None:
    assert states["copy_on_write"] == states["above_share"]
    assert states["copy_on_write_types"] == {
        MODEL: "MANAGED", f"{MODEL}__base": None, f"{MODEL}__delta": None,
    }  # fmt: skip
    assert states["back"] == states["above_share"]
    assert states["back_types"] == {
        MODEL: "VIEW", f"{MODEL}__base": "MANAGED", f"{MODEL}__delta": "MANAGED",
    }  # fmt: skip


def test_compacting_a_copy_on_write_replica_is_refused(states: dict[str, Any]) -> None:
    assert "is no merge_on_read replica model" in states["compact_refused"]


def test_an_unknown_layout_is_refused(states: dict[str, Any]) -> None:
    refusal = "replica layout 'lsm' is not one of copy_on_write, merge_on_read"
    assert refusal in states["unknown_layout"]


def test_merge_on_read_is_refused_for_table_formats_with_their_own(states: dict[str, Any]) -> None:
    assert "the merge_on_read layout is for parquet replicas" in states["not_parquet"]
