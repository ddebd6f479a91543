"""The merge path (Delta / Iceberg / Hudi replicas) compiles; it cannot run here (no jars).

The replica query in merge mode and the MERGE statement are compiled by dbt and parsed as Spark
SQL; the statement's clauses are checked against what the merge must do.
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from extractor.dbt_gen import generate_project_files
from extractor.dictionary import TableDef
from tests.dbt.dbt_helpers import Change, StagingTable, copy_project, dbt, number, varchar
from tests.dbt.scenarios import (
    DROPPED_COLUMN,
    LATE_PARTIAL,
    exactness_phase1,
    exactness_phase2,
    key_update,
    marker,
    scenario_phase1,
    scenario_phase2,
    snapshot_rows,
)

pytestmark = pytest.mark.spark

MERGED = TableDef(
    "CDC", "MERGED", (number("ID", 1, nullable=False), varchar("V", 2)), primary_key=("ID",)
)
DELTA = {"oracle_cdc__file_format": "delta"}
# the consolidation exactness rules on the merge path: the rows the MERGE receives
KEY_MOVES = TableDef(
    "CDC", "KEY_MOVES", (number("ID", 1, nullable=False), varchar("V", 2)), primary_key=("ID",)
)
RESET = TableDef(
    "CDC", "RESET", (number("ID", 1, nullable=False), varchar("V", 2)), primary_key=("ID",)
)
# the LATE_PARTIAL and DROPPED_COLUMN scenarios of the insert_overwrite tests, in staging
# tables of their own
LATE = replace(LATE_PARTIAL, name="LATE_MERGED")
DROPPED = replace(DROPPED_COLUMN, name="DROPPED_MERGED")

PRINT_MERGE_MACRO = """
{% macro print_replica_merge(soft_deletes) %}
    {% set target = api.Relation.create(schema='oracdc', identifier='cdc__merged') %}
    {% set source = api.Relation.create(identifier='cdc__merged__dbt_tmp') %}
    {% set sql = oracle_cdc.replica_merge_sql(target, source, ['id'], soft_deletes) %}
    {% do log('MERGE-SQL ' ~ sql, info=True) %}
{% endmacro %}
"""


def merge_sql(project: Path, *, soft_deletes: bool) -> str:
    from dbt.cli.main import dbtRunner

    messages: list[str] = []

    def keep_log(event: Any) -> None:
        if event.info.name == "JinjaLogInfo" and event.info.msg.startswith("MERGE-SQL "):
            messages.append(event.info.msg.removeprefix("MERGE-SQL "))

    args = "{soft_deletes: true}" if soft_deletes else "{soft_deletes: false}"
    result = dbtRunner(callbacks=[keep_log]).invoke(
        ["run-operation", "print_replica_merge", "--args", args,
         "--project-dir", str(project), "--profiles-dir", str(project)]
    )  # fmt: skip
    assert result.success, result.exception
    (sql,) = messages
    return " ".join(sql.split())


@pytest.fixture(scope="module")
def project(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("merge") / "oracle_cdc", with_views=False)
    (project / "macros" / "print_replica_merge.sql").write_text(PRINT_MERGE_MACRO)
    generate_project_files([MERGED, KEY_MOVES, RESET, LATE, DROPPED], project)
    StagingTable(LATE).land(spark, exactness_phase1()[LATE_PARTIAL])
    StagingTable(DROPPED).land(spark, scenario_phase1()[DROPPED_COLUMN])
    StagingTable(MERGED).land(spark, [Change("c", 100, {"id": Decimal(1), "v": "x"})])
    StagingTable(KEY_MOVES).land(spark, snapshot_rows(100, [1, 2, 3]))
    StagingTable(RESET).land(spark, snapshot_rows(100, [1, 2]))
    dbt(project, "run")  # the replica exists, so the delta compile below is incremental
    StagingTable(KEY_MOVES).land(spark, key_update(200, [(1, 2), (2, 3), (3, 4)], batch=2))
    StagingTable(RESET).land(
        spark, [marker(150, batch=2), Change("c", 160, {"id": Decimal(3), "v": "new"}, batch=2)]
    )
    StagingTable(LATE).land(spark, exactness_phase2()[LATE_PARTIAL])
    # GONE dropped in the source: the staging table is re-created without it (docs/landing.md)
    spark.sql(f"drop table {StagingTable(DROPPED).name}")
    StagingTable(replace(DROPPED, columns=DROPPED.columns[:2])).land(
        spark, scenario_phase2()[DROPPED_COLUMN]
    )
    return project


def merge_rows(project: Path, spark: Any, model: str) -> dict[int, dict[str, Any]]:
    """What the MERGE of ``model``'s next run receives: its merge-mode query, run as a SELECT."""
    dbt(project, "compile", "--select", model, variables=DELTA)
    compiled = next((project / "target" / "compiled").rglob(f"{model}.sql")).read_text()
    return {int(r["id"]): r.asDict() for r in spark.sql(compiled).collect()}


