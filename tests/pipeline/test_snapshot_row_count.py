"""A snapshot's read is checked against ``COUNT(*) AS OF`` its SCN: the ROWID ranges it reads
are planned from the extents as they are at read time, and a ``SHRINK SPACE`` after the SCN
releases extents that held rows then. A table read short is taken again at a newer SCN;
a second short read in the process stops the snapshot. On the simulator, into in-memory
staging tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import SyncStepError
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

ROWS = 1200


def _table(name: str) -> TableDef:
    return TableDef(
        "APP",
        name,
        (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
         ColumnDef("V", 2, "VARCHAR2", 20)),
        ("ID",),
    )  # fmt: skip


A, B = _table("A"), _table("B")


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(A)
    db.create_table(B)
    txn = db.begin()
    txn.insert("APP", "A", {"ID": 1, "V": "a"})
    for key in range(1, ROWS + 1):
        txn.insert("APP", "B", {"ID": key, "V": f"v{key}"})
    txn.commit()
    return db


def _config(work: Path) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_snapshot_row_count", "snapshot_modes": {"APP.B": "initial_only"}},
        base_dir=work,
    )  # fmt: skip


def _shrink_before_reading_b(db: SimDatabase, shrinks: int) -> object:
    """The source, whose first ``shrinks`` reads of B each start after half of B's rows
    left and a SHRINK SPACE released their extents (while A was being read)."""
    source = open_source({"kind": "sim", "database": db})
    read = source.snapshot_batches
    left = [shrinks]

    def batches(
        table: TableDef, scn: int, batch_rows: int, after_rowid: str | None = None
    ) -> Iterator[pa.RecordBatch]:
        if table.name == "B" and left[0] > 0:
            left[0] -= 1
            live = sorted(int(r["ID"]) for r in db.truth("APP", "B", db.current_scn()))
            gone = set(live[: len(live) // 2])
            txn = db.begin()
            txn.delete("APP", "B", lambda row: int(row["ID"]) in gone)
            txn.commit()
            db.move_rows("APP", "B", "shrink")
        return read(table, scn, batch_rows, after_rowid)

    source.snapshot_batches = batches  # type: ignore[method-assign]
    return source


def test_the_simulator_reads_short_after_a_shrink() -> None:
    """What the check is for: the ranged read misses rows the SCN still shows."""
    db = _database()
    source = open_source({"kind": "sim", "database": db})
    scn = db.current_scn()
    txn = db.begin()
    txn.delete("APP", "B", lambda row: int(row["ID"]) <= ROWS // 2)
    txn.commit()
    db.move_rows("APP", "B", "shrink")
    read = sum(b.num_rows for b in source.snapshot_batches(source.table("APP", "B"), scn, 10_000))
    assert read < ROWS == len(db.truth("APP", "B", scn))


def test_a_table_read_short_is_taken_again_at_a_newer_scn(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, _shrink_before_reading_b(db, 1), None, writer=writer) as ex:
        extract_and_land(ex, {})
        state = ex.checkpoint.tables["APP.B"]
    assert state.status == "done"
    source = truth_by_key(B, db.truth("APP", "B", state.snapshot_scn or 0))
    assert len(source) == ROWS // 2
    assert differences(source, consolidate(B, writer.staged_rows(B))) == []


def test_a_second_short_read_stops_the_snapshot(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    with open_extractor(config, _shrink_before_reading_b(db, 2), None, writer=writer) as ex:
        with pytest.raises(SyncStepError, match=r"APP\.B: its snapshot read .* twice"):
            extract_and_land(ex, {})
        state = ex.checkpoint.tables["APP.B"]
    assert state.status == "pending"  # never finished with the short read, whatever comes
    assert state.rows_landed == 0
