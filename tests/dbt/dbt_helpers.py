"""Helpers of the dbt tests: hand-made staging rows, staging tables, dbt runs, replica reads."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from extractor.dictionary import ColumnDef, TableDef
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.spark_types import spark_type
from extractor.staging_contract import METADATA_COLUMNS, spark_column_name, staging_table_name

REPO = Path(__file__).resolve().parents[2]
STAGING_SCHEMA = "oracdc_staging"
REPLICA_SCHEMA = "oracdc"
NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def number(name: str, column_id: int, *, precision: int = 10, nullable: bool = True) -> ColumnDef:
    return ColumnDef(name, column_id, "NUMBER", 22, precision, 0, nullable)


def varchar(name: str, column_id: int, *, nullable: bool = True) -> ColumnDef:
    return ColumnDef(name, column_id, "VARCHAR2", 30, None, None, nullable)


@dataclass(frozen=True)
class Change:
    """One staging row: operation, position, batch, and the source values it carries.

    ``row_id`` defaults to one ROWID per first value (the key in every scenario): every change of
    a key comes from one physical row unless the scenario says otherwise. A reset marker (``t``)
    has no ROWID, carries no column and no value."""

    op: str
    scn: int
    values: Mapping[str, Any]
    commit_scn: int | None = None
    redo_pos: int = 0
    batch: int = 1
    present: tuple[str, ...] | None = None
    row_id: str | None = None

    def metadata(self) -> dict[str, Any]:
        commit_scn = self.scn if self.commit_scn is None else self.commit_scn
        snapshot = self.op == "r"
        first_value = next(iter(self.values.values()), None)
        row_id = None if self.op == "t" else self.row_id or f"AAAR{first_value}"
        return {
            "_op": self.op,
            "_scn": self.scn,
            "_commit_scn": commit_scn,
            "_redo_pos": Decimal(self.redo_pos),
            "_rs_id": None if snapshot else f" 0x{self.scn:06x}.00000001.0010 ",
            "_ssn": None if snapshot else 0,
            "_xid": None if snapshot else f"{commit_scn:016X}",
            "_row_id": row_id,
            "_commit_ts": NOW.replace(tzinfo=None) - dt.timedelta(seconds=1_000_000 - commit_scn),
            "_present": list(self.present) if self.present is not None else None,
            "_batch_id": self.batch,
            "_extracted_at": NOW.replace(tzinfo=None),
        }


@dataclass
class StagingTable:
    """A hand-written staging table of ``table``: its Spark DDL and the rows to land."""

    table: TableDef
    extra_columns: list[tuple[str, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{STAGING_SCHEMA}.{staging_table_name(self.table.owner, self.table.name)}"

    def columns(self) -> list[tuple[str, str]]:
        source = [(spark_column_name(c.name), spark_type(c)) for c in self.table.columns]
        metadata = [(name, ddl) for name, ddl, _ in METADATA_COLUMNS]
        # ALTER TABLE ADD COLUMNS appends, so added columns follow the metadata columns.
        return source + metadata + self.extra_columns

    def ddl(self) -> str:
        return ", ".join(f"`{name}` {ddl}" for name, ddl in self.columns())

    def land(self, spark: Any, changes: Iterable[Change]) -> None:
        """Append ``changes`` (creating the table on first use)."""
        spark.sql(f"create database if not exists {STAGING_SCHEMA}")
        spark.sql(f"create table if not exists {self.name} ({self.ddl()}) using parquet")
        rows = []
        for change in changes:
            record = {name: change.values.get(name) for name, _ in self.columns()}
            record.update(change.metadata())
            rows.append(tuple(record[name] for name, _ in self.columns()))
        if rows:
            spark.createDataFrame(rows, schema=self.ddl()).write.insertInto(self.name)

    def add_column(self, spark: Any, name: str, ddl: str) -> None:
        """A column added in Oracle: the landing code adds it to the staging table."""
        spark.sql(f"alter table {self.name} add columns (`{name}` {ddl})")
        self.extra_columns.append((name, ddl))


def recorded_bucket_layout(spark: Any, relation: str) -> str | None:
    """The bucket layout a replica's full build recorded (table property oracle_cdc.buckets)."""
    properties = spark.sql(f"show tblproperties {relation}").collect()
    return next((r[1] for r in properties if r[0] == "oracle_cdc.buckets"), None)


def copy_project(destination: Path, *, with_views: bool = True) -> Path:
    """A copy of the repository's dbt project (without generated models) in ``destination``."""
    destination.mkdir(parents=True, exist_ok=True)
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(REPO / name, destination / name)
    shutil.copytree(REPO / "macros", destination / "macros")
    if with_views:
        shutil.copytree(
            REPO / "examples" / "hr" / "models" / "views", destination / "models" / "views"
        )
    return destination


def dbt(project: Path, *args: str, variables: Mapping[str, object] | None = None) -> Any:
    """Run dbt in-process on ``project`` (target embedded) and assert that it succeeded."""
    result = run_dbt(list(args), project_dir=project, profiles_dir=project, variables=variables)
    if not result.success:
        raise AssertionError(f"dbt {' '.join(args)} failed: {_failure_text(result)}")
    return result


def _failure_text(result: Any) -> str:
    if result.exception is not None:
        return repr(result.exception)
    messages = []
    for node_result in getattr(result.result, "results", []) or []:
        status = str(getattr(node_result, "status", ""))
        if status.lower() not in ("success", "pass"):
            messages.append(f"{node_result.node.name}: {status}: {node_result.message}")
    return "; ".join(messages) or "unknown failure"
