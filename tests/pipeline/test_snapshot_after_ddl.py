"""ORA-01466 on a snapshot read: Oracle refuses a flashback query AS OF an SCN its table's
definition is not older than (DDL after it, or just before it: a table created or moved
moments ago). Pinned to that SCN the table would fail at every cycle and hold every table
back; it is taken again at a newer SCN instead. On the simulator
(``flashback_ddl_lag_scns``), into in-memory staging tables."""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa
import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import TableDefinitionChangedError
from extractor.land.spark_sql import Columns
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

LAG = 50
A = TableDef(
    "APP",
    "A",
    (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False), ColumnDef("V", 2, "VARCHAR2", 20)),
    ("ID",),
)
B = TableDef("APP", "B", A.columns, ("ID",))


def _config(work: Path) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_snapshot_after_ddl"},
        base_dir=work,
    )  # fmt: skip


def _write(db: SimDatabase, table: str, key: int) -> None:
    txn = db.begin()
    txn.insert("APP", table, {"ID": key, "V": f"v{key}"})
    txn.commit()


def _differences(db: SimDatabase, writer: MemoryStagingWriter, name: str) -> object:
    now = db.table("APP", name)
    source = truth_by_key(now, db.truth("APP", name, db.current_scn()))
    return differences(source, consolidate(now, writer.staged_rows(now)))


def test_the_simulator_refuses_a_read_too_soon_after_ddl() -> None:
    db = SimDatabase(flashback_ddl_lag_scns=LAG)
    db.create_table(A)
    _write(db, "A", 1)
    source = open_source({"kind": "sim", "database": db})
    with pytest.raises(TableDefinitionChangedError, match="ORA-01466"):
        list(source.snapshot_batches(source.table("APP", "A"), db.current_scn(), 100))
    for key in range(2, 2 + LAG):
        _write(db, "A", key)
    assert sum(b.num_rows for b in source.snapshot_batches(A, db.current_scn(), 100)) == LAG + 1


def test_a_table_created_moments_ago_is_taken_again_at_a_newer_scn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = SimDatabase(flashback_ddl_lag_scns=LAG)
    db.create_table(B)
    for key in range(1, LAG + 1):
        _write(db, "B", key)
    db.create_table(A)  # moments before the first cycle
    _write(db, "A", 1)
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source({"kind": "sim", "database": db})
    with (
        caplog.at_level(logging.WARNING),
        open_extractor(config, source, None, writer=writer) as ex,
    ):
        snapshot, _ = extract_and_land(ex, {})  # the cycle goes on
        extractor = ex
    assert snapshot.tables == ("APP.B",) and snapshot.retried == ("APP.A",)
    assert extractor.checkpoint.tables["APP.A"].status == "pending"
    assert "ORA-01466" in caplog.text
    assert _differences(db, writer, "B") == []  # the other table is replicated meanwhile
    for key in range(2, LAG + 2):
        _write(db, "A", key)
    extract_into_memory(db, config, writer)
    assert extractor.checkpoint.tables["APP.A"].status == "pending"  # that process's view
    assert _differences(db, writer, "A") == []
    _write(db, "B", LAG + 1)
    last = extract_into_memory(db, config, writer)
    assert {name: s.status for name, s in last.checkpoint.tables.items()} == {
        "APP.A": "done",
        "APP.B": "done",
    }
    assert _differences(db, writer, "A") == [] and _differences(db, writer, "B") == []


class _CrashingWriter(MemoryStagingWriter):
    """Crashes (RuntimeError) at its ``inserts_left``-th insert from now."""

    inserts_left: int | None = None

    def _insert(self, name: str, columns: Columns, data: pa.Table) -> int:
        if self.inserts_left is not None:
            self.inserts_left -= 1
            if self.inserts_left < 0:
                raise RuntimeError("crash")
        return super()._insert(name, columns, data)


def test_a_snapshot_cut_off_and_its_table_moved_is_read_again_at_a_newer_scn(
    tmp_path: Path,
) -> None:
    """A crash half-way through the snapshot, the table moved before the next start: the
    resumed read AS OF the old SCN is refused; a new snapshot replaces what landed of it."""
    db = SimDatabase(flashback_ddl_lag_scns=LAG)
    db.create_table(A)
    for key in range(1, LAG + 1):
        _write(db, "A", key)
    config = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_snapshot_after_ddl", "snapshot_batch_rows": 10},
        base_dir=tmp_path,
    )  # fmt: skip
    writer = _CrashingWriter(config.staging_schema)
    writer.inserts_left = 2
    with pytest.raises(RuntimeError, match="crash"):
        extract_into_memory(db, config, writer)
    writer.inserts_left = None
    assert 0 < len(writer.staged_rows(A)) < LAG
    db.move_rows("APP", "A", "move")
    for key in range(LAG + 1, 2 * LAG + 2):
        _write(db, "A", key)
    extract_into_memory(db, config, writer)
    assert _differences(db, writer, "A") == []
