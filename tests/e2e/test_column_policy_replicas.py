"""``columns:`` through dbt: the replica of a table with an excluded column and two masked ones
lacks the first, holds the salted hash and the redaction of the others, equals the source on
every other column, and ``oracdc verify``'s comparison (the digests) matches without the masked
columns. An unbounded NUMBER lands as the DOUBLE ``number_as`` chooses, and verify's digests
(IEEE bits on both sides) match it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from extractor.cli.verify import selected_tables
from extractor.lakehouse.dbt_runner import replica_schema
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from extractor.verify.reconcile import verify_table
from extractor.verify.replica_digest import ReplicaDigests
from extractor.verify.source_digest import SourceDigests
from tests.e2e.replica_compare import compare_table
from tests.e2e.sim_project import sim_project

pytestmark = pytest.mark.spark

REPLICA_SCHEMA = "column_policy_replicas"
SALT = "e2e-salt-0123456789"
COLUMNS = {
    "SIM.CUSTOMERS": {"exclude": ["SCORE"], "mask": {"NAME": "hash", "CITY": "redact"}},
    # an unbounded NUMBER; the simulator writes values up to 39 digits, beyond DECIMAL(38,s)
    "SIM.ORDERS": {"number_as": {"AMOUNT": "double"}},
}


def test_replicas_follow_the_column_policy_and_verify_matches(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_MASK_SALT", SALT)
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=2, seed=17, interleave=3))
    workload.run(30)
    config = sim_project(
        tmp_path, monkeypatch, REPLICA_SCHEMA, "column_policy_staging", columns=COLUMNS
    )
    for _ in range(2):  # the snapshot, then changes from the log
        with open_runtime(
            config, source=open_source({"kind": "sim", "database": db}), spark=spark
        ) as runtime:
            run_cycle(runtime, dbt_settings(config))
            scn = runtime.extractor.checkpoint.mined_to_scn
            registry = runtime.extractor.registry
            compared = [registry.verified(t) for t in registry.resolve()]
        workload.run(30)
    assert scn is not None
    truth = open_source({"kind": "sim", "database": db})
    assert [r.table for r in (compare_table(t, truth, spark, REPLICA_SCHEMA, scn)
                              for t in compared) if not r.matches] == []  # fmt: skip

    replica = spark.sql(f"SELECT * FROM {REPLICA_SCHEMA}.sim__customers").toArrow().to_pylist()
    assert replica and all("score" not in row for row in replica)
    source_rows = {int(row["ID"]): row for row in db.truth("SIM", "CUSTOMERS", scn)}  # type: ignore[call-overload]
    for row in replica:
        source = source_rows[int(row["id"])]
        name = source["NAME"]
        expected = None if name is None else hashlib.sha256(
            SALT.encode() + b"\x1f" + str(name).encode()
        ).hexdigest()  # fmt: skip
        assert row["name"] == expected
        assert row["city"] == (None if source["CITY"] is None else "*****")

    source = open_source({"kind": "sim", "database": db})
    verified = selected_tables(source, config, None)
    customers = next(t for t in verified if t.name == "CUSTOMERS")
    assert {"NAME", "CITY", "SCORE"}.isdisjoint(customers.column_names)
    results = [
        verify_table(t, SourceDigests(source, scn), ReplicaDigests(spark, REPLICA_SCHEMA), scn)
        for t in verified
    ]
    assert [r.table for r in results if not r.matches] == []
    assert replica_schema() == REPLICA_SCHEMA
    orders = spark.table(f"{REPLICA_SCHEMA}.sim__orders").schema["amount"].dataType
    assert orders.simpleString() == "double"
