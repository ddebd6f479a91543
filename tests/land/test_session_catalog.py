"""The landing layer's catalog calls answer through the session's JVM exactly what their SQL
answers, and fall back to the SQL where the JVM would not."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
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
    facts = session_catalog.TableFacts(columns or (), location)
    assert session_catalog.table_facts(spark, SCHEMA, staging) == facts
    assert session_catalog.table_facts(through_sql, SCHEMA, staging) == facts
    for session in (spark, through_sql):
        assert session_catalog.table_facts(session, SCHEMA, "no_such_log") is None
        assert session_catalog.table_facts(session, "no_such_schema", staging) is None
        assert session_catalog.table_columns(session, "no_such_schema", staging) is None


def test_a_location_that_uris_escape_reads_as_describe_prints_it(
    spark: Any, staging: str, tmp_path: Path
) -> None:
    moved = tmp_path / "a place with spaces"
    moved.mkdir()
    spark.sql(f"ALTER TABLE {SCHEMA}.{staging} SET LOCATION '{moved}'")
    through_sql = WithoutJvm(spark)
    location = session_catalog.table_location(through_sql, SCHEMA, staging)
    assert location is not None and location.endswith("a place with spaces")
    facts = session_catalog.table_facts(spark, SCHEMA, staging)
    assert facts is not None and facts.location == location
    assert session_catalog.table_location(spark, SCHEMA, staging) == location


def test_char_and_varchar_columns_read_as_the_queries_see_them(spark: Any, staging: str) -> None:
    """A table made by hand: CHAR and VARCHAR columns are STRING to queries, and so to the
    writer's type check."""
    columns = "a VARCHAR(10), b CHAR(3), c INT"
    spark.sql(f"CREATE TABLE {SCHEMA}.typed_by_hand ({columns}) USING PARQUET")
    through_sql = WithoutJvm(spark)
    expected = (("a", "string"), ("b", "string"), ("c", "int"))
    assert session_catalog.table_columns(through_sql, SCHEMA, "typed_by_hand") == expected
    assert session_catalog.table_columns(spark, SCHEMA, "typed_by_hand") == expected
    facts = session_catalog.table_facts(spark, SCHEMA, "typed_by_hand")
    assert facts is not None and facts.columns == expected


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


@pytest.mark.parametrize("landing", ["auto", "spark"])
def test_the_writer_reads_each_table_once_per_process(
    spark: Any, staging: str, monkeypatch: pytest.MonkeyPatch, landing: str
) -> None:
    """A heartbeat per pass, a staging batch per window: a table's metadata is read once
    when the writer first meets it (twice when it creates it: before and after), its
    location with its columns when Parquet files land in it, never when they do not."""
    looked_up: list[tuple[str, str]] = []
    for call in ("table_facts", "table_columns", "table_location", "table_exists"):
        monkeypatch.setattr(session_catalog, call, _counted(call, looked_up))
    writer = StagingWriter(spark, SCHEMA, landing=landing)
    for n in range(3):
        writer.ensure_table(ALL_TYPES)
        writer.ensure_heartbeat_table()
        writer.append_heartbeat(n, datetime(2024, 1, 1, tzinfo=UTC))
    read = "table_facts" if landing == "auto" else "table_columns"
    assert sorted(looked_up) == sorted([(read, "_oracdc_heartbeat")] * 2 + [(read, staging)])
    heartbeats = spark.sql(f"SELECT mined_to_scn FROM {SCHEMA}._oracdc_heartbeat").collect()
    assert sorted(row[0] for row in heartbeats) == [0, 1, 2]
    files = [f.name for f in Path(_location(spark, "_oracdc_heartbeat")).iterdir()]
    landed_here = [f for f in files if f.startswith("part-oracdc-")]
    assert len(landed_here) == (3 if landing == "auto" else 0)


def _counted(call: str, calls: list[tuple[str, str]]) -> Any:
    original = getattr(session_catalog, call)

    def counted(session: Any, schema: str, table: str) -> Any:
        calls.append((call, table))
        return original(session, schema, table)

    return counted


def _location(spark: Any, table: str) -> str:
    location = session_catalog.table_location(spark, SCHEMA, table)
    assert location is not None and location.startswith("file:")
    return location.removeprefix("file:")
