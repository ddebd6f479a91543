"""The mining process (``mining.reader: process``): a replay bundle extracted through it lands
exactly what the inline miner lands, through crashes, spills, small windows and a growing
bundle; its errors, its death and its log records reach the extracting process."""

from __future__ import annotations

import logging
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from extractor.assemble.mining_process import MiningProcess
from extractor.config import OracdcConfig, config_from_mapping
from extractor.errors import BundleError, ConfigError, MiningProcessError, SyncStepError
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.fault_points import FaultHook, FaultPoint
from extractor.pipeline.runtime import mining_feed
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.e2e.sim_project import bundle_with_snapshot_midway
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

_CRASH_POINTS = [
    FaultPoint.SNAPSHOT_AFTER_LAND,
    FaultPoint.STREAM_AFTER_LAND_TABLE,
    FaultPoint.STREAM_BEFORE_CHECKPOINT,
    FaultPoint.STREAM_AFTER_CHECKPOINT,
]


class _Crash(Exception):
    pass


def _config(work: Path, bundle: Path, reader: str, **mining: Any) -> OracdcConfig:
    return config_from_mapping(
        {
            "source": {"kind": "replay", "path": str(bundle)},
            "tables": ["SIM.*"],
            "data_dir": str(work / "data"),
            "staging_schema": "staging",
            "memory_budget_mb": 1,  # large transactions spill
            "mining": {"window_scns": 100, "min_window_scns": 50, "max_window_scns": 400}
            | mining
            | {"reader": reader},
        },
        base_dir=work,
    )


def _cycle(
    config: OracdcConfig, staging: MemoryStagingWriter, fault: FaultHook | None = None
) -> MiningProcess | None:
    """One extraction pass in a fresh "process" (extractor and mining process); returns the
    mining process it used."""
    feed = mining_feed(config, source_from_config=True)
    source = open_source(config.source)
    options: dict[str, Any] = {} if fault is None else {"fault": fault}
    try:
        with open_extractor(config, source, None, writer=staging, feed=feed, **options) as ex:
            extract_and_land(ex, {})
    finally:
        if feed is not None:
            feed.close()
        source.close()
    assert feed is None or isinstance(feed, MiningProcess)
    return feed


def _crashing_once(point: FaultPoint | None, nth: int) -> FaultHook:
    """A hook that crashes the ``nth`` time ``point`` is reached, once."""
    reached: list[str] = []

    def fault(at: str) -> None:
        if at == point:
            reached.append(at)
            if len(reached) == nth:
                raise _Crash(at)

    return fault


def _staged(staging: MemoryStagingWriter, config: OracdcConfig) -> dict[str, Counter[str]]:
    """Every staged row of every table, without the landing time (and a snapshot row's
    ``_commit_ts``, the time the snapshot was taken)."""
    source = open_source(config.source)
    try:
        return {
            name: Counter(_row_text(row) for row in staging.staged_rows(source.table(owner, name)))
            for owner, name in _sim_tables(source)
        }
    finally:
        source.close()


def _row_text(row: dict[str, Any]) -> str:
    snapshot_made = row["_op"] == "r" or (row["_op"] == "t" and row["_xid"] is None)
    wall_clock = {"_extracted_at"} | ({"_commit_ts"} if snapshot_made else set())
    return repr(sorted((k, v) for k, v in row.items() if k not in wall_clock))


def _sim_tables(source: Any) -> list[tuple[str, str]]:
    return [(t.owner, t.name) for t in source.list_tables([("SIM", "*")])]


def _bundle_states(
    tmp_path: Path, spec: WorkloadSpec, cycles: int
) -> tuple[SimDatabase, list[Path]]:
    """A growing bundle of one workload: a copy of it after each of ``cycles`` steps.
    (Snapshot rows and their reset markers carry the time the snapshot was taken.)"""
    db = SimDatabase()
    workload = WorkloadRunner(db, spec)
    midway = bundle_with_snapshot_midway(workload, 40, 80, tmp_path / "recording")
    states = []
    for number in range(cycles):
        if number:
            workload.run(60)
            midway.record()
        states.append(tmp_path / f"state{number}")
        shutil.copytree(midway.out, states[-1])
    return db, states


