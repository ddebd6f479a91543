"""A demo-like simulated database and replicas written straight from its truth.

The replicas are written from the source's snapshot (not by the pipeline) so that each test
can corrupt its own copy cheaply; the pipeline's own replicas are covered by
``test_verify_pipeline.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pytest

from extractor.dictionary import TableDef
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadSpec, run_workload
from extractor.source.base import Source
from extractor.source.factory import open_source
from extractor.staging_contract import replica_model_name


@dataclass(frozen=True)
class SimWorld:
    db: SimDatabase
    source: Source
    tables: tuple[TableDef, ...]
    scn: int


@pytest.fixture(scope="session")
def sim_world() -> Iterator[SimWorld]:
    db = SimDatabase()
    run_workload(db, WorkloadSpec(tables=5, transactions=150, seed=7, open_at_end=1))
    source = open_source({"kind": "sim", "database": db})
    tables = tuple(source.list_tables([("SIM", "*")]))
    yield SimWorld(db, source, tables, db.current_scn())
    source.close()


def source_arrow(world: SimWorld, table: TableDef) -> pa.Table:
    batches = list(world.source.snapshot_batches(table, world.scn, 10_000))
    return pa.Table.from_batches(batches)


def write_replica(
    spark: Any, world: SimWorld, schema: str, table: TableDef, select: str = "SELECT * FROM src"
) -> str:
    """``schema.owner__table`` built by ``select`` over ``src``, the source's rows at
    ``world.scn`` (the default copies them unchanged)."""
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {schema}")
    name = f"{schema}.{replica_model_name(table.owner, table.name)}"
    spark.createDataFrame(source_arrow(world, table)).createOrReplaceTempView("src")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} USING parquet AS {select}")
    return name


@pytest.fixture(scope="session")
def matching_schema(spark: Any, sim_world: SimWorld) -> str:
    for table in sim_world.tables:
        write_replica(spark, sim_world, "ops_verify_ok", table)
    return "ops_verify_ok"
