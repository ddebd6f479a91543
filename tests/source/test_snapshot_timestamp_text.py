"""TIMESTAMP(7..9) columns are read as text (Spark holds microseconds). Oracle's ``||`` gives
the other side when one side is NULL, so the WITH TIME ZONE text, which appends its offset,
must keep a NULL NULL; and a row read AS OF an SCN converts its values as a snapshot does."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from extractor.config import config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import UnfetchableValueError
from extractor.sim.column_values import OracleTimestamp
from extractor.sim.database import SimDatabase
from extractor.source.oracle.snapshot import read_row_as_of, select_expression
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory

T = TableDef(
    "APP",
    "STAMPS",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("AT_ZONE", 2, "TIMESTAMP(9) WITH TIME ZONE"),
        ColumnDef("AT", 3, "TIMESTAMP(9)"),
    ),
    ("ID",),
)


def test_a_null_timestamp_with_zone_read_as_text_lands_null(tmp_path: Path) -> None:
    db = SimDatabase()
    db.create_table(T)
    txn = db.begin()
    txn.insert("APP", "STAMPS", {"ID": 1, "AT_ZONE": None, "AT": None})
    stamp = OracleTimestamp(datetime(2024, 2, 29, 21, 59, 58), 123_456_789, 120)
    txn.insert("APP", "STAMPS", {"ID": 2, "AT_ZONE": stamp, "AT": stamp.local})
    txn.commit()
    config = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_stamps"},
        base_dir=tmp_path,
    )  # fmt: skip
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    landed = {int(r["id"]): (r["at_zone"], r["at"]) for r in writer.staged_rows(T) if r["id"]}
    assert landed == {
        1: (None, None),
        2: ("2024-02-29 19:59:58.123456789 +00:00", "2024-02-29 21:59:58.000000000"),
    }
    assert select_expression(T.columns[1]).startswith('NVL2("AT_ZONE", ')


class _OneRow:
    """A cursor that answers the row-AS-OF query with one fetched row."""

    def __init__(self, row: tuple[Any, ...]) -> None:
        self._row = row
        self.outputtypehandler: Any = None

    def execute(self, statement: str, binds: dict[str, Any]) -> None:
        assert "AS OF SCN" in statement

    def fetchone(self) -> tuple[Any, ...]:
        return self._row


def test_a_bc_timestamp_read_as_of_an_scn_is_refused_as_a_snapshot_refuses_it() -> None:
    """The row read AS OF an SCN (to decide an ambiguous statement) converts inside its
    error mapping: a BC year is an UnfetchableValueError, which the change builder
    quarantines, never a bare ValueError that fails every retry of the window."""
    cursor = _OneRow((1, None, "-4712-01-01 00:00:00.000000000", "AAASEQAAEAAAACAAAA"))
    with pytest.raises(UnfetchableValueError, match="year -4712 is out of range"):
        read_row_as_of(cursor, T, 7, "AAASEQAAEAAAACAAAA")
    cursor = _OneRow((1, None, " 2024-01-01 00:00:00.000000001", "AAASEQAAEAAAACAAAA"))
    row = read_row_as_of(cursor, T, 7, "AAASEQAAEAAAACAAAA")
    assert row is not None and row["AT"] == "2024-01-01 00:00:00.000000001"