def _extract_with_crashes(
    work: Path, states: list[Path], reader: str, plan: list[tuple[FaultPoint | None, int]]
) -> tuple[MemoryStagingWriter, OracdcConfig]:
    """A cycle per bundle state (the bundle grows between them), each crashing at its planned
    point and restarting."""
    bundle = work / "bundle"
    config = _config(work, bundle, reader)
    staging = MemoryStagingWriter(config.staging_schema)
    for state, (point, nth) in zip(states, plan, strict=True):
        shutil.rmtree(bundle, ignore_errors=True)
        shutil.copytree(state, bundle)
        try:
            _cycle(config, staging, _crashing_once(point, nth))
        except (_Crash, SyncStepError) as crash:
            assert point is not None, crash
            _cycle(config, staging)  # the restarted process completes the cycle
    return staging, config


@pytest.mark.parametrize("seed", [3, 8])
def test_the_mining_process_lands_what_the_inline_miner_lands(tmp_path: Path, seed: int) -> None:
    spec = WorkloadSpec(
        tables=4,
        seed=seed,
        interleave=6,
        rollback_ratio=0.05,
        savepoint_rollback_ratio=0.05,
        pk_update_ratio=0.05,
        delete_ratio=0.15,
        long_value_ratio=0.05,  # CSF chains, cut off at window ends
        max_statements=8,
    )
    rng = random.Random(seed)
    plan = [(rng.choice([*_CRASH_POINTS, None]), rng.randint(1, 3)) for _ in range(4)]
    db, states = _bundle_states(tmp_path, spec, len(plan))
    landed = {}
    for reader in ("inline", "process"):
        staging, config = _extract_with_crashes(tmp_path / reader, states, reader, plan)
        landed[reader] = _staged(staging, config)
        source = open_source(config.source)
        for owner, name in _sim_tables(source):
            table = db.table(owner, name)
            replica = consolidate(table, staging.staged_rows(source.table(owner, name)))
            expected = truth_by_key(table, db.truth(owner, name, db.current_scn()))
            assert differences(expected, replica, limit=5) == [], (reader, name)
        source.close()
    assert sum(sum(rows.values()) for rows in landed["process"].values()) > 300
    assert landed["process"] == landed["inline"]


