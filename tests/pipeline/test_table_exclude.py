"""``exclude``: tables the ``tables`` patterns select but an exclude entry names are never
listed, snapshotted or mined (their LogMiner rows are not selected)."""

from __future__ import annotations

from pathlib import Path

from extractor.config import config_from_mapping
from extractor.pipeline.table_registry import TableRegistry
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadSpec, run_workload
from extractor.source.factory import open_source


def test_excluded_tables_are_not_resolved_nor_selected(tmp_path: Path) -> None:
    db = SimDatabase()
    run_workload(db, WorkloadSpec(tables=5, transactions=20))
    names = sorted(t.name for t in db.tables())
    config = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["SIM.*"], "exclude": ["SIM.ORD*", "SIM.EVENTS"]},
        base_dir=tmp_path,
    )
    source = open_source({"kind": "sim", "database": db})
    try:
        registry = TableRegistry(source, config.tables)
        resolved = sorted(t.name for t in registry.resolve())
    finally:
        source.close()
    assert "ORDERS" in names and "EVENTS" in names
    assert resolved == [n for n in names if n not in ("ORDERS", "EVENTS")]
    assert not registry.is_selected("SIM", "ORDERS")
    assert not registry.is_selected("SIM", "EVENTS")
    assert registry.is_selected("SIM", "CUSTOMERS")
