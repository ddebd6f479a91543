"""``oracdc verify`` against the simulator: a matching replica, and corrupted ones it must
catch and name (missing, extra and changed keys), sampling, and the command's exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extractor.cli import options as cli_options
from extractor.cli import verify as verify_cli
from extractor.cli.main import main
from extractor.dictionary import TableDef
from extractor.incarnation import SourceIncarnation
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint, TableSnapshotState
from extractor.verify import canonical
from extractor.verify.reconcile import VerifyOptions, verify_table
from extractor.verify.replica_digest import ReplicaDigests
from extractor.verify.source_digest import SourceDigests
from tests.verify.conftest import SimWorld, source_arrow, write_replica

pytestmark = pytest.mark.spark


def _table(world: SimWorld, name: str) -> TableDef:
    return next(t for t in world.tables if t.name == name)


def _verify(spark: Any, world: SimWorld, schema: str, name: str, **options: Any) -> Any:
    return verify_table(
        _table(world, name),
        SourceDigests(world.source, world.scn),
        ReplicaDigests(spark, schema),
        world.scn,
        VerifyOptions(**options),
    )


def _customer_ids(world: SimWorld) -> list[int]:
    return sorted(int(i) for i in source_arrow(world, _table(world, "CUSTOMERS"))["id"].to_pylist())


def _rows(world: SimWorld, table: TableDef, scn: int) -> list[dict[str, Any]]:
    batches = world.source.snapshot_batches(table, scn, 10_000)
    return [row for batch in batches for row in batch.to_pylist()]


def _corrupt(spark: Any, world: SimWorld, schema: str, name: str, select: str) -> str:
    """A replica of ``name`` in ``schema`` made by ``select`` over the source rows ``src``."""
    return write_replica(spark, world, schema, _table(world, name), select)


def test_every_type_of_a_matching_replica_verifies_clean(
    spark: Any, sim_world: SimWorld, matching_schema: str
) -> None:
    for table in sim_world.tables:
        result = _verify(spark, sim_world, matching_schema, table.name)
        assert result.matches, (table.name, result.examples)
        assert result.source_rows == source_arrow(sim_world, table).num_rows > 0


def test_a_deleted_row_is_reported_missing_by_its_key(spark: Any, sim_world: SimWorld) -> None:
    gone = _customer_ids(sim_world)[1]
    _corrupt(spark, sim_world, "ops_missing", "CUSTOMERS", f"SELECT * FROM src WHERE id <> {gone}")
    result = _verify(spark, sim_world, "ops_missing", "CUSTOMERS")
    assert (result.missing, result.extra, result.changed) == (1, 0, 0)
    assert result.examples[0].key == {"id": str(gone)}
    assert result.replica_rows == result.source_rows - 1


def test_an_added_row_is_reported_extra(spark: Any, sim_world: SimWorld) -> None:
    _corrupt(
        spark, sim_world, "ops_extra", "CUSTOMERS",
        "SELECT * FROM src UNION ALL "
        "SELECT 987654, 'intruder', NULL, NULL, NULL, NULL, NULL",
    )  # fmt: skip
    result = _verify(spark, sim_world, "ops_extra", "CUSTOMERS")
    assert (result.missing, result.extra, result.changed) == (0, 1, 0)
    assert result.examples[0].kind == "extra"
    assert result.examples[0].key == {"id": "987654"}


def test_a_changed_value_names_the_key_and_the_column(spark: Any, sim_world: SimWorld) -> None:
    target = _customer_ids(sim_world)[2]
    _corrupt(
        spark, sim_world, "ops_changed", "CUSTOMERS",
        f"SELECT id, CASE WHEN id = {target} THEN concat(name, '!') ELSE name END AS name, "
        "city, balance, score, created, _row_id FROM src",
    )  # fmt: skip
    result = _verify(spark, sim_world, "ops_changed", "CUSTOMERS")
    assert (result.missing, result.extra, result.changed) == (0, 0, 1)
    assert result.examples[0].key == {"id": str(target)}
    assert result.examples[0].columns == ("name",)


def test_a_changed_timestamp_in_a_table_keyed_by_rowid_is_caught(
    spark: Any, sim_world: SimWorld
) -> None:
    replica = _corrupt(
        spark, sim_world, "ops_changed_ts", "EVENTS",
        "SELECT event_time, zone_time + INTERVAL 1 SECOND AS zone_time, payload, weight, "
        "ratio, label, _row_id FROM src",
    )  # fmt: skip
    non_null = spark.sql(f"SELECT count(*) FROM {replica} WHERE zone_time IS NOT NULL").first()[0]
    result = _verify(spark, sim_world, "ops_changed_ts", "EVENTS")
    assert result.changed == non_null > 0
    assert {d.columns for d in result.examples} == {("zone_time",)}


def test_a_sample_checks_only_that_fraction_of_the_key_buckets(
    spark: Any, sim_world: SimWorld, matching_schema: str
) -> None:
    result = _verify(spark, sim_world, matching_schema, "ORDERS", sample=0.25, seed=1)
    assert result.buckets_checked == canonical.BUCKET_COUNT // 4
    assert result.sampled and result.matches


def test_a_sample_finds_a_subset_of_the_differences(spark: Any, sim_world: SimWorld) -> None:
    _corrupt(
        spark, sim_world, "ops_sample", "CUSTOMERS",
        "SELECT id, concat(name, '!') AS name, city, balance, score, created, _row_id FROM src",
    )  # fmt: skip
    full = _verify(spark, sim_world, "ops_sample", "CUSTOMERS")
    sampled = [
        _verify(spark, sim_world, "ops_sample", "CUSTOMERS", sample=0.5, seed=seed)
        for seed in range(4)
    ]
    every_key = {tuple(d.key.items()) for d in full.examples}
    names = source_arrow(sim_world, _table(sim_world, "CUSTOMERS"))["name"].to_pylist()
    assert full.changed == sum(1 for n in names if n is not None)
    for result in sampled:
        assert {tuple(d.key.items()) for d in result.examples} <= every_key
    assert any(0 < r.changed < full.changed for r in sampled)


@pytest.fixture
def cli_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spark: Any, sim_world: SimWorld
) -> Path:
    """An oracdc.yml whose replicas are at the world's SCN; source and Spark are the tests'."""
    data = tmp_path / "data"
    data.mkdir()
    checkpoint = Checkpoint(mined_to_scn=sim_world.scn)
    (data / CHECKPOINT_FILE).write_text(json.dumps(checkpoint.to_json()), encoding="utf-8")
    config = tmp_path / "oracdc.yml"
    config.write_text("source: {kind: sim}\ntables: [SIM.*]\ndata_dir: data\n", encoding="utf-8")

    class Unclosed:
        def __getattr__(self, name: str) -> Any:
            return getattr(sim_world.source, name)

        def close(self) -> None:
            """The session's source stays open."""

    monkeypatch.setattr(verify_cli, "open_source", lambda config: Unclosed())
    monkeypatch.setattr(cli_options, "open_spark", lambda config: spark)
    return config


