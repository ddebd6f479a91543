"""The mining process (``mining.reader: process``): a replay bundle extracted through it lands
exactly what the inline miner lands, through crashes, a spilling transaction, small windows
and a growing bundle; its errors, its death and its log records reach the extracting process."""

from __future__ import annotations

import json
import logging
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from extractor.assemble.mining_process import (
    STDERR_FILE,
    MiningProcess,
    _exception,
    _failed,
    _NamedObjects,
)
from extractor.config import OracdcConfig, config_from_mapping
from extractor.errors import (
    BundleError,
    ConfigError,
    IncompleteContinuationError,
    MiningProcessError,
    MissingRedoLogError,
    SpillError,
    SyncStepError,
    TableNotFoundError,
)
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.fault_points import FaultHook, FaultPoint
from extractor.pipeline.runtime import mining_feed
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.e2e.sim_project import MidwayBundle, bundle_with_snapshot_midway
from tests.pipeline.mining_wire import ThreadMiningProcess, sim_opener
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import TABLES, make_config

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
            "memory_budget_mb": 1,
            "mining": {"window_scns": 100, "min_window_scns": 50, "max_window_scns": 400}
            | mining
            | {"reader": reader},
        },
        base_dir=work,
    )


def _cycle(
    config: OracdcConfig,
    staging: MemoryStagingWriter,
    fault: FaultHook | None = None,
    spilled: list[int] | None = None,
) -> MiningProcess | None:
    """One extraction pass in a fresh "process" (extractor and mining process); returns the
    mining process it used. ``spilled`` gets the bytes its transaction buffer spilled."""
    feed = mining_feed(config, source_from_config=True)
    source = open_source(config.source)
    options: dict[str, Any] = {} if fault is None else {"fault": fault}
    try:
        with open_extractor(config, source, None, writer=staging, feed=feed, **options) as ex:
            try:
                extract_and_land(ex, {})
            finally:
                if spilled is not None:
                    spilled.append(ex.stats.spill_bytes)
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
    """A growing bundle of one workload: a copy of it after each of ``cycles`` steps, with
    one large transaction open from the first step to the last (it spills under a 1 MiB
    budget and stays open across cycles, crashes and restarts). (Snapshot rows and their
    reset markers carry the time the snapshot was taken.)"""
    db = SimDatabase()
    workload = WorkloadRunner(db, spec)
    midway = bundle_with_snapshot_midway(workload, 40, 80, tmp_path / "recording")
    large = db.begin()
    states = []
    for number in range(cycles):
        if number:
            for i in range(600):  # ~1 kB of SQL_REDO each
                key = 10_000_000 + number * 1_000 + i
                large.insert("SIM", "CUSTOMERS", {"ID": key, "NAME": "w" * 1000, "BALANCE": 1})
            workload.run(60)
            if number == cycles - 1:
                large.commit()
                workload.run(5)
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
    spilled: list[int] = []
    for state, (point, nth) in zip(states, plan, strict=True):
        shutil.rmtree(bundle, ignore_errors=True)
        shutil.copytree(state, bundle)
        try:
            _cycle(config, staging, _crashing_once(point, nth), spilled)
        except (_Crash, SyncStepError) as crash:
            assert point is not None, crash
            _cycle(config, staging, spilled=spilled)  # the restarted process completes it
    assert max(spilled) > 0, f"the large transaction did not spill ({reader}): {spilled}"
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


def _purge_redo_from(bundle: Path, scn: int) -> None:
    """The bundle's redo logs: those below ``scn`` purged (not available)."""
    logs = [
        {"thread": 1, "sequence": 1, "first_change": 0, "next_change": scn,
         "name": "/arch/1_1.arc", "archived": True, "available": False},
        {"thread": 1, "sequence": 2, "first_change": scn, "next_change": None,
         "name": "/redo/redo01.log", "archived": False, "available": True},
    ]  # fmt: skip
    (bundle / "logs.json").write_text(json.dumps(logs), encoding="utf-8")


