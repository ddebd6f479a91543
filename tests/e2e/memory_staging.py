"""Staging tables held in memory: the production ``StagingWriter`` with its Spark calls
replaced, for the fast harness (``test_harness_fast.py``).

Everything above the storage is the production code: the column cache and evolution, the type
check, the column order check of each batch, the audit rows. Only creating, altering, appending
and counting go to a dictionary of Arrow tables instead of Spark. One instance stands for the
staging schema on disk: the harness hands the same one to every "process" it starts.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.land.audit_records import ERRORS_TABLE
from extractor.land.session_catalog import TableFacts
from extractor.land.spark_sql import Columns, qualified_table
from extractor.land.staging_writer import StagingWriter, _in_table_order
from extractor.pipeline.extractor import Extractor, open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source


class MemoryStagingWriter(StagingWriter):
    """A staging schema whose tables are lists of Arrow batches."""

    def __init__(self, schema: str) -> None:  # no Spark session
        self._schema = schema
        self._facts: dict[str, TableFacts] = {}
        self._files = None  # no table storage: nothing to refresh
        self._table_columns: dict[str, Columns] = {}
        self._batches: dict[str, list[pa.Table]] = {}

    def staged_rows(self, table: TableDef) -> list[dict[str, Any]]:
        """Every row landed for ``table``, each with every column of the table (NULL in rows
        landed before a column was added), as Spark would read them back."""
        name = self.staging_table(table)
        columns = [column for column, _ in self._table_columns.get(name, ())]
        rows: list[dict[str, Any]] = []
        for batch in self._batches.get(name, []):
            rows += [{c: row.get(c) for c in columns} for row in batch.to_pylist()]
        return rows

    def quarantined_rows(self) -> list[dict[str, Any]]:
        """The rows of ``_oracdc_errors``."""
        name = qualified_table(self._schema, ERRORS_TABLE)
        return [row for batch in self._batches.get(name, []) for row in batch.to_pylist()]

    def landed_rows(self, table: TableDef) -> int:
        name = self.staging_table(table)
        return sum(batch.num_rows for batch in self._batches.get(name, []))

    def max_batch_id(self) -> int | None:
        ids = [
            max(batch.column(column).to_pylist())
            for batches in self._batches.values()
            for batch in batches
            for column in ("_batch_id", "batch_id")
            if column in batch.column_names
        ]
        return max(ids, default=None)

    def max_commit_scn(self) -> int | None:
        scns = [
            scn
            for name, batches in self._batches.items()
            if name.split(".")[1].strip("`").endswith("_log")
            for batch in batches
            if "_commit_scn" in batch.column_names
            for scn in batch.column("_commit_scn").to_pylist()
            if scn is not None
        ]
        return max(scns, default=None)

    def _ensure(self, name: str, wanted: Columns, *, source: str) -> TableFacts:
        existing = self._table_columns.get(name, ())
        known = {column for column, _ in existing}
        columns = existing + tuple((c, t) for c, t in wanted if c not in known)
        self._table_columns[name] = columns
        return TableFacts(columns, None)

    def _insert(self, name: str, columns: Columns, data: pa.Table) -> int:
        if data.num_rows == 0:
            return 0
        self._batches.setdefault(name, []).append(_in_table_order(name, columns, data))
        return int(data.num_rows)

    def _exists(self, table_name: str) -> bool:
        return any(name.split(".")[1].strip("`") == table_name for name in self._table_columns)

    def _table_names(self) -> list[str]:
        return [name.split(".")[1].strip("`") for name in self._table_columns]

    def _existing(self, name: str) -> TableFacts | None:
        columns = self._table_columns.get(name)
        return None if columns is None else TableFacts(columns, None)


def extract_into_memory(
    db: SimDatabase, config: OracdcConfig, writer: MemoryStagingWriter
) -> Extractor:
    """One extraction as a sync cycle makes it (snapshot, mine, land; no dbt) from the
    simulated ``db`` into ``writer``, by the production extractor; returns the (closed)
    extractor, whose checkpoint and registry stay readable."""
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})
    return extractor
