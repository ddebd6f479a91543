"""The landing layer's catalog calls answer through the session's JVM exactly what their SQL
answers, and fall back to the SQL where the JVM would not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from extractor.land import session_catalog
from extractor.land.staging_schema import staging_spark_columns
from extractor.land.staging_writer import StagingWriter
from tests.land.test_parquet_files import RecordingSpark as Recording
from tests.land.test_staging_writer import ALL_TYPES

pytestmark = pytest.mark.spark

SCHEMA = "oracdc_session_catalog_test"


class WithoutJvm(Recording):
    """The session as Spark Connect shows it: no JVM behind it; SQL recorded."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_j"):
            raise AttributeError(name)
        return super().__getattr__(name)


@pytest.fixture()
def staging(spark: Any) -> Iterator[str]:
    """A staging table of every type of the contract, created by the writer; its table name."""
    spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")
    writer = StagingWriter(spark, SCHEMA)
    writer.ensure_table(ALL_TYPES)
    yield writer.staging_table(ALL_TYPES).split(".")[1].strip("`")
    spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")


def _count(spark: Any, table: str) -> int:
    return int(spark.sql(f"SELECT count(*) AS n FROM {SCHEMA}.{table}").collect()[0]["n"])


def _add_file_behind_sparks_back(spark: Any, table: str, rows: int, name: str) -> None:
    location = session_catalog.table_location(spark, SCHEMA, table)
    assert location is not None and location.startswith("file:")
    data = pa.table({"_op": pa.array(["c"] * rows)})  # the other columns read as NULL
    pq.write_table(data, str(Path(location.removeprefix("file:")) / name))


def test_columns_location_and_existence_are_the_sqls(spark: Any, staging: str) -> None:
    through_sql = WithoutJvm(spark)
    columns = session_catalog.table_columns(spark, SCHEMA, staging)
    assert columns == session_catalog.table_columns(through_sql, SCHEMA, staging)
    assert [name for name, _ in columns or ()] == [c for c, _ in staging_spark_columns(ALL_TYPES)]
    location = session_catalog.table_location(spark, SCHEMA, staging)
    assert location is not None
    assert location == session_catalog.table_location(through_sql, SCHEMA, staging)
    assert any(s.startswith("DESCRIBE TABLE EXTENDED") for s in through_sql.statements)
    for exists, table in ((True, staging), (False, "no_such_log")):
        assert session_catalog.table_exists(spark, SCHEMA, table) is exists
        assert session_catalog.table_exists(through_sql, SCHEMA, table) is exists
    assert session_catalog.table_columns(spark, SCHEMA, "no_such_log") is None
    assert session_catalog.table_columns(through_sql, SCHEMA, "no_such_log") is None


@pytest.mark.parametrize("session", [Recording, WithoutJvm])
def test_a_refresh_makes_the_next_query_see_new_files(
    spark: Any, staging: str, session: type[Recording]
) -> None:
    calls = session(spark)
    assert _count(spark, staging) == 0  # the session has listed the table's files
    _add_file_behind_sparks_back(spark, staging, 3, "part-a.parquet")
    assert _count(spark, staging) == 0  # still the listing it made
    session_catalog.refresh_table(calls, SCHEMA, staging)
    assert _count(spark, staging) == 3
    refreshed_by_sql = any(s.startswith("REFRESH TABLE") for s in calls.statements)
    assert refreshed_by_sql is (session is WithoutJvm)


def test_a_session_that_caches_a_query_refreshes_by_sql_and_recaches(
    spark: Any, staging: str
) -> None:
    calls = Recording(spark)
    spark.sql(f"CACHE TABLE {SCHEMA}.{staging}")
    try:
        assert _count(spark, staging) == 0
        _add_file_behind_sparks_back(spark, staging, 2, "part-b.parquet")
        session_catalog.refresh_table(calls, SCHEMA, staging)
        assert calls.statements == [f"REFRESH TABLE `{SCHEMA}`.`{staging}`"]
        assert _count(spark, staging) == 2
    finally:
        spark.sql("CLEAR CACHE")


def _session_whose_current_catalog_is(name: str) -> Any:
    manager = SimpleNamespace(currentCatalog=lambda: SimpleNamespace(name=lambda: name))
    state = SimpleNamespace(catalogManager=lambda: manager, catalog=lambda: "session catalog")
    return SimpleNamespace(_jsparkSession=SimpleNamespace(sessionState=lambda: state))


def test_the_jvm_answers_only_while_the_current_catalog_is_the_session_catalog() -> None:
    assert session_catalog._session_catalog(_session_whose_current_catalog_is("spark_catalog"))
    assert session_catalog._session_catalog(_session_whose_current_catalog_is("lake")) is None
    assert session_catalog._session_catalog(SimpleNamespace()) is None  # Spark Connect


def test_the_writer_looks_each_table_up_once_per_process(
    spark: Any, staging: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A heartbeat per pass, a staging batch per window: the table's columns are looked up
    once, when the writer first meets it."""
    looked_up: list[str] = []
    columns_of = session_catalog.table_columns

    def counted(session: Any, schema: str, table: str) -> Any:
        looked_up.append(table)
        return columns_of(session, schema, table)

    monkeypatch.setattr(session_catalog, "table_columns", counted)
    writer = StagingWriter(spark, SCHEMA)
    for _ in range(3):
        writer.ensure_table(ALL_TYPES)
        writer.ensure_heartbeat_table()
    assert sorted(looked_up) == sorted(["_oracdc_heartbeat", "_oracdc_heartbeat", staging])
