"""A sync cycle builds the replicas whose staging tables changed, not all of them: nothing
when nothing changed (no dbt run at all), one replica (and what depends on it) when one table
changed, everything on the first cycle and with ``--all``. The replicas equal the source after
every cycle. A model file edited by hand is built again; lost landing counters (status.json)
make the next cycle build everything."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig
from extractor.errors import SimUsageError
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.pipeline import sync
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import CycleReport, dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.state.consolidation_state import load_consolidated
from tests.e2e.replica_compare import compare_table
from tests.e2e.sim_project import sim_project

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "build_what_changed"


def test_each_cycle_builds_what_changed_and_the_replicas_equal_the_source(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = SimDatabase()
    WorkloadRunner(db, WorkloadSpec(tables=5, seed=31, interleave=4)).run(40)
    config = sim_project(
        tmp_path, monkeypatch, REPLICA_SCHEMA, "build_what_changed_staging",
        heartbeat_interval_seconds=0.001,  # a heartbeat after every pass
    )  # fmt: skip
    selections: list[tuple[str, ...]] = []
    real_build = sync.run_dbt_build

    def spying_build(
        dbt: sync.DbtSettings, select: tuple[str, ...] = (), exclude: tuple[str, ...] = ()
    ) -> None:
        assert exclude == ()  # every table's snapshot is done
        selections.append(tuple(select))
        real_build(dbt, select, exclude)

    monkeypatch.setattr(sync, "run_dbt_build", spying_build)

    def cycle(*, full_build: bool = False) -> CycleReport:
        source = open_source({"kind": "sim", "database": db})
        with open_runtime(config, source=source, spark=spark) as runtime:
            report = run_cycle(runtime, dbt_settings(config), full_build=full_build)
            scn = runtime.extractor.checkpoint.mined_to_scn
            tables = runtime.extractor.registry.resolve()
        assert scn is not None
        truth = open_source({"kind": "sim", "database": db})
        differing = [
            r.table
            for r in (compare_table(t, truth, spark, REPLICA_SCHEMA, scn) for t in tables)
            if not r.matches
        ]
        assert differing == []
        return report

    first = cycle()
    assert first.full_build and len(first.built) == 5
    assert selections == [("path:models/replica+",)]

    idle = cycle()
    assert idle.built == () and not idle.full_build
    assert len(selections) == 1  # no dbt run at all

    _delete_a_customer(db)
    one = cycle()
    assert one.built == ("SIM.CUSTOMERS",)
    assert selections[-1] == ("sim__customers+",)
    record = load_consolidated(config.data_dir)
    assert record["SIM.CUSTOMERS"].reason.startswith("new batches")
    _quiet_tables_are_as_fresh_as_the_heartbeat(spark, config)
    assert record["SIM.ORDERS"].reason == "full build (first sync cycle)"

    model = tmp_path / "models" / "replica" / "sim__orders.sql"
    model.write_text(model.read_text(encoding="utf-8") + "-- edited\n", encoding="utf-8")
    edited = cycle()
    assert edited.built == ("SIM.ORDERS",)
    assert load_consolidated(config.data_dir)["SIM.ORDERS"].reason == "model files changed"

    # the landing counters lost (or stale after a crash): which tables changed is unknown
    (config.data_dir / "status.json").unlink()
    _delete_a_customer(db)
    unknown = cycle()
    assert unknown.full_build and len(unknown.built) == 5
    assert (
        "landing counters missed a batch" in load_consolidated(config.data_dir)["SIM.ORDERS"].reason
    )

    everything = cycle(full_build=True)
    assert everything.full_build and len(everything.built) == 5
    assert selections[-1] == ("path:models/replica+",)
    assert load_consolidated(config.data_dir)["SIM.ORDERS"].reason == "full build (asked: --all)"


def _quiet_tables_are_as_fresh_as_the_heartbeat(spark: Any, config: OracdcConfig) -> None:
    """``dbt source freshness``: ORDERS had no change in the last cycles, yet its freshness is
    the last heartbeat's time, later than its last landed row; CUSTOMERS changed last."""
    settings = dbt_settings(config)
    result = run_dbt(["source", "freshness"], project_dir=settings.project_dir,
                     profiles_dir=settings.profiles_dir, variables=settings.variables)  # fmt: skip
    assert result.success, result.exception
    loaded = {r.node.name: r.max_loaded_at for r in result.result.results}
    schema = config.staging_schema
    heartbeat = spark.sql(f"SELECT max(heartbeat_at) AS t FROM {schema}._oracdc_heartbeat")
    orders_rows = spark.sql(f"SELECT max(_extracted_at) AS t FROM {schema}.sim__orders_log")
    last_heartbeat, last_orders_row = heartbeat.collect()[0]["t"], orders_rows.collect()[0]["t"]
    assert last_orders_row < last_heartbeat
    assert _utc(loaded["sim__orders_log"]) == _utc(last_heartbeat)
    assert _utc(loaded["_oracdc_heartbeat"]) == _utc(last_heartbeat)


def _utc(moment: datetime) -> datetime:
    """Spark returns session-local naive datetimes, dbt aware ones."""
    return moment.astimezone(UTC).replace(microsecond=0) if moment.tzinfo else (
        moment.astimezone().astimezone(UTC).replace(microsecond=0))  # fmt: skip


def _delete_a_customer(db: SimDatabase) -> None:
    """Delete one committed customer row that no open workload transaction holds."""
    txn = db.begin()
    for customer in db.truth("SIM", "CUSTOMERS", db.current_scn()):
        try:
            txn.delete("SIM", "CUSTOMERS", str(customer["ROWID"]))
        except SimUsageError:  # locked by a transaction the workload left open
            continue
        txn.commit()
        return
    raise AssertionError("every customer row is locked")
