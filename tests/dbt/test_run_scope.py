"""What an incremental run decides from the small queries before its query (`_run_scope`,
docs/dbt.md "What a replica run does"), on both replica layouts:

- keys with a NULL part (a model keyed on a nullable column) match each other, so the key keeps
  one row: the joins on the touched keys are null-safe (`<=>`) when a touched key has a NULL
  part, and compare with `=` otherwise (the faster join; exact, since a NULL replica key then
  matches no touched key either way);
- the late-key check (a new change older than the key's replica row, docs/dbt.md "Rules") runs
  only when the oldest new `_commit_scn` is not above the replica's newest: a late partial image
  still lands in its place;
- without late changes, whole replica rows are read only for keys whose newest change needs
  them (a partial image; a delete of another ROWID than the row's; a consolidated delete).

One table keyed on (CODE, N), CODE nullable. The expected rows are written here by hand.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from extractor.dbt_gen import generate_project_files
from extractor.dictionary import TableDef
from extractor.staging_contract import replica_model_name
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

CODES = TableDef(
    "SCOPE", "CODES",
    (varchar("CODE", 1), number("N", 2, nullable=False), varchar("V", 3), varchar("W", 4)),
    primary_key=("CODE", "N"),
)  # fmt: skip
MODEL = replica_model_name(CODES.owner, CODES.name)
KEY_PARTS = ("code", "n")
Row = tuple[tuple[str | None, int], str | None, str | None]
NULL_SAFE_JOIN = "touched.`code` <=> replica.`code` and touched.`n` <=> replica.`n`"
EQUALITY_JOIN = "touched.`code` = replica.`code` and touched.`n` = replica.`n`"
LATE_CHECK = "late_keys as ("
NEEDED_ROWS_ONLY = "needed_keys as ("
NEEDED_ROWS_READ = "left semi join needed_keys"
Y = (("y", 1), "a", "a")  # a key two rows share in turn (keyed on non-unique columns)


def code(code_: str | None, n: int, **values: str) -> dict[str, Any]:
    return {"code": code_, "n": Decimal(n), **values}


def replica_rows(spark: Any) -> list[Row]:
    rows = spark.table(f"{REPLICA_SCHEMA}.{MODEL}").collect()
    found = [((r["code"], int(r["n"])), r["v"], r["w"]) for r in rows]
    return sorted(found, key=lambda row: (row[0][0] is not None, row[0][0] or "", row[0][1]))


def compiled_query(project: Path) -> str:
    (path,) = (project / "target" / "compiled").rglob(f"{MODEL}.sql")
    return path.read_text()


@pytest.fixture(scope="module", params=["copy_on_write", "merge_on_read"])
def runs(
    request: pytest.FixtureRequest, spark: Any, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    for schema in (STAGING_SCHEMA, REPLICA_SCHEMA):
        spark.sql(f"drop database if exists {schema} cascade")
    project = copy_project(
        tmp_path_factory.mktemp("dbt-run-scope") / "oracle_cdc", with_views=False
    )
    generate_project_files((CODES,), project)
    variables = {"oracle_cdc__layout": request.param, "oracle_cdc__compact_share": 0}
    staging = StagingTable(CODES)
    state: dict[str, Any] = {}

    def run(name: str) -> None:
        dbt(project, "run", variables=variables)
        state[name] = replica_rows(spark)
        state[f"{name}_query"] = compiled_query(project)

    staging.land(spark, [
        Change("r", 100, code(None, 1, v="a", w="a"), row_id="AAAR01"),
        Change("r", 100, code("x", 1, v="a", w="a"), row_id="AAAR02"),
        Change("r", 100, code("x", 2, v="a", w="a"), row_id="AAAR03"),
        Change("r", 100, code("y", 1, v="a", w="a"), row_id="AAAR04"),
    ])  # fmt: skip
    run("built")
    # the NULL-keyed row changes: its replica row must be found and replaced
    staging.land(spark, [Change("u", 200, code(None, 1, v="b", w="b"), batch=2, row_id="AAAR01")])
    run("null_touched")
    # keys without a NULL part change, all after every replica row: the NULL-keyed row stays,
    # and ("x", 1) gets a partial image (V only)
    staging.land(spark, [
        Change("u", 300, code("x", 2, v="c", w="c"), batch=3, row_id="AAAR03"),
        Change("u", 310, code("x", 1, v="c"), batch=3, row_id="AAAR02", present=(*KEY_PARTS, "v")),
    ])  # fmt: skip
    run("newer")
    # a partial image (W only) older than ("x", 1)'s replica row lands late, committed with it
    # (same _commit_scn, lower _scn): ranked between the snapshot and the change at 310, it
    # keeps V from 310 and sets W
    late = Change(
        "u", 250, code("x", 1, w="late"), commit_scn=310, batch=4, row_id="AAAR02",
        present=(*KEY_PARTS, "w"),
    )  # fmt: skip
    staging.land(spark, [late])
    run("late")
    # deletes after every replica row: ("x", 2) and ("y", 1) by another ROWID than their
    # replica row's (a row that took the key and left it: the replica row stays live), the
    # NULL-keyed row by its own
    staging.land(spark, [
        Change("d", 400, code("x", 2, v="gone", w="gone"), batch=5, row_id="AAAR09"),
        Change("d", 395, code(None, 1, v="b", w="b"), batch=5, row_id="AAAR01"),
        Change("d", 402, code("y", 1, v="gone", w="gone"), batch=5, row_id="AAAR0B"),
    ])  # fmt: skip
    run("deletes")
    # that other row's insert of ("y", 1) lands late, after every replica row (merge-on-read:
    # the tombstone at 395) but before its consolidated delete (402): the delete retires it,
    # and the replica row stays the key's
    staging.land(spark, [Change("c", 398, code("y", 1, v="b", w="b"), batch=6, row_id="AAAR0B")])
    run("retired")
    return state


def test_a_null_key_part_matches_itself(runs: dict[str, Any]) -> None:
    assert runs["built"] == [((None, 1), "a", "a"), (("x", 1), "a", "a"), (("x", 2), "a", "a"), Y]
    assert runs["null_touched"] == [
        ((None, 1), "b", "b"), (("x", 1), "a", "a"), (("x", 2), "a", "a"), Y,
    ]  # fmt: skip
    assert NULL_SAFE_JOIN in runs["null_touched_query"]


def test_keys_without_null_parts_are_joined_with_equality(runs: dict[str, Any]) -> None:
    assert runs["newer"] == [((None, 1), "b", "b"), (("x", 1), "c", "a"), (("x", 2), "c", "c"), Y]
    assert EQUALITY_JOIN in runs["newer_query"]
    assert "<=> replica." not in runs["newer_query"]


def test_the_late_check_runs_only_when_a_change_can_be_late(runs: dict[str, Any]) -> None:
    assert runs["late"] == [((None, 1), "b", "b"), (("x", 1), "c", "late"), (("x", 2), "c", "c"), Y]
    assert LATE_CHECK not in runs["null_touched_query"]
    assert LATE_CHECK not in runs["newer_query"]
    assert LATE_CHECK in runs["late_query"]


def test_only_the_replica_rows_the_result_needs_are_read(runs: dict[str, Any]) -> None:
    """Without late changes a run reads whole replica rows only for keys whose newest change is
    a partial image (("x", 1) in the "newer" run), a delete of another ROWID than the row's, or
    that have a consolidated delete (which may be newer than the new change)."""
    assert runs["deletes"] == [(("x", 1), "c", "late"), (("x", 2), "c", "c"), Y]
    assert runs["retired"] == [(("x", 1), "c", "late"), (("x", 2), "c", "c"), Y]
    for run in ("newer", "deletes", "retired"):
        assert NEEDED_ROWS_READ in runs[f"{run}_query"], run
    assert NEEDED_ROWS_ONLY not in runs["late_query"]