def test_open_transactions_stay_in_the_mining_process_between_passes(tmp_path: Path) -> None:
    """A pass that ends inside open transactions leaves them in the mining process's buffer;
    the next pass of the same extractor finishes them there, without mining again."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=3, seed=5, interleave=8, max_statements=6))
    midway = bundle_with_snapshot_midway(workload, 20, 120, tmp_path / "bundle")
    config = _config(tmp_path, midway.out, "process")
    staging = MemoryStagingWriter(config.staging_schema)
    feed = mining_feed(config, source_from_config=True)
    assert isinstance(feed, MiningProcess)
    source = open_source(config.source)
    with open_extractor(config, source, None, writer=staging, feed=feed) as extractor:
        extractor.snapshot()
        start = extractor.checkpoint.resume_scn
        assert start is not None
        middle = (start + source.minable_scn()) // 2
        first = extractor.stream_once(middle)
        process = feed._process
        assert process is not None
        assert extractor.checkpoint.resume_scn is not None
        assert extractor.checkpoint.resume_scn <= middle, "a transaction was open at the end"
        second = extractor.stream_once()
        assert feed._process is process
    source.close()
    assert first.transactions and second.transactions
    for owner, name in _sim_tables(open_source(config.source)):
        table = db.table(owner, name)
        replica = consolidate(
            table, staging.staged_rows(open_source(config.source).table(owner, name))
        )
        expected = truth_by_key(table, db.truth(owner, name, db.current_scn()))
        assert differences(expected, replica, limit=5) == [], name


def _damaged_bundle(tmp_path: Path) -> OracdcConfig:
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=2, seed=4))
    midway = bundle_with_snapshot_midway(workload, 10, 30, tmp_path / "bundle")
    lines = (midway.out / "logminer.jsonl").read_text(encoding="utf-8").splitlines()
    lines[-5] = lines[-5][:60]  # cut short: not JSON
    (midway.out / "logminer.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return _config(tmp_path, midway.out, "process")


def test_an_error_in_the_mining_process_is_raised_here_as_itself(tmp_path: Path) -> None:
    config = _damaged_bundle(tmp_path)
    errors: dict[str, str] = {}
    for reader in ("inline", "process"):
        reader_config = _config(tmp_path / reader, Path(config.source["path"]), reader)
        staging = MemoryStagingWriter(reader_config.staging_schema)
        with pytest.raises(SyncStepError) as raised:
            _cycle(reader_config, staging)
        assert isinstance(raised.value.__cause__, BundleError), raised.value.__cause__
        errors[reader] = raised.value.__cause__.one_line()
    assert errors["process"] == errors["inline"]


def test_a_mining_process_that_dies_is_reported_and_replaced(tmp_path: Path) -> None:
    """Killed while idle, then killed half way through a pass (more rows than the pipe holds):
    each time the pass fails with the exit code and the fix, and the next pass of the same
    extractor starts a new mining process from the checkpoint."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=3, seed=6, interleave=4))
    midway = bundle_with_snapshot_midway(workload, 20, 2_000, tmp_path / "bundle")
    config = _config(tmp_path, midway.out, "process", window_scns=400, max_window_scns=400)
    staging = MemoryStagingWriter(config.staging_schema)
    feed = mining_feed(config, source_from_config=True)
    assert isinstance(feed, MiningProcess)
    kill_at: list[str] = []

    def kill(at: str = "now") -> None:
        process = feed._process
        if (at == "now" or at in kill_at) and process is not None:
            kill_at.clear()
            process.kill()
            process.wait()

    source = open_source(config.source)
    with open_extractor(config, source, None, writer=staging, feed=feed, fault=kill) as ex:
        ex.snapshot()
        kill()
        with pytest.raises(MiningProcessError) as idle:
            ex.stream_once()
        kill_at.append(FaultPoint.STREAM_AFTER_CHECKPOINT)
        with pytest.raises(MiningProcessError) as busy:
            ex.stream_once()
        assert ex.checkpoint.mined_to_scn is not None, "a window landed before the kill"
        ex.stream_once()
    for raised in (idle, busy):
        assert "exit code -9" in raised.value.one_line()
        assert "mining.reader: inline" in raised.value.one_line()
    for owner, name in _sim_tables(source):
        table = db.table(owner, name)
        replica = consolidate(table, staging.staged_rows(source.table(owner, name)))
        expected = truth_by_key(table, db.truth(owner, name, db.current_scn()))
        assert differences(expected, replica, limit=5) == [], name
    source.close()


def test_log_records_of_the_mining_process_are_logged_here(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Transactions open past the retention limit are discarded and logged by the buffer, in
    the mining process; the records reach this process's logging under the buffer's logger."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=2, seed=9, interleave=6, max_statements=8))
    midway = bundle_with_snapshot_midway(workload, 10, 150, tmp_path / "bundle")
    config = _config(tmp_path, midway.out, "process", transaction_retention_scns=3)
    staging = MemoryStagingWriter(config.staging_schema)
    with caplog.at_level(logging.INFO):
        _cycle(config, staging)
    forwarded = [r for r in caplog.records if r.name == "extractor.assemble.transaction_buffer"]
    assert forwarded, sorted({r.name for r in caplog.records})
    assert all(getattr(r, "origin", None) == "mining process" for r in forwarded)
    assert all(isinstance(getattr(r, "xid", None), str) for r in forwarded), "extra fields"
    assert any("passed the retention limit" in r.getMessage() for r in forwarded)


def test_the_reader_setting_is_checked_and_auto_picks_by_source(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    with pytest.raises(ConfigError, match=r"mining\.reader must be one of"):
        _config(tmp_path, bundle, "thread")
    sim = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["SIM.*"], "data_dir": "d",
         "mining": {"reader": "process"}},
        base_dir=tmp_path,
    )  # fmt: skip
    with pytest.raises(ConfigError, match="needs a replay or oracle source"):
        mining_feed(sim, source_from_config=True)
    auto_sim = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["SIM.*"], "data_dir": "d"}, base_dir=tmp_path
    )
    assert mining_feed(auto_sim, source_from_config=True) is None
    assert mining_feed(_config(tmp_path, bundle, "inline"), source_from_config=True) is None
    replay_auto = _config(tmp_path, bundle, "auto")
    assert mining_feed(replay_auto, source_from_config=False) is None  # a test's own source
    feed = mining_feed(replay_auto, source_from_config=True)
    assert isinstance(feed, MiningProcess)
    feed.close()
