"""Replicas whose key changes (docs/keys.md, "When the key changes"): a table keyed by its
primary key gains a LOB column (ALL logging leaves LOBs out of the image, so its replica is
keyed by ROWID from then on) and loses it again; a table keyed by ROWID under MINIMAL logging
(its updates carry the changed columns only) gets ALL logging and is keyed by its primary key.
Synced through the extractor and dbt as a user would: every replica equals the source after
each cycle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.dictionary import ColumnDef
from extractor.keys import consolidation_key
from extractor.sim.database import SimDatabase
from extractor.sim.table_catalog import demo_tables
from tests.e2e.sim_project import sim_project, sync_and_compare

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "key_change_e2e"
STAGING_SCHEMA = "key_change_e2e_staging"
REMARK = ColumnDef("REMARK", 7, "CLOB")


def _changes(db: SimDatabase, new_keys: range, balance: int) -> None:
    """New customers and accounts, an update of every third, a delete of every seventh."""
    txn = db.begin()
    for key in new_keys:
        txn.insert("SIM", "CUSTOMERS", {"ID": key, "NAME": f"customer {key}", "BALANCE": key})
        txn.insert("SIM", "ACCOUNTS", {"ACC_NO": f"A{key}", "HOLDER": f"holder {key}"})
    txn.update("SIM", "CUSTOMERS", lambda r: r["ID"] % 3 == 0, {"BALANCE": balance})
    txn.delete("SIM", "CUSTOMERS", lambda r: r["ID"] % 7 == 0 and r["BALANCE"] != balance)
    txn.update("SIM", "ACCOUNTS", lambda r: int(r["ACC_NO"][1:]) % 3 == 0, {"CODE": str(balance)})
    txn.delete("SIM", "ACCOUNTS", lambda r: int(r["ACC_NO"][1:]) % 7 == 0 and r["CODE"] is None)
    txn.commit()


@pytest.mark.parametrize("layout", ["copy_on_write", "merge_on_read"])
def test_replicas_equal_the_source_when_the_key_changes(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    db = SimDatabase()
    customers, orders, _, accounts, _ = demo_tables()  # the demo's views read the first two
    for table in (customers, orders, accounts):
        db.create_table(table)
    _changes(db, range(1, 41), balance=-1)
    schemas = (f"{REPLICA_SCHEMA}_{layout}", f"{STAGING_SCHEMA}_{layout}")
    config = sim_project(tmp_path / "project", monkeypatch, *schemas)
    _use_layout(tmp_path / "project" / "dbt_project.yml", layout)

    def sync() -> list[str]:
        return sync_and_compare(spark, config, db, schemas[0])

    assert sync() == []
    _changes(db, range(41, 51), balance=-2)
    assert sync() == []  # incremental, keyed by ID

    assert consolidation_key(db.table("SIM", "ACCOUNTS")) == ("_row_id",)
    db.add_column("SIM", "CUSTOMERS", REMARK)
    db.set_supplemental_logging("SIM", "ACCOUNTS", "ALL")
    assert consolidation_key(db.table("SIM", "CUSTOMERS")) == ("_row_id",)
    assert consolidation_key(db.table("SIM", "ACCOUNTS")) == ("acc_no",)
    _changes(db, range(51, 61), balance=-3)
    assert sync() == []
    _changes(db, range(61, 66), balance=-4)
    assert sync() == []  # incremental, keyed by ROWID

    db.drop_column("SIM", "CUSTOMERS", "REMARK")
    assert consolidation_key(db.table("SIM", "CUSTOMERS")) == ("id",)
    _changes(db, range(66, 71), balance=-5)
    assert sync() == []
    _changes(db, range(71, 76), balance=-6)
    assert sync() == []


def _use_layout(project_file: Path, layout: str) -> None:
    """The replicas' layout, as a user sets it: the project's vars (merge-on-read compacts
    once a delta passes 20% of its base, so that runs read through deltas and compactions
    alike)."""
    settings = project_file.read_text(encoding="utf-8")
    staging_var = "  oracle_cdc__staging_schema:"
    assert staging_var in settings
    chosen = f"  oracle_cdc__layout: {layout}\n  oracle_cdc__compact_share: 0.2\n"
    project_file.write_text(settings.replace(staging_var, chosen + staging_var), encoding="utf-8")
