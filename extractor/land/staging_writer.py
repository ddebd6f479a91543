"""Append landing batches to the Spark staging tables and the two audit tables.

One ``StagingWriter`` per process and target schema. Staging tables are Parquet,
append-only, named ``<owner>__<table>_log`` (``staging_contract``); they are created on first
use and gain columns when the dictionary does (a dropped source column stays and gets NULLs).
Tables are created and evolved through ``spark.sql``. A batch lands as one Parquet file that
pyarrow writes into the table's storage when this process reaches it (``parquet_files``,
``landing="auto"``, the default), else through ``createDataFrame`` / ``insertInto``
(``landing="spark"``, or a storage out of reach), so it works in embedded mode and over Spark
Connect alike.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import pyarrow as pa

from extractor.dictionary import TableDef
from extractor.errors import LandingError, StagingSchemaError
from extractor.land import session_catalog
from extractor.land.audit_records import (
    ERRORS_COLUMNS,
    ERRORS_SCHEMA,
    ERRORS_TABLE,
    HEARTBEAT_COLUMNS,
    HEARTBEAT_SCHEMA,
    HEARTBEAT_TABLE,
    SCHEMA_HISTORY_COLUMNS,
    SCHEMA_HISTORY_SCHEMA,
    SCHEMA_HISTORY_TABLE,
    QuarantinedChange,
    SchemaChange,
)
from extractor.land.parquet_files import ParquetFileWriter
from extractor.land.session_catalog import TableFacts
from extractor.land.spark_sql import (
    Columns,
    checked_name,
    normalized_type,
    qualified_table,
    quote_identifier,
    split_qualified,
)
from extractor.land.staging_schema import staging_spark_columns
from extractor.staging_contract import staging_table_name

LOG = logging.getLogger(__name__)

# Spark's cap on rows per written file; the writer holds it at 0 (no cap) during its inserts.
_MAX_RECORDS_PER_FILE = "spark.sql.files.maxRecordsPerFile"

# How batches reach the tables: "auto" (Parquet files written here where the storage is
# reachable, else Spark) or "spark" (always createDataFrame + insertInto).
LANDING_MODES = ("auto", "spark")


class StagingWriter:
    """Creates, evolves and appends to the staging tables of one Spark schema (database)."""

    def __init__(self, spark: Any, schema: str, *, landing: str = "auto") -> None:
        if landing not in LANDING_MODES:
            raise ValueError(f"landing must be one of {LANDING_MODES}, not {landing!r}")
        self._spark = spark
        self._schema = checked_name("schema", schema)
        # Each table's columns and location, read once per table and process (and again
        # when it needs a column it lacks); the location only when landing "auto" uses it.
        self._facts: dict[str, TableFacts] = {}
        self._files = ParquetFileWriter(spark, self._location) if landing == "auto" else None
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {quote_identifier(self._schema)}")

    @property
    def schema(self) -> str:
        return self._schema

    def staging_table(self, table: TableDef) -> str:
        """The quoted, qualified name of ``table``'s staging table (names checked)."""
        return qualified_table(self._schema, staging_table_name(table.owner, table.name))

    def ensure_table(self, table: TableDef) -> Columns:
        """Create or evolve the staging table of ``table``; returns its columns in order."""
        name = self.staging_table(table)
        return self._ensured(name, staging_spark_columns(table), source=table.qualified_name)

    def has_staging_table(self, owner: str, name: str) -> bool:
        """True when the staging table of source table ``owner.name`` exists."""
        return self._exists(staging_table_name(owner, name))

    def append(self, table: TableDef, data: pa.Table) -> int:
        """Append a landing batch (``change_batch`` / ``snapshot_batch``); returns its rows."""
        columns = self.ensure_table(table)
        return self._insert(self.staging_table(table), columns, data)

    def append_errors(
        self, errors: Sequence[QuarantinedChange], *, batch_id: int, extracted_at: datetime
    ) -> int:
        """Quarantine changes in ``<schema>._oracdc_errors``; returns the rows written."""
        name = qualified_table(self._schema, ERRORS_TABLE)
        columns = self._ensured(name, ERRORS_COLUMNS, source="quarantined changes")
        stamp = {"batch_id": batch_id, "extracted_at": extracted_at}
        rows = [{**_fields(error), **stamp} for error in errors]
        return self._insert(name, columns, pa.Table.from_pylist(rows, schema=ERRORS_SCHEMA))

    def append_schema_history(
        self, changes: Sequence[SchemaChange], *, batch_id: int, extracted_at: datetime
    ) -> int:
        """Record DDL in ``<schema>._oracdc_schema_history``; returns the rows written."""
        name = qualified_table(self._schema, SCHEMA_HISTORY_TABLE)
        columns = self._ensured(name, SCHEMA_HISTORY_COLUMNS, source="DDL history")
        stamp = {"batch_id": batch_id, "extracted_at": extracted_at}
        rows = [{**_fields(change), **stamp} for change in changes]
        return self._insert(name, columns, pa.Table.from_pylist(rows, schema=SCHEMA_HISTORY_SCHEMA))

    def ensure_heartbeat_table(self) -> None:
        """Create ``<schema>._oracdc_heartbeat`` (the generated sources' freshness reads it,
        so it exists even while no heartbeat is written)."""
        name = qualified_table(self._schema, HEARTBEAT_TABLE)
        self._ensured(name, HEARTBEAT_COLUMNS, source="heartbeat")

    def append_heartbeat(self, mined_to_scn: int, at: datetime) -> int:
        """One heartbeat row: every change committed up to ``mined_to_scn`` landed by ``at``."""
        name = qualified_table(self._schema, HEARTBEAT_TABLE)
        columns = self._ensured(name, HEARTBEAT_COLUMNS, source="heartbeat")
        row = {"mined_to_scn": mined_to_scn, "heartbeat_at": at}
        return self._insert(name, columns, pa.Table.from_pylist([row], schema=HEARTBEAT_SCHEMA))

    def refreshes_deferred(self) -> AbstractContextManager[None]:
        """Inside the block, a table that receives Parquet files is refreshed in this Spark
        session once, when the block ends, not after each batch
        (``ParquetFileWriter.refreshes_deferred``); this writer's reads refresh it first."""
        if self._files is None:
            return contextlib.nullcontext()
        return self._files.refreshes_deferred()

    def landed_rows(self, table: TableDef) -> int:
        """Rows in ``table``'s staging table (0 when it does not exist yet)."""
        name = self.staging_table(table)
        if not self._exists(staging_table_name(table.owner, table.name)):
            return 0
        if self._files is not None:
            self._files.refresh(name)
        return int(self._spark.sql(f"SELECT count(*) AS n FROM {name}").collect()[0]["n"])

    def max_batch_id(self) -> int | None:
        """The highest ``_batch_id`` / ``batch_id`` landed in any table of the schema, or None.

        A restart without a checkpoint must continue above it (dbt's watermark)."""
        columns = {}
        for table_name in self._table_names():
            if table_name.endswith("_log") and checked_name_or_none(table_name):
                columns[table_name] = "_batch_id"
            elif table_name in (ERRORS_TABLE, SCHEMA_HISTORY_TABLE):
                columns[table_name] = "batch_id"
        return self._max_of(columns)

    def max_commit_scn(self) -> int | None:
        """The highest ``_commit_scn`` landed in any staging table of the schema, or None:
        the SCN a snapshot after a RESETLOGS of the source must pass, and, above the
        source's current SCN, the sign of one (``incarnation_guard``)."""
        return self._max_of(
            {
                table_name: "_commit_scn"
                for table_name in self._table_names()
                if table_name.endswith("_log") and checked_name_or_none(table_name)
            }
        )

    def _max_of(self, columns: Mapping[str, str]) -> int | None:
        """The largest value of ``columns`` (table name -> column) over those tables."""
        parts = [
            f"SELECT max({column}) AS m FROM {qualified_table(self._schema, table_name)}"
            for table_name, column in columns.items()
        ]
        if not parts:
            return None
        if self._files is not None:
            self._files.refresh()
        query = f"SELECT max(m) AS m FROM ({' UNION ALL '.join(parts)}) AS maxima"
        value = self._spark.sql(query).collect()[0]["m"]
        return None if value is None else int(value)

    def _ensured(self, name: str, wanted: Columns, *, source: str) -> Columns:
        """Table ``name`` with at least ``wanted``; looked up once per table and process,
        and again when ``wanted`` names a column or type it did not have."""
        cached = self._facts.get(name)
        if cached is not None and _normalized(wanted) <= _normalized(cached.columns):
            return cached.columns
        facts = self._ensure(name, wanted, source=source)
        self._facts[name] = facts
        return facts.columns

    def _ensure(self, name: str, wanted: Columns, *, source: str) -> TableFacts:
        existing = self._existing(name)
        if existing is None:
            column_ddl = ", ".join(f"{quote_identifier(c)} {t}" for c, t in wanted)
            self._spark.sql(f"CREATE TABLE IF NOT EXISTS {name} ({column_ddl}) USING PARQUET")
            LOG.info("created staging table %s for %s", name, source)
            existing = self._existing(name)
            if existing is None:
                raise LandingError(
                    f"staging table {name} is missing right after it was created",
                    fix="check that the session's current catalog is the one that holds it",
                )
        _check_types(name, existing.columns, wanted)
        known = {column for column, _ in existing.columns}
        missing = [(c, t) for c, t in wanted if c not in known]
        if missing:
            added = ", ".join(f"{quote_identifier(c)} {t}" for c, t in missing)
            self._spark.sql(f"ALTER TABLE {name} ADD COLUMNS ({added})")
            LOG.info("staging table %s gained columns %s", name, [c for c, _ in missing])
            existing = existing._replace(columns=existing.columns + tuple(missing))
        return existing

    def _insert(self, name: str, columns: Columns, data: pa.Table) -> int:
        if data.num_rows == 0:
            return 0
        ordered = _in_table_order(name, columns, data)
        if self._files is not None and self._files.append(name, columns, ordered):
            return int(data.num_rows)
        frame = self._spark.createDataFrame(ordered)
        # One file per table and batch: the job commit then moves the batch into the table in
        # one rename, so a concurrent dbt run lists all of it or none (docs/dbt.md, "A batch
        # seen in part"). A session cap on rows per file would split it: lifted meanwhile.
        cap = self._spark.conf.get(_MAX_RECORDS_PER_FILE, "0")
        if cap != "0":
            self._spark.conf.set(_MAX_RECORDS_PER_FILE, "0")
        try:
            frame.coalesce(1).write.insertInto(name)
        finally:
            if cap != "0":
                self._spark.conf.set(_MAX_RECORDS_PER_FILE, cap)
        return int(data.num_rows)

    def _exists(self, table_name: str) -> bool:
        return session_catalog.table_exists(self._spark, self._schema, table_name)

    def _table_names(self) -> list[str]:
        return [str(t.name) for t in self._spark.catalog.listTables(self._schema)]

    def _existing(self, name: str) -> TableFacts | None:
        """The table's columns and, when Parquet files may land in it, its location; None
        when it does not exist."""
        if self._files is not None:
            return session_catalog.table_facts(self._spark, *split_qualified(name))
        columns = session_catalog.table_columns(self._spark, *split_qualified(name))
        return None if columns is None else TableFacts(columns, None)

    def _location(self, name: str) -> str | None:
        """Where table ``name``'s files are (``ParquetFileWriter``), as last read with its
        columns, else read now."""
        facts = self._facts.get(name)
        if facts is not None:
            return facts.location
        return session_catalog.table_location(self._spark, *split_qualified(name))