def test_an_error_in_the_mining_process_is_raised_here_as_itself(tmp_path: Path) -> None:
    """A redo gap found by the mining process (its source checks the window's logs) is the
    same MissingRedoLogError, message and fix, as inline: ``snapshot_mode: when_needed``
    and the command line's error line depend on it."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=2, seed=4))
    midway = bundle_with_snapshot_midway(workload, 10, 30, tmp_path / "bundle")
    errors: dict[str, MissingRedoLogError] = {}
    for reader in ("inline", "process"):
        (midway.out / "logs.json").unlink(missing_ok=True)
        config = _config(tmp_path / reader, midway.out, reader)
        feed = mining_feed(config, source_from_config=True)
        source = open_source(config.source)
        staging = MemoryStagingWriter(config.staging_schema)
        with open_extractor(config, source, None, writer=staging, feed=feed) as extractor:
            extractor.snapshot()
            _purge_redo_from(midway.out, source.minable_scn())
            with pytest.raises(MissingRedoLogError) as raised:
                extractor.stream_once()
            errors[reader] = raised.value
        if feed is not None:
            feed.close()
        source.close()
    assert type(errors["process"]) is type(errors["inline"])
    assert errors["process"].one_line() == errors["inline"].one_line()
    assert errors["process"].__dict__ == errors["inline"].__dict__
    log = (tmp_path / "process" / "data" / STDERR_FILE).read_text(encoding="utf-8")
    assert "MissingRedoLogError" in log, "raised in the mining process, its traceback logged"


class _Unpicklable(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.callback = lambda: None


@pytest.mark.parametrize(
    "error",
    [
        MissingRedoLogError(10, 20, "thread 1 sequence 7 purged"),
        IncompleteContinuationError(xid="0A00", scn=17, rs_id=" 0x1.2.3 ", ssn=4, pieces=2),
        TableNotFoundError("SIM.GONE", "dropped"),
        BundleError(Path("/b"), "line 3 is not JSON"),
        SpillError("disk full", xid="0B00", path="/spill/0B00"),
        ValueError("plain"),
        FileNotFoundError(2, "No such file or directory", "/data/spill"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_failures_cross_to_this_process_as_the_same_exception(error: BaseException) -> None:
    """Carried as class, args and attributes: also errors whose __init__ takes other
    arguments than their message come back whole (pickling them would call it)."""
    back = _exception(_failed(error))
    assert type(back) is type(error)
    assert back.args == error.args and back.__dict__ == error.__dict__
    assert str(back) == str(error)
    if isinstance(error, OSError):
        assert isinstance(back, OSError) and back.filename == error.filename


class _Slotted(Exception):
    __slots__ = ("detail",)

    def __init__(self, detail: str) -> None:
        super().__init__()
        self.detail = detail

    def __str__(self) -> str:
        return f"slotted {self.detail}"


@pytest.mark.parametrize("error", [_Unpicklable("no way"), _Slotted("state")], ids=repr)
def test_a_failure_that_cannot_cross_comes_as_its_text(error: Exception) -> None:
    back = _exception(_failed(error))
    assert isinstance(back, MiningProcessError)
    assert f"{type(error).__name__}: {error}" in back.one_line()


class _Collect:
    def __init__(self) -> None:
        self.messages: list[object] = []

    def add(self, message: object, rows: int = 0) -> None:
        self.messages.append(message)


def test_the_object_ids_are_sent_again_when_a_name_changes() -> None:
    """A renamed table keeps its object id: the mapping's size does not change, its content
    does, and the extracting process must learn the new name."""
    mapping = {501: ("APP", "ITEMS")}

    class Named:
        def mined_objects(self) -> dict[int, tuple[str, str]]:
            return dict(mapping)

    sender = _Collect()
    named = _NamedObjects(Named())  # type: ignore[arg-type]
    named.send_new(sender)  # type: ignore[arg-type]
    named.send_new(sender)  # type: ignore[arg-type]
    mapping[501] = ("APP", "ITEMS_NEW")
    named.send_new(sender)  # type: ignore[arg-type]
    assert [m.objects for m in sender.messages] == [  # type: ignore[attr-defined]
        [(501, "APP", "ITEMS")],
        [(501, "APP", "ITEMS_NEW")],
    ]


def test_a_mining_process_that_dies_is_reported_and_replaced(tmp_path: Path) -> None:
    """Killed while idle, then killed half way through a pass (more rows than the pipe holds):
    each time the pass fails with the exit code and the fix, and the next pass of the same
    extractor starts a new mining process from the checkpoint."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=3, seed=6, interleave=4))
    midway = bundle_with_snapshot_midway(workload, 20, 2_000, tmp_path / "bundle")
    config = _config(tmp_path, midway.out, "process", window_scns=400, max_window_scns=400)
    staging = MemoryStagingWriter(config.staging_schema)
    (config.data_dir / STDERR_FILE).parent.mkdir(parents=True)
    (config.data_dir / STDERR_FILE).write_text("Traceback of an earlier process\n")
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
        assert "earlier process" not in raised.value.one_line(), "only this process's lines"
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


def test_rows_logminer_could_not_name_are_quarantined_through_the_mining_process(
    tmp_path: Path,
) -> None:
    """Rows of a replicated table LogMiner names ``UNKNOWN.OBJ# n`` are known by their object
    id, which only the source that mined them learnt: the mining process sends it, and each
    such row is quarantined, none dropped (as inline)."""
    outcomes = {}
    for reader in ("inline", "thread"):
        config = make_config(tmp_path / reader, "t", error_policy="warn")
        db = SimDatabase(unnamed_object_ratio=0.3)
        for table in TABLES:
            db.create_table(table)
        source = open_source({"kind": "sim", "database": db})
        feed = None
        if reader == "thread":  # the mining side has a source of its own, as in a process
            feed = ThreadMiningProcess(config, sim_opener(db))
        staging = MemoryStagingWriter(config.staging_schema)
        with open_extractor(config, source, None, writer=staging, feed=feed) as extractor:
            extractor.snapshot()
            for key in range(100, 120):
                txn = db.begin()
                txn.insert("APP", "ITEMS", {"ID": key, "NAME": f"item {key}"})
                txn.commit()
            result = extractor.stream_once()
            items = extractor.registry.lookup("APP", "ITEMS")
            assert items is not None
            landed = sum(1 for r in staging.staged_rows(items) if r["_op"] == "c")
        if feed is not None:
            feed.close()
        unnamed = [r for r in db.logminer_contents(0, db.current_scn()) if r.seg_owner == "UNKNOWN"]
        outcomes[reader] = (len(unnamed), result.quarantined, landed)
    assert outcomes["thread"] == outcomes["inline"]
    unnamed_rows, quarantined, landed = outcomes["thread"]
    assert unnamed_rows > 0 and quarantined == unnamed_rows and landed + quarantined == 20


