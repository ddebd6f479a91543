"""``oracdc generate``: the dbt files written from the Oracle dictionary (no Spark needed, but
for one test that runs the generated key tests on a replica)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from extractor.cli.main import main
from extractor.dbt_gen import FileAction, generate_project_files
from extractor.dictionary import ColumnDef, TableDef
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.staging_contract import METADATA_COLUMN_NAMES
from tests.dbt.dbt_helpers import Change, StagingTable, copy_project, number, varchar

REPO = Path(__file__).resolve().parents[2]

EMPLOYEES = TableDef(
    owner="HR",
    name="EMPLOYEES",
    columns=(
        ColumnDef("EMPLOYEE_ID", 1, "NUMBER", 22, 6, 0, nullable=False),
        ColumnDef("LAST_NAME", 2, "VARCHAR2", 25, None, None, nullable=False),
        ColumnDef("HIRE_DATE", 3, "DATE", 7, None, None, nullable=True),
    ),
    primary_key=("EMPLOYEE_ID",),
)
AUDIT_LOG = TableDef(
    owner="APP",
    name="AUDIT_LOG",
    columns=(ColumnDef("MESSAGE", 1, "VARCHAR2", 200, None, None),),
)
ORDER_LINES = TableDef(
    owner="SALES",
    name="ORDER_LINES",
    columns=(
        ColumnDef("ORDER_ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("LINE_NO", 2, "NUMBER", 22, 4, 0, nullable=False),
    ),
    primary_key=("ORDER_ID", "LINE_NO"),
)


def _load_yaml(path: Path) -> dict[str, object]:
    loaded = yaml.safe_load(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _model_columns(project: Path, model: str) -> dict[str, dict[str, object]]:
    schema = _load_yaml(project / "models" / "replica" / f"{model}.yml")
    (entry,) = schema["models"]  # type: ignore[misc]
    return {column["name"]: column for column in entry["columns"]}


def _source_table(project: Path, name: str) -> dict[str, object]:
    sources = _load_yaml(project / "models" / "staging" / "_sources.yml")
    (source,) = sources["sources"]  # type: ignore[misc]
    return next(t for t in source["tables"] if t["name"] == name)


def test_one_model_file_per_table_named_owner__table(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES, AUDIT_LOG], tmp_path)
    models = sorted(p.name for p in (tmp_path / "models" / "replica").glob("*.sql"))
    assert models == ["app__audit_log.sql", "hr__employees.sql"]


def test_model_calls_consolidate_on_its_staging_table_keyed_by_the_primary_key(
    tmp_path: Path,
) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    sql = (tmp_path / "models" / "replica" / "hr__employees.sql").read_text()
    assert "oracle_cdc.consolidate(" in sql
    assert "source('oracdc_staging', 'hr__employees_log')" in sql
    assert "key_columns=['employee_id']" in sql


def test_table_without_primary_key_is_keyed_by_row_id(tmp_path: Path) -> None:
    generate_project_files([AUDIT_LOG], tmp_path)
    sql = (tmp_path / "models" / "replica" / "app__audit_log.sql").read_text()
    assert "key_columns=['_row_id']" in sql


def test_key_column_is_tested_unique_and_not_null(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    key = _model_columns(tmp_path, "hr__employees")["employee_id"]
    assert key["data_tests"] == ["not_null", "unique"]


def test_composite_key_is_tested_as_a_combination(tmp_path: Path) -> None:
    generate_project_files([ORDER_LINES], tmp_path)
    schema = _load_yaml(tmp_path / "models" / "replica" / "sales__order_lines.yml")
    (model,) = schema["models"]  # type: ignore[misc]
    assert model["data_tests"] == [
        {"oracle_cdc.unique_combination": {"arguments": {"columns": ["order_id", "line_no"]}}}
    ]


def test_primary_key_of_a_row_id_keyed_replica_is_tested_unique_among_live_rows(
    tmp_path: Path,
) -> None:
    row_id_keyed = TableDef(
        ORDER_LINES.owner,
        ORDER_LINES.name,
        ORDER_LINES.columns,
        ORDER_LINES.primary_key,
        supplemental_logging="PRIMARY KEY",
    )
    generate_project_files([row_id_keyed], tmp_path)
    schema = _load_yaml(tmp_path / "models" / "replica" / "sales__order_lines.yml")
    (model,) = schema["models"]  # type: ignore[misc]
    assert model["data_tests"] == [
        {
            "oracle_cdc.unique_combination": {
                "arguments": {"columns": ["order_id", "line_no"]},
                "config": {
                    "where": "not _deleted and order_id is not null and line_no is not null"
                },
            }
        }
    ]
    assert _model_columns(tmp_path, "sales__order_lines")["_row_id"]["data_tests"] == [
        "not_null",
        "unique",
    ]


@pytest.mark.spark
def test_generated_tests_catch_two_live_rows_of_one_primary_key(spark: Any, tmp_path: Path) -> None:
    # ROWID-keyed (PRIMARY KEY logging): id 1 snapshotted twice under two ROWIDs (a re-snapshot
    # after a row move); id 2 deleted and re-inserted under a new ROWID (soft deletes keep both)
    table = TableDef(
        "CDC",
        "PK_TWICE",
        (number("ID", 1, nullable=False), varchar("V", 2)),
        primary_key=("ID",),
        supplemental_logging="PRIMARY KEY",
    )
    StagingTable(table).land(
        spark,
        [
            Change("r", 100, {"id": Decimal(1), "v": "first snapshot"}, row_id="AAAR1"),
            Change("r", 200, {"id": Decimal(1), "v": "second snapshot"}, row_id="AAAR2"),
            Change("c", 100, {"id": Decimal(2), "v": "inserted"}, row_id="AAAR3"),
            Change("d", 150, {"id": Decimal(2)}, present=("id",), row_id="AAAR3"),
            Change("c", 160, {"id": Decimal(2), "v": "re-inserted"}, row_id="AAAR4"),
        ],
    )
    project = copy_project(tmp_path / "project", with_views=False)
    generate_project_files([table], project)
    result = run_dbt(
        ["build", "--select", "cdc__pk_twice"],
        project_dir=project,
        profiles_dir=project,
        variables={"oracle_cdc__soft_deletes": True},
    )
    failed = {r.node.name: r.failures for r in result.result.results if str(r.status) == "fail"}
    assert [(name.split("_cdc__")[0], count) for name, count in failed.items()] == [
        ("oracle_cdc_unique_combination", 1)
    ]


def test_column_docs_give_oracle_type_and_nullability(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    columns = _model_columns(tmp_path, "hr__employees")
    assert "Oracle VARCHAR2(25) NOT NULL" in str(columns["last_name"]["description"])
    assert "Oracle DATE NULL" in str(columns["hire_date"]["description"])
    assert "Oracle NUMBER(6,0) NOT NULL" in str(columns["employee_id"]["description"])


def test_staging_source_freshness_is_the_later_of_extracted_at_and_the_heartbeat(
    tmp_path: Path,
) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    sources = _load_yaml(tmp_path / "models" / "staging" / "_sources.yml")
    (source,) = sources["sources"]  # type: ignore[misc]
    query = source["config"]["loaded_at_query"]
    assert "max(_extracted_at) from {{ this }}" in query
    assert "max(heartbeat_at) from {{ this.schema }}._oracdc_heartbeat" in query
    assert "loaded_at_field" not in source["config"]  # dbt refuses both at one level
    assert set(source["config"]["freshness"]) == {"warn_after", "error_after"}
    heartbeat = _source_table(tmp_path, "_oracdc_heartbeat")
    assert heartbeat["config"] == {"loaded_at_field": "heartbeat_at"}  # type: ignore[index]


def test_staging_op_accepts_exactly_the_four_operations(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    staging = _source_table(tmp_path, "hr__employees_log")
    op = next(c for c in staging["columns"] if c["name"] == "_op")  # type: ignore[attr-defined]
    accepted = next(t for t in op["data_tests"] if isinstance(t, dict))
    assert sorted(accepted["accepted_values"]["arguments"]["values"]) == ["c", "d", "r", "t", "u"]


def test_second_run_on_the_same_dictionary_changes_nothing(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    report = generate_project_files([EMPLOYEES], tmp_path)
    assert {c.action for c in report.changes} == {FileAction.UNCHANGED}


def test_generated_file_is_updated_when_the_dictionary_changes(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    wider = TableDef(
        EMPLOYEES.owner,
        EMPLOYEES.name,
        (*EMPLOYEES.columns, ColumnDef("EMAIL", 4, "VARCHAR2", 25, None, None)),
        EMPLOYEES.primary_key,
    )
    report = generate_project_files([wider], tmp_path)
    schema_change = next(c for c in report.changes if c.path.name == "hr__employees.yml")
    assert schema_change.action is FileAction.UPDATE
    assert "email" in _model_columns(tmp_path, "hr__employees")


def test_file_edited_by_hand_is_kept_and_reported(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    model = tmp_path / "models" / "replica" / "hr__employees.sql"
    edited = model.read_text().replace(
        "partition_by=['_bucket'],", "partition_by=['_bucket'],\n  tags=['hr'],"
    )
    model.write_text(edited)
    report = generate_project_files([EMPLOYEES], tmp_path)
    assert [c.path for c in report.kept_edited] == [model]
    assert model.read_text() == edited


def test_force_overwrites_a_file_edited_by_hand(tmp_path: Path) -> None:
    generate_project_files([EMPLOYEES], tmp_path)
    model = tmp_path / "models" / "replica" / "hr__employees.sql"
    model.write_text(model.read_text() + "\n-- my note\n")
    report = generate_project_files([EMPLOYEES], tmp_path, force=True)
    assert [c.path for c in report.with_action(FileAction.OVERWRITE_EDITED)] == [model]
    assert "my note" not in model.read_text()


def test_hand_written_file_without_header_is_kept(tmp_path: Path) -> None:
    model = tmp_path / "models" / "replica" / "hr__employees.sql"
    model.parent.mkdir(parents=True)
    model.write_text("select 1 as employee_id\n")
    report = generate_project_files([EMPLOYEES], tmp_path)
    assert [c.path for c in report.kept_edited] == [model]
    assert model.read_text() == "select 1 as employee_id\n"


def test_dry_run_writes_nothing_and_reports_the_diff(tmp_path: Path) -> None:
    report = generate_project_files([EMPLOYEES], tmp_path, dry_run=True)
    assert not (tmp_path / "models").exists()
    model_change = next(c for c in report.changes if c.path.name == "hr__employees.sql")
    assert model_change.action is FileAction.CREATE
    assert "+{{ oracle_cdc.consolidate(" in model_change.diff


def test_generated_header_records_the_sha256_of_the_rest(tmp_path: Path) -> None:
    import hashlib

    generate_project_files([EMPLOYEES], tmp_path)
    text = (tmp_path / "models" / "replica" / "hr__employees.sql").read_text()
    header, rest = text.split("\n", 1)
    match = re.search(r"sha256=([0-9a-f]{64})", header)
    assert match is not None
    assert match.group(1) == hashlib.sha256(rest.encode()).hexdigest()


def test_cli_generate_writes_the_files_of_a_dictionary_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dictionary = tmp_path / "dictionary.json"
    dictionary.write_text(json.dumps({"tables": [EMPLOYEES.to_json()]}))
    project = tmp_path / "project"
    code = main(["generate", "--dictionary", str(dictionary), "--project-dir", str(project)])
    assert code == 0
    assert (project / "models" / "replica" / "hr__employees.sql").exists()
    assert "create" in capsys.readouterr().out


def test_cli_generate_reports_an_unreadable_dictionary_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dictionary = tmp_path / "dictionary.json"
    dictionary.write_text("{not json")
    code = main(["generate", "--dictionary", str(dictionary), "--project-dir", str(tmp_path)])
    assert code == 1
    error = capsys.readouterr().err.strip()
    assert "not JSON" in error
    assert "\n" not in error


def test_macro_metadata_columns_follow_the_staging_contract() -> None:
    macro = (REPO / "macros" / "internal" / "_replica_metadata_columns.sql").read_text()
    names = tuple(re.findall(r"'(_[a-z_]+)':", macro))
    assert names == tuple(n for n in METADATA_COLUMN_NAMES if n != "_present")


def test_the_hr_example_models_are_what_the_generator_writes() -> None:
    from extractor.dbt_gen.dictionary_file import load_dictionary_tables

    tables = load_dictionary_tables(REPO / "tests" / "dbt" / "data" / "hr_dictionary.json")
    report = generate_project_files(tables, REPO / "examples" / "hr", dry_run=True)
    assert {c.action for c in report.changes} == {FileAction.UNCHANGED}