def test_the_command_exits_0_when_every_replica_matches(
    cli_project: Path, matching_schema: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", "--config", str(cli_project), "--replica-schema", matching_schema])
    assert code == 0
    assert "all 5 table(s) match" in capsys.readouterr().out


def test_a_table_snapshotted_after_the_last_mined_scn_is_verified_at_its_snapshot(
    cli_project: Path, matching_schema: str, sim_world: SimWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mining stops at the redo written so far, a snapshot reads at the current SCN: the
    table's replica is the source as of its snapshot, not as of mined_to_scn."""
    behind = sim_world.scn - 60
    customers = _table(sim_world, "CUSTOMERS")
    assert _rows(sim_world, customers, behind) != _rows(sim_world, customers, sim_world.scn), (
        "the workload changed CUSTOMERS in the last 60 SCNs"
    )
    done = TableSnapshotState("done", snapshot_scn=sim_world.scn, added_at_scn=sim_world.scn)
    checkpoint = Checkpoint(mined_to_scn=behind).with_table("SIM.CUSTOMERS", done)
    (cli_project.parent / "data" / CHECKPOINT_FILE).write_text(
        json.dumps(checkpoint.to_json()), encoding="utf-8"
    )
    code = main([
        "verify", "--config", str(cli_project), "--replica-schema", matching_schema,
        "--tables", "SIM.CUSTOMERS",
    ])  # fmt: skip
    assert code == 0
    assert f"SIM.CUSTOMERS: snapshotted at SCN {sim_world.scn}" in capsys.readouterr().out


def test_the_command_exits_3_and_writes_every_difference(
    cli_project: Path, spark: Any, sim_world: SimWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = _customer_ids(sim_world)[:4]
    _corrupt(spark, sim_world, "ops_cli", "CUSTOMERS", f"SELECT * FROM src WHERE id > {gone[-1]}")
    out = cli_project.parent / "diff.jsonl"
    code = main([
        "verify", "--config", str(cli_project), "--replica-schema", "ops_cli",
        "--tables", "sim.customers", "--out", str(out), "--show", "1",
    ])  # fmt: skip
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    missing = sorted(int(r["key"]["id"]) for r in records if r["record"] == "difference")
    assert code == 3
    assert missing == gone
    assert "... 3 more" in capsys.readouterr().out


def test_the_command_refuses_an_scn_older_than_the_replicas(
    cli_project: Path, sim_world: SimWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", "--config", str(cli_project), "--scn", str(sim_world.scn - 1)])
    assert code == 1
    assert "older than the replicas" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("dbid_shift", "resetlogs_shift", "said"),
    [(0, 1, "opened with RESETLOGS at SCN"), (1, 0, "another database")],
    ids=["resetlogs", "another-dbid"],
)
def test_the_command_refuses_another_incarnation_of_the_source(
    cli_project: Path,
    sim_world: SimWorld,
    capsys: pytest.CaptureFixture[str],
    dbid_shift: int,
    resetlogs_shift: int,
    said: str,
) -> None:
    """Replicas of the incarnation before a RESETLOGS (or of another database): the
    source's rows AS OF their SCN are another history."""
    now = sim_world.source.incarnation()
    assert now is not None
    earlier = SourceIncarnation(
        now.dbid + dbid_shift, now.resetlogs_change - resetlogs_shift, now.resetlogs_time
    )
    checkpoint = Checkpoint(mined_to_scn=sim_world.scn, incarnation=earlier)
    (cli_project.parent / "data" / CHECKPOINT_FILE).write_text(
        json.dumps(checkpoint.to_json()), encoding="utf-8"
    )
    code = main(["verify", "--config", str(cli_project)])
    err = capsys.readouterr().err
    assert code == 1
    assert said in err and "oracdc snapshot --force" in err


def test_the_command_exits_1_when_a_replica_does_not_exist(
    cli_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", "--config", str(cli_project), "--replica-schema", "ops_nowhere"])
    assert code == 1
    assert "cannot read replica" in capsys.readouterr().err