def checked_name_or_none(name: str) -> str | None:
    """``name`` when it is a plain identifier, else None (foreign tables are skipped)."""
    try:
        return checked_name("table", name)
    except LandingError:
        return None


def _in_table_order(name: str, columns: Columns, data: pa.Table) -> pa.Table:
    """``data`` with the table's columns in the table's order (``insertInto`` matches by
    position); a column the batch lacks is all NULL. Done in Arrow: a Spark ``select`` of
    the same costs one JVM round trip per column and per expression."""
    provided = {field.lower(): index for index, field in enumerate(data.schema.names)}
    unknown = provided.keys() - {column for column, _ in columns}
    if unknown:
        raise LandingError(
            f"batch for {name} carries columns the table lacks: {sorted(unknown)}",
            fix="call ensure_table with the current dictionary before appending",
        )
    arrays = [
        data.column(provided[column]) if column in provided else pa.nulls(data.num_rows)
        for column, _ in columns
    ]
    return pa.table(arrays, names=[column for column, _ in columns])


def _normalized(columns: Columns) -> set[tuple[str, str]]:
    return {(column, normalized_type(type_)) for column, type_ in columns}


def _check_types(name: str, existing: Columns, wanted: Columns) -> None:
    have = {column: normalized_type(type_) for column, type_ in existing}
    for column, type_ in wanted:
        if column in have and have[column] != normalized_type(type_):
            raise StagingSchemaError(
                f"staging table {name}: column {column} is {have[column]}, the dictionary now "
                f"maps it to {normalized_type(type_)}",
                fix=(
                    "land into a new schema (or rename the staging table) and re-snapshot the "
                    "table; staging tables never change a column's type in place"
                ),
            )


def _fields(record: QuarantinedChange | SchemaChange) -> dict[str, object]:
    return {name: getattr(record, name) for name in record.__slots__}