@pytest.mark.parametrize("seed", [21, 22])
def test_a_simulated_workload_through_the_mining_wire_equals_the_source(
    tmp_path: Path, seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    """The Oracle code path (``OracleSource`` over the simulator's DB-API) mined on the
    mining side of the wire: RAC threads, partial XIDs, interleaving, CSF chains, small
    windows and crashes, logging at INFO (the serving thread must not send this thread's
    records); the staged changes consolidate to the source's state."""
    caplog.set_level(logging.INFO)
    db = SimDatabase(partial_xid_rate=0.5, partial_xid_seed=seed, threads=2)
    spec = WorkloadSpec(
        tables=4, seed=seed, interleave=6, rollback_ratio=0.05, savepoint_rollback_ratio=0.05,
        pk_update_ratio=0.05, delete_ratio=0.15, long_value_ratio=0.05, max_statements=6,
    )  # fmt: skip
    workload = WorkloadRunner(db, spec)
    workload.run(60)
    config = config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": str(tmp_path / "data"),
            "staging_schema": "staging",
            "memory_budget_mb": 1,
            "mining": {"window_scns": 100, "min_window_scns": 100, "max_window_scns": 200},
        },
        base_dir=tmp_path,
    )
    staging = MemoryStagingWriter(config.staging_schema)
    rng = random.Random(seed)

    def cycle(fault: FaultHook | None) -> None:
        feed = ThreadMiningProcess(config, sim_opener(db))
        source = open_source({"kind": "sim", "database": db})
        options: dict[str, Any] = {} if fault is None else {"fault": fault}
        try:
            with open_extractor(config, source, None, writer=staging, feed=feed, **options) as ex:
                extract_and_land(ex, {})
        finally:
            feed.close()

    crashes = 0
    for _ in range(4):
        point = rng.choice([*_CRASH_POINTS, None])
        try:
            cycle(_crashing_once(point, rng.randint(1, 3)))
        except (_Crash, SyncStepError):
            crashes += 1
            cycle(None)
        workload.run(60)
    cycle(None)
    assert crashes, "the plan crashed at least once"
    source = open_source({"kind": "sim", "database": db})
    for owner, name in _sim_tables(source):
        table = db.table(owner, name)
        replica = consolidate(table, staging.staged_rows(source.table(owner, name)))
        expected = truth_by_key(table, db.truth(owner, name, db.current_scn()))
        assert differences(expected, replica, limit=5) == [], name


def test_spill_files_of_a_killed_mining_process_are_removed(tmp_path: Path) -> None:
    """A transaction open across many windows spills in the mining process (its files are
    seen at the checkpoints); the pass fails while it is busy and it is killed: its spill
    directory goes with it. A directory a dead mining process left is removed when the next
    one starts."""
    db = SimDatabase()
    workload = WorkloadRunner(db, WorkloadSpec(tables=2, seed=4))
    first = workload.run(10)
    midway = MidwayBundle(db, tmp_path / "bundle", db.current_scn(), first.first_scn)
    big = db.begin()
    for i in range(3000):
        big.insert("SIM", "CUSTOMERS", {"ID": 10_000_000 + i, "NAME": "x" * 1000, "BALANCE": 1})
        if i % 100 == 0:
            workload.run(2)
    workload.run(20)
    big.commit()
    midway.record()
    config = _config(tmp_path, midway.out, "process", window_scns=50, max_window_scns=50)
    left_by_a_dead_one = config.spill_dir / "mining-999999"
    left_by_a_dead_one.mkdir(parents=True)
    (left_by_a_dead_one / "old.spill").write_bytes(b"rows")
    feed = mining_feed(config, source_from_config=True)
    assert isinstance(feed, MiningProcess)
    spilled: list[int] = []

    def fail_later(at: str) -> None:
        if at == FaultPoint.STREAM_AFTER_CHECKPOINT:
            spilled.append(len(list(config.spill_dir.glob("mining-*/*.spill"))))
            if len(spilled) == 10:
                raise _Crash(at)

    source = open_source(config.source)
    with open_extractor(config, source, None, writer=MemoryStagingWriter("s"), feed=feed,
                        fault=fail_later) as extractor:  # fmt: skip
        extractor.snapshot()
        with pytest.raises(_Crash):
            extractor.stream_once()
        assert feed._process is None, "stopped when the pass failed"
    source.close()
    assert len(spilled) == 10 and max(spilled) > 0, f"no spill file seen: {spilled}"
    assert not left_by_a_dead_one.exists()
    assert not list(config.spill_dir.rglob("*.spill"))
