"""Landing by Parquet files written here: crashes leave none of a batch visible, leftovers of a
crashed write go away, and a storage or type out of reach falls back to the Spark append."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs
import pytest

from extractor.land import parquet_files, session_catalog
from extractor.land.change_batch import change_batch
from extractor.land.parquet_files import (
    TEMPORARY_PREFIX,
    TEMPORARY_SUFFIX,
    ParquetFileWriter,
    arrow_type,
)
from extractor.land.staging_schema import staging_spark_columns
from extractor.land.staging_writer import StagingWriter
from extractor.spark_types import spark_type
from tests.land.records import EMP, EXTRACTED_AT, change
from tests.land.test_staging_writer import ALL_TYPES, EMP_V2

pytestmark = pytest.mark.spark

SCHEMA = "oracdc_parquet_files_test"


class RecordingSpark:
    """The session, with every SQL statement it is given recorded."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self.statements: list[str] = []

    def sql(self, text: str) -> Any:
        self.statements.append(text)
        return self._spark.sql(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._spark, name)


class CatalogCalls:
    """The refreshes and location lookups the writer asks of ``session_catalog``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def count(self, kind: str, name: str) -> int:
        return self.calls.count((kind, name))


@pytest.fixture()
def catalog_calls(monkeypatch: pytest.MonkeyPatch) -> CatalogCalls:
    recorded = CatalogCalls()
    refresh, location = session_catalog.refresh_table, session_catalog.table_location

    def recording_refresh(spark: Any, schema: str, table: str) -> None:
        recorded.calls.append(("refresh", f"`{schema}`.`{table}`"))
        refresh(spark, schema, table)

    def recording_location(spark: Any, schema: str, table: str) -> str | None:
        recorded.calls.append(("location", f"`{schema}`.`{table}`"))
        return location(spark, schema, table)

    monkeypatch.setattr(session_catalog, "refresh_table", recording_refresh)
    monkeypatch.setattr(session_catalog, "table_location", recording_location)
    return recorded


@pytest.fixture()
def spark_calls(spark: Any) -> Iterator[RecordingSpark]:
    spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")
    yield RecordingSpark(spark)
    spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")


def _batch(table: Any, ids: range, batch_id: int) -> Any:
    records = [
        change("c", {"ID": n, "NAME": f"n{n}", "SALARY": None}, full_image=True, redo_pos=n,
               owner=table.owner, table=table.name)
        for n in ids
    ]  # fmt: skip
    return change_batch(table, records, batch_id=batch_id, extracted_at=EXTRACTED_AT)


def _directory(spark: Any, name: str) -> Path:
    storage = ParquetFileWriter(spark).storage(name)
    assert storage is not None
    return Path(storage.directory)


def _count(spark: Any, name: str) -> int:
    return int(spark.sql(f"SELECT count(*) AS n FROM {name}").collect()[0]["n"])


def test_every_spark_type_of_the_staging_contract_has_an_arrow_form() -> None:
    for column, spark_ddl in staging_spark_columns(ALL_TYPES):
        assert arrow_type(spark_ddl) is not None, (column, spark_ddl)
    assert arrow_type("map<string,string>") is None


def test_one_refresh_per_batch_and_the_location_read_with_the_columns(
    spark_calls: RecordingSpark, catalog_calls: CatalogCalls
) -> None:
    writer = StagingWriter(spark_calls, SCHEMA)
    name = writer.staging_table(EMP)
    writer.append(EMP, _batch(EMP, range(3), 1))
    assert _count(spark_calls, name) == 3  # the session has listed the table's files
    writer.append(EMP, _batch(EMP, range(3, 5), 2))
    assert catalog_calls.count("refresh", name) == 2
    assert catalog_calls.count("location", name) == 0  # read with the columns, once
    assert _count(spark_calls, name) == 5


def test_a_table_met_short_of_a_column_gains_it_and_still_takes_files_written_here(
    spark_calls: RecordingSpark,
) -> None:
    """A process that meets a staging table lacking a column (the dictionary added it)
    adds the column and lands its first batch as a file written here, at the location read
    with the columns."""
    StagingWriter(spark_calls, SCHEMA).ensure_table(EMP)  # an earlier process
    writer = StagingWriter(spark_calls, SCHEMA)
    name = writer.staging_table(EMP_V2)
    writer.append(EMP_V2, _batch(EMP_V2, range(2), 1))
    assert [s for s in spark_calls.statements if s.startswith("ALTER TABLE")]
    assert _count(spark_calls, name) == 2
    landed = [p.name for p in _directory(spark_calls, name).iterdir()]
    assert len([n for n in landed if n.startswith("part-oracdc-")]) == 1, landed


def test_inside_a_deferred_block_each_table_is_refreshed_once_at_its_end(
    spark_calls: RecordingSpark, catalog_calls: CatalogCalls
) -> None:
    """A stream pass lands a batch per window and table: one REFRESH per table per pass,
    and the session reads every batch after it."""
    writer = StagingWriter(spark_calls, SCHEMA)
    name = writer.staging_table(EMP)
    writer.append(EMP, _batch(EMP, range(2), 1))  # outside: refreshed at once
    assert _count(spark_calls, name) == 2
    with writer.refreshes_deferred():
        writer.append(EMP, _batch(EMP, range(2, 5), 2))
        with writer.refreshes_deferred():  # a nested block joins the outer one
            writer.append(EMP, _batch(EMP, range(5, 6), 3))
        assert catalog_calls.count("refresh", name) == 1
    assert catalog_calls.count("refresh", name) == 2
    assert _count(spark_calls, name) == 6


def test_this_writers_reads_inside_a_deferred_block_see_every_landed_batch(
    spark_calls: RecordingSpark, catalog_calls: CatalogCalls
) -> None:
    writer = StagingWriter(spark_calls, SCHEMA)
    name = writer.staging_table(EMP)
    writer.append(EMP, _batch(EMP, range(2), 1))
    assert _count(spark_calls, name) == 2  # the session has listed the table's files
    with writer.refreshes_deferred():
        writer.append(EMP, _batch(EMP, range(2, 5), 7))
        assert writer.landed_rows(EMP) == 5
        writer.append(EMP, _batch(EMP, range(5, 6), 8))
        assert writer.max_batch_id() == 8
    assert catalog_calls.count("refresh", name) == 3


def test_a_failing_deferred_block_refreshes_and_keeps_its_error(
    spark_calls: RecordingSpark,
) -> None:
    writer = StagingWriter(spark_calls, SCHEMA)
    name = writer.staging_table(EMP)
    writer.append(EMP, _batch(EMP, range(2), 1))
    assert _count(spark_calls, name) == 2
    with pytest.raises(RuntimeError, match="window failed"), writer.refreshes_deferred():
        writer.append(EMP, _batch(EMP, range(2, 4), 2))
        raise RuntimeError("window failed")
    assert _count(spark_calls, name) == 4
    writer.append(EMP, _batch(EMP, range(4, 5), 3))  # after the block: refreshed at once
    assert _count(spark_calls, name) == 5


def test_a_write_that_fails_before_its_rename_leaves_nothing_visible_and_no_file(
    spark_calls: RecordingSpark, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = StagingWriter(spark_calls, SCHEMA)
    writer.append(EMP, _batch(EMP, range(2), 1))
    name = writer.staging_table(EMP)
    directory = _directory(spark_calls, name)
    before = sorted(os.listdir(directory))

    def crash(filesystem: pafs.FileSystem, temporary: str, final: str) -> None:
        assert os.path.exists(temporary)  # written in full, not yet renamed
        raise OSError("disk gone")

    monkeypatch.setattr(parquet_files, "_publish", crash)
    with pytest.raises(OSError, match="disk gone"):
        writer.append(EMP, _batch(EMP, range(2, 4), 2))
    monkeypatch.undo()
    assert sorted(os.listdir(directory)) == before
    assert _count(spark_calls, name) == 2


def test_a_crashed_writes_hidden_file_is_never_read_and_is_removed_once_old(
    spark_calls: RecordingSpark,
) -> None:
    writer = StagingWriter(spark_calls, SCHEMA)
    writer.append(EMP, _batch(EMP, range(2), 1))
    name = writer.staging_table(EMP)
    directory = _directory(spark_calls, name)
    visible = next(p for p in directory.iterdir() if p.name.startswith("part-"))
    old = directory / f"{TEMPORARY_PREFIX}old{TEMPORARY_SUFFIX}"
    young = directory / f"{TEMPORARY_PREFIX}young{TEMPORARY_SUFFIX}"
    for leftover in (old, young):  # what a process killed between write and rename leaves
        leftover.write_bytes(visible.read_bytes())
    an_hour_ago = time.time() - parquet_files.LEFTOVER_AGE_SECONDS - 60
    os.utime(old, (an_hour_ago, an_hour_ago))
    spark_calls.sql(f"REFRESH TABLE {name}")
    assert _count(spark_calls, name) == 2  # hidden files are not part of the table

    ParquetFileWriter(spark_calls).storage(name)  # a new process opens the table

    assert not old.exists()
    assert young.exists()  # it may be a running landing's


def test_a_storage_out_of_reach_lands_through_spark(
    spark_calls: RecordingSpark,
    catalog_calls: CatalogCalls,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(ParquetFileWriter, "_location", lambda self, name: "nosuchfs://x/y")
    writer = StagingWriter(spark_calls, SCHEMA)
    table = replace(EMP, name="UNREACHABLE")
    with caplog.at_level("INFO", logger="extractor.land.parquet_files"):
        assert writer.append(table, _batch(table, range(3), 1)) == 3
    name = writer.staging_table(table)
    files = {
        row["f"].rsplit("/", 1)[-1]
        for row in spark_calls.sql(f"SELECT DISTINCT input_file_name() AS f FROM {name}").collect()
    }
    assert len(files) == 1
    assert not next(iter(files)).startswith("part-oracdc-")
    assert "nosuchfs://x/y is out of reach" in caplog.text
    assert catalog_calls.count("refresh", name) == 0


def test_a_column_type_without_an_arrow_form_lands_through_spark(
    spark_calls: RecordingSpark, catalog_calls: CatalogCalls, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet_files, "arrow_type", lambda spark_ddl: None)
    writer = StagingWriter(spark_calls, SCHEMA)
    assert writer.append(EMP, _batch(EMP, range(3), 1)) == 3
    assert _count(spark_calls, writer.staging_table(EMP)) == 3
    assert catalog_calls.count("refresh", writer.staging_table(EMP)) == 0


def test_the_arrow_form_of_each_source_type_is_the_one_spark_reads() -> None:
    """What the change batch carries per Oracle type casts losslessly to the Parquet
    writer's type of that column's Spark type (the cast is the identity)."""
    from extractor.land.staging_schema import staging_arrow_schema

    schema = staging_arrow_schema(ALL_TYPES)
    for column in ALL_TYPES.columns:
        field = schema.field(column.name.lower())
        assert arrow_type(spark_type(column)) == field.type, column.name


class RefreshFailsFor:
    """A session whose REFRESH of one table fails (only ``sql`` is used here)."""

    def __init__(self, failing: str) -> None:
        self.failing = failing
        self.statements: list[str] = []

    def sql(self, text: str) -> None:
        self.statements.append(text)
        if self.failing in text:
            raise RuntimeError(f"cannot refresh {self.failing}")


def test_a_failed_refresh_leaves_no_other_table_stale() -> None:
    spark = RefreshFailsFor("`s`.`a_log`")
    files = ParquetFileWriter(spark)
    with pytest.raises(RuntimeError, match="cannot refresh"), files.refreshes_deferred():
        # what append records after writing a file into each of three tables
        files._stale.update({"`s`.`a_log`", "`s`.`b_log`", "`s`.`c_log`"})  # type: ignore[union-attr]
    assert spark.statements == [
        "REFRESH TABLE `s`.`a_log`",
        "REFRESH TABLE `s`.`b_log`",
        "REFRESH TABLE `s`.`c_log`",
    ]