def merge_source(project: Path, spark: Any, model: str) -> dict[int, tuple[Any, bool]]:
    return {k: (r["v"], r["_deleted"]) for k, r in merge_rows(project, spark, model).items()}


def test_replica_compiles_as_an_incremental_merge_model(project: Path) -> None:
    dbt(project, "compile", "--select", "cdc__merged", variables=DELTA)
    compiled = next((project / "target" / "compiled").rglob("cdc__merged.sql")).read_text()
    sqlglot.parse_one(compiled, read="spark")
    # only the touched keys' replica rows, not whole buckets
    assert "left semi join touched_keys" in compiled
    assert "_bucket in (" not in compiled and "untouched_rows" not in compiled
    assert "_op <> 'd'" not in compiled  # deletes reach the merge


def test_merge_matches_keys_null_safely(project: Path) -> None:
    assert "on src.`id` <=> dest.`id`" in merge_sql(project, soft_deletes=False)


def test_merge_deletes_keys_whose_latest_change_is_a_delete(project: Path) -> None:
    sql = merge_sql(project, soft_deletes=False)
    sqlglot.parse_one(sql, read="spark")
    assert "and src._deleted then delete" in sql
    assert "when not matched and not src._deleted then insert *" in sql


def test_merge_only_replaces_a_row_with_a_version_at_or_after_it(project: Path) -> None:
    sql = merge_sql(project, soft_deletes=False)
    assert "src._commit_scn > dest._commit_scn" in sql
    assert "src._redo_pos >= dest._redo_pos" in sql


def test_merge_with_soft_deletes_updates_instead_of_deleting(project: Path) -> None:
    sql = merge_sql(project, soft_deletes=True)
    assert "then delete" not in sql
    assert sql.endswith("when not matched then insert *")


def test_merge_receives_every_row_a_multi_row_key_update_moved(project: Path, spark: Any) -> None:
    assert merge_source(project, spark, "cdc__key_moves") == {
        1: ("row R1", True),
        2: ("row R1", False),
        3: ("row R2", False),
        4: ("row R3", False),
    }


def test_merge_receives_a_delete_of_every_key_a_reset_marker_retires(
    project: Path, spark: Any
) -> None:
    assert merge_source(project, spark, "cdc__reset") == {
        1: ("row R1", True),
        2: ("row R2", True),
        3: ("new", False),
    }


def test_merge_receives_older_changes_landed_later_in_their_place(
    project: Path, spark: Any
) -> None:
    """LATE_PARTIAL (tests/dbt/scenarios.py): a late snapshot under a log-only partial image,
    and an older partial landed after a newer one, as the insert_overwrite tests expect."""
    rows = merge_rows(project, spark, "cdc__late_merged")
    assert {k: (r["a"], r["b"], r["c"], r["_deleted"]) for k, r in rows.items()} == {
        1: ("a at 200", "b at 180", "snap", False),
        2: ("a at 110", "b at 120", "c1", False),
    }


def test_merge_cuts_a_dropped_column_at_a_delete_and_keeps_it_for_updated_keys(
    project: Path, spark: Any
) -> None:
    """DROPPED_COLUMN (tests/dbt/scenarios.py) on the merge path: an updated key keeps the
    dropped column's last value, a new key and a key deleted and re-inserted get NULL."""
    rows = merge_rows(project, spark, "cdc__dropped_merged")
    assert {k: (r["v"], r["gone"], r["_deleted"]) for k, r in rows.items()} == {
        1: ("b", "last value", False),
        2: ("new key", None, False),
        3: ("re-inserted", None, False),
    }


MERGE_ON_READ = {
    "delta": {"delta.enableDeletionVectors": "true"},
    "iceberg": {
        "format-version": "2",
        "write.delete.mode": "merge-on-read",
        "write.update.mode": "merge-on-read",
        "write.merge.mode": "merge-on-read",
    },
    "hudi": {"type": "mor", "primaryKey": "id"},
    "parquet": None,
}


@pytest.mark.parametrize("file_format", sorted(MERGE_ON_READ))
def test_replicas_are_created_with_merge_on_read_table_properties(
    project: Path, file_format: str
) -> None:
    """What dbt-spark puts in the replica's CREATE TABLE ... TBLPROPERTIES (its config, as
    parsed); the var oracle_cdc__merge_on_read false keeps the formats' own defaults."""
    for merge_on_read, expected in ((True, MERGE_ON_READ[file_format]), (False, None)):
        variables = {"oracle_cdc__file_format": file_format,
                     "oracle_cdc__merge_on_read": merge_on_read}  # fmt: skip
        args = ["ls", "--select", "cdc__merged", "--resource-type", "model", "--output", "json"]
        result = dbt(project, *args, "--output-keys", "config", variables=variables)
        (line,) = result.result
        config = json.loads(line)["config"]
        assert config.get("tblproperties") == expected
        assert config["file_format"] == file_format
