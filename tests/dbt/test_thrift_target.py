"""The cluster target: ``dbt build`` with ``method: thrift`` against a local Spark Thrift Server.

The server (its own JVM and metastore) is started by the test on 127.0.0.1 and stopped after.
Staging rows are landed through the server with SQL, as a cluster-side loader would.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from extractor.dbt_gen import generate_project_files
from extractor.lakehouse.dbt_runner import run_dbt
from tests.dbt.dbt_helpers import REPLICA_SCHEMA, STAGING_SCHEMA, Change, StagingTable, copy_project
from tests.dbt.scenarios import DEPARTMENTS, EMPLOYEES
from tests.dbt.thrift_server import ThriftServer, start_thrift_server

pytestmark = pytest.mark.thrift


def sql_literal(value: Any, ddl: str) -> str:
    """``value`` as a Spark SQL literal of the staging column type ``ddl``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        kind = "timestamp" if ddl == "TIMESTAMP" else "timestamp_ntz"
        return f"{kind}'{value.isoformat(sep=' ')}'"
    if isinstance(value, list):
        return "array(" + ", ".join(sql_literal(v, "STRING") for v in value) + ")"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def land_over_thrift(cursor: Any, staging: StagingTable, changes: list[Change]) -> None:
    cursor.execute(f"create database if not exists {STAGING_SCHEMA}")
    cursor.execute(f"create table if not exists {staging.name} ({staging.ddl()}) using parquet")
    rows = []
    for change in changes:
        record = {name: change.values.get(name) for name, _ in staging.columns()}
        record.update(change.metadata())
        literals = [sql_literal(record[name], ddl) for name, ddl in staging.columns()]
        rows.append("(" + ", ".join(literals) + ")")
    cursor.execute(f"insert into {staging.name} values {', '.join(rows)}")


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThriftServer]:
    server = start_thrift_server(tmp_path_factory.mktemp("thrift-server"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def cursor(thrift_server: ThriftServer) -> Iterator[Any]:
    from pyhive import hive

    connection = hive.connect(host="127.0.0.1", port=thrift_server.port, username="oracdc")
    try:
        yield connection.cursor()
    finally:
        connection.close()


def test_dbt_build_runs_on_a_spark_thrift_server(
    thrift_server: ThriftServer,
    cursor: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = copy_project(tmp_path / "oracle_cdc")
    generate_project_files([DEPARTMENTS, EMPLOYEES], project)
    monkeypatch.setenv("ORACDC_THRIFT_PORT", str(thrift_server.port))
    monkeypatch.setenv("ORACDC_THRIFT_HOST", "127.0.0.1")
    departments, employees = StagingTable(DEPARTMENTS), StagingTable(EMPLOYEES)
    land_over_thrift(
        cursor,
        departments,
        [Change("r", 100, {"department_id": Decimal(10), "department_name": "Admin"})],
    )
    land_over_thrift(
        cursor,
        employees,
        [
            Change("r", 100, {"employee_id": Decimal(100), "last_name": "King",
                              "department_id": Decimal(10)}),
            Change("r", 100, {"employee_id": Decimal(101), "last_name": "Kochhar",
                              "department_id": Decimal(10)}),
        ],
    )  # fmt: skip
    first = run_dbt(["build"], project_dir=project, profiles_dir=project, target="thrift")
    assert first.success, first.exception or [r.message for r in first.result.results]
    land_over_thrift(
        cursor,
        employees,
        [
            Change("u", 200, {"employee_id": Decimal(100), "last_name": "King II",
                              "department_id": Decimal(10)}, batch=2),
            Change("d", 210, {"employee_id": Decimal(101)}, batch=2),
        ],
    )  # fmt: skip
    second = run_dbt(["build"], project_dir=project, profiles_dir=project, target="thrift")
    assert second.success, second.exception or [r.message for r in second.result.results]
    cursor.execute(
        f"select employee_id, last_name, department_name "
        f"from {REPLICA_SCHEMA}.hr__employees_with_department order by employee_id"
    )
    assert cursor.fetchall() == [(Decimal(100), "King II", "Admin")]
