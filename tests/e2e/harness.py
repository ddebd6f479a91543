"""The differential harness: random simulated workloads through the whole pipeline (extractor,
staging, dbt) with crashes injected at random points, then every replica compared row by row
and column by column with the simulator's committed state at the SCN the replica is at.

Two ways to run a seed, with the same workload, knobs, crash points and checkpoint losses:

- ``run_case`` (``test_harness.py``): the whole pipeline, Spark staging tables and ``dbt
  build``; minutes a seed.
- ``run_case_fast`` (``test_harness_fast.py``): the extractor alone, staging in memory and the
  test reference consolidation in place of dbt; seconds a seed, so it runs many seeds. Its
  odd seeds mine through the mining process's wire (``tests/pipeline/mining_wire.py``).

Each test runs a fixed set of seeds in CI; ``ORACDC_HARNESS_SEEDS=N`` adds N more seeds to
both (``ORACDC_HARNESS_SEEDS=1000 ./scripts/test.sh tests/e2e/test_harness_fast.py`` for a long
run of the extractor; docs/simulator.md).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from extractor.config import OracdcConfig, config_from_mapping
from extractor.demo import prepare_work_dir
from extractor.dictionary import TableDef
from extractor.errors import SimUsageError
from extractor.lakehouse.dbt_runner import run_dbt
from extractor.pipeline import incarnation_guard
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.fault_points import FaultHook, FaultPoint
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, extract_and_land, run_cycle
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.base import Source
from extractor.source.factory import open_source
from extractor.state.checkpoint import CHECKPOINT_FILE, Checkpoint
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.e2e.replica_compare import TableComparison, compare_table
from tests.pipeline.mining_wire import ThreadMiningProcess
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key

# Where the extractor's session is (a third of the seeds each; own random stream).
CONTAINERS = ("none", "pdb", "root")
FAULT_POINTS = tuple(FaultPoint)


class InjectedCrash(Exception):
    """A crash the harness injected."""


@dataclass(frozen=True)
class HarnessCase:
    seed: int
    tables: int = 5  # 5: the demo tables (every type and logging level); more: random tables
    cycles: int = 3
    transactions_per_cycle: int = 120
    # After a cycle, at this rate: checkpoint.json moved aside, then a recovery cycle at once
    # (re-snapshot; batch ids continue above staging's). Its own random stream: the crash
    # points of a seed stay what they were.
    checkpoint_loss_ratio: float = 0.35
    # the replicas' bucket layout (docs/dbt.md "Bucket layouts"), with a few keys per bucket so
    # that the simulated tables span many buckets
    bucket_layout: str = "auto"
    # the replicas' layout (docs/dbt.md "Replica layouts"); merge_on_read compacts a delta once
    # it passes 30% of its base, so that the cycles read through deltas and compactions alike
    replica_layout: str = "copy_on_write"
    # After which cycle the source is restored to an earlier SCN (OPEN RESETLOGS) once the
    # changes after it have landed; every table then has snapshot_mode when_needed. None: a
    # quarter of the seeds, after a cycle drawn from their own random stream; -1: never.
    resetlogs_after: int | None = None
    # Chance, per transaction started, of a table's supplemental logging changed (to or from
    # ALL its replica key changes). None: half the seeds 0.03, drawn from their own stream.
    logging_change_ratio: float | None = None
    # Chance, per transaction started, of a column made INVISIBLE or VISIBLE again. None: half
    # the seeds 0.05, drawn from their own stream.
    visibility_change_ratio: float | None = None
    # Chance, per transaction started, of ROW ARCHIVAL given to a table (its rows archived
    # and restored by later updates). None: half the seeds 0.02, drawn from their own stream.
    row_archival_ratio: float | None = None
    # One table replicated with snapshot_mode initial_only (snapshot, never streamed; its
    # replica is compared at its snapshot SCN). None: half the seeds, a table drawn from
    # their own stream; "": none.
    initial_only_table: str | None = None


@dataclass
class HarnessOutcome:
    case: HarnessCase
    crashes: list[str]
    comparisons: list[TableComparison]

    @property
    def passed(self) -> bool:
        return all(c.matches for c in self.comparisons)

    def describe(self) -> str:
        lines = [f"seed {self.case.seed} ({self.case}); crashes injected at {self.crashes}"]
        for comparison in self.comparisons:
            if not comparison.matches:
                lines.append(
                    f"  {comparison.table}: missing {comparison.missing}, extra "
                    f"{comparison.extra}, changed {comparison.changed}"
                )
                lines += [f"    {example}" for example in comparison.examples[:5]]
        return "\n".join(lines)


def extra_seeds() -> list[int]:
    count = int(os.environ.get("ORACDC_HARNESS_SEEDS", "0"))
    return list(range(1000, 1000 + count))


def run_case(spark: Any, work_root: Path, case: HarnessCase) -> HarnessOutcome:
    """The whole pipeline: extractor, Spark staging tables, ``dbt build`` of the replicas,
    which are compared with the simulator's committed state."""
    db, workload, small_windows = _workload(case)
    config = _project(
        work_root / f"seed{case.seed}", case, small_windows=small_windows,
        initial_only=_initial_only_table(case, workload),
    )  # fmt: skip
    dbt = dbt_settings(config)
    dbt.variables.update(
        {
            "oracle_cdc__bucket_layout": case.bucket_layout,
            "oracle_cdc__rows_per_bucket": 8,
            "oracle_cdc__layout": case.replica_layout,
            "oracle_cdc__compact_share": 0.3,
        }
    )

    def cycle(fault: FaultHook | None) -> None:
        with open_runtime(config, source=_source(db), spark=spark, fault=fault) as runtime:
            run_cycle(runtime, dbt)

    crashes = _run_cycles(case, config, workload, cycle)
    with open_runtime(config, source=_source(db), spark=spark) as runtime:
        checkpoint = runtime.extractor.checkpoint
        comparisons = [
            compare_table(
                table, runtime.source, spark, _replica_schema(case), _replica_scn(checkpoint, table)
            )
            for table in runtime.extractor.registry.resolve()
        ]
    return HarnessOutcome(case, crashes, comparisons)


def run_case_fast(work_root: Path, case: HarnessCase) -> HarnessOutcome:
    """The extractor alone, at a few seconds a seed: staging tables in memory and the test
    reference consolidation (``tests/pipeline/reference_replica.py``, dbt's rules) in place of
    Spark and dbt, compared with the simulator's committed state. Same workloads, knobs, crash
    points and checkpoint losses as ``run_case``."""
    db, workload, small_windows = _workload(case)
    config = _config(
        work_root / f"seed{case.seed}", case, small_windows=small_windows,
        initial_only=_initial_only_table(case, workload),
    )  # fmt: skip
    staging = MemoryStagingWriter(config.staging_schema)
    # Odd seeds: windows mined on the mining side of the mining process's wire (served by a
    # thread, with a source of its own, as a mining process has); even seeds inline.
    through_the_wire = case.seed % 2 == 1

    def cycle(fault: FaultHook | None) -> None:
        feed = ThreadMiningProcess(config, lambda _start: _source(db)) if through_the_wire else None
        try:
            with open_extractor(
                config, _source(db), None, writer=staging, fault=fault, feed=feed
            ) as extractor:
                extract_and_land(extractor, {})
        finally:
            if feed is not None:
                feed.close()

    crashes = _run_cycles(case, config, workload, cycle)
    with open_extractor(config, _source(db), None, writer=staging) as extractor:
        checkpoint = extractor.checkpoint
        comparisons = [
            _compare_with_reference(db, staging, table, _replica_scn(checkpoint, table))
            for table in extractor.registry.resolve()
        ]
    return HarnessOutcome(case, crashes, comparisons)


def _workload(case: HarnessCase) -> tuple[SimDatabase, WorkloadRunner, bool]:
    """The simulated database with this seed's knobs, after the first cycle's workload; and
    whether mining uses small windows."""
    # Half the seeds: XID sequence FFFFFFFF on the end rows of transactions begun before their
    # mining session (production Oracle), with small windows. Sessions start at the oldest
    # open transaction, so the runs meet none unless that breaks. Own random stream.
    partial_xid_rate = random.Random(f"ffffffff-{case.seed}").choice((0.0, 0.5))
    # The same seeds: a fifth of the DML rows of transactions begun before their LogMiner
    # session show as UNSUPPORTED (DBZ-8747): each session must start at the oldest open
    # transaction. (Small windows on more seeds would make the Spark harness much slower.)
    pre_session_unsupported = 0.2 if partial_xid_rate else 0.0
    # Half the seeds: RAC, two instances each writing its own redo thread. Own random stream.
    threads = random.Random(f"rac-{case.seed}").choice((1, 2))
    # A third of the seeds: multiplexed online logs whose first member of group 1 is
    # INVALID (inaccessible): the online-log query must name the other one. Own stream.
    multiplexed = random.Random(f"members-{case.seed}").random() < 1 / 3
    db = SimDatabase(
        partial_xid_rate=partial_xid_rate,
        partial_xid_seed=case.seed,
        pre_session_unsupported_rate=pre_session_unsupported,
        threads=threads,
        online_log_members=2 if multiplexed else 1,
    )
    if multiplexed:
        (group_1,) = [f for f in db.log_files() if f.is_online and f.thread == 1]
        db.set_log_member_status(group_1.members[0], "INVALID")
    # RAC seeds, half of them: rows of two threads at one SCN come in another order in a
    # session starting at an odd SCN. Own random stream.
    db.thread_order_varies = (
        threads > 1 and random.Random(f"thread-order-{case.seed}").random() < 0.5
    )
    # A third of the seeds: SQL_REDO without ROWID predicates (NO_ROWID_IN_STMT); rows are
    # known by V$LOGMNR_CONTENTS.ROW_ID only. Own random stream.
    db.rowid_in_statements = random.Random(f"no-rowid-{case.seed}").random() >= 1 / 3
    # A third of the seeds: 30% of DML rows with their apostrophes not doubled in SQL_REDO
    # (relaxed-quote recovery; replicas must still equal the source). Own random stream.
    undoubled = random.Random(f"undoubled-{case.seed}").random() < 1 / 3
    db.undoubled_quote_ratio = 0.3 if undoubled else 0.0
    # A third of the seeds: DATA_OBJ# on every DML row, as Oracle gives it (else only on rows
    # LogMiner names otherwise: a table dropped or renamed since). Own random stream.
    if random.Random(f"data-obj-{case.seed}").random() < 1 / 3:
        db.unnamed_object_ratio = 1e-9  # DATA_OBJ# on every row; (almost) no row unnamed
    # Half the seeds: redo trails the current SCN (LGWR not yet written) until a log switch.
    db.redo_write_lag_scns = random.Random(f"redo-lag-{case.seed}").choice((0, 25))
    # Half the seeds: a flashback query AS OF an SCN less than 30 SCNs after a DDL of the
    # table fails with ORA-01466 (a snapshot taken again at a newer SCN). Own random stream.
    db.flashback_ddl_lag_scns = random.Random(f"flashback-lag-{case.seed}").choice((0, 30))
    # Half the seeds: row-moving DDL (MOVE / SHRINK SPACE: re-snapshots), TRUNCATEs, tables
    # dropped and created again under their name, and reloads by rename.
    ddl_ratio = random.Random(f"row-moving-ddl-{case.seed}").choice((0.0, 0.01))
    # RAC seeds, half of them: transactions of two instances commit at one SCN (positions of
    # two redo threads at one SCN). Own random stream.
    one_scn = random.Random(f"one-scn-{case.seed}").choice((0.0, 0.1)) if threads > 1 else 0.0
    # Half the seeds: the added column has a DEFAULT, which the rows that exist then hold with
    # no redo (a re-snapshot). Own random stream.
    added_default = random.Random(f"added-default-{case.seed}").choice((None, "the default"))
    # Half the seeds: the last two tables list partitioned, with new partitions now and then
    # (ALTER TABLE … ADD PARTITION, or an automatic one with no DDL row): each row's
    # redo carries its partition's OBJECT_ID, and snapshots read every partition's extents.
    # Own random stream; the workload's DML is the same either way.
    partitioned = random.Random(f"partitioned-{case.seed}").choice((0, 2))
    # Half the seeds: ALTER TABLE … ADD / DROP SUPPLEMENTAL LOG DATA now and then; to or from
    # ALL the replica key changes (a re-snapshot under the new key). Own random stream.
    logging_changes = case.logging_change_ratio
    if logging_changes is None:
        logging_changes = random.Random(f"logging-changes-{case.seed}").choice((0.0, 0.03))
    # Half the seeds: ALTER DATABASE ADD / DROP SUPPLEMENTAL LOG DATA now and then, with no
    # DDL row: lowered, the tables it raised lose their key from their images while a process
    # runs; raised, a restart finds their key changed. Own random stream.
    database_logging = random.Random(f"database-logging-{case.seed}").choice((0.0, 0.01))
    # Half the seeds: columns made INVISIBLE and VISIBLE again now and then; an invisible
    # column stays in redo and in the replica. Own random stream.
    visibility = case.visibility_change_ratio
    if visibility is None:
        visibility = random.Random(f"visibility-{case.seed}").choice((0.0, 0.05))
    # Half the seeds: tables get ROW ARCHIVAL; the replica keeps the archived rows, which
    # Oracle's queries hide by default. Own random stream.
    archival = case.row_archival_ratio
    if archival is None:
        archival = random.Random(f"row-archival-ratio-{case.seed}").choice((0.0, 0.02))
    spec = WorkloadSpec(
        tables=case.tables,
        seed=case.seed,
        rollback_ratio=0.05,
        savepoint_rollback_ratio=0.05,
        pk_update_ratio=0.05,
        delete_ratio=0.15,
        long_value_ratio=0.03,
        interleave=6,
        add_column_at=case.transactions_per_cycle + case.transactions_per_cycle // 2,
        added_column_default=added_default,
        max_statements=5,
        key_shift_ratio=0.15,  # `set id = id + 1` and key swaps over several rows
        row_move_ratio=ddl_ratio,
        truncate_ratio=ddl_ratio / 2,
        recreate_ratio=ddl_ratio / 2,
        rebuild_ratio=ddl_ratio / 2,
        one_scn_commit_ratio=one_scn,
        # the undoubled seeds: values that make a SET clause name a column twice, so that
        # two readings tie and the row AS OF the commit decides (docs/parser.md)
        set_lookalike_ratio=1.0 if undoubled else 0.0,
        partitioned_tables=partitioned,
        add_partition_ratio=0.02 if partitioned else 0.0,
        logging_change_ratio=logging_changes,
        database_logging_change_ratio=database_logging,
        visibility_change_ratio=visibility,
        row_archival_ratio=archival,
    )
    _place_in_container(db, container_of(case))
    workload = WorkloadRunner(db, spec)
    # Half the seeds: the database goes on while a snapshot reads: a transaction after each
    # snapshot query, and a MOVE or SHRINK SPACE of some table after one in two (the table
    # being read: its rows at the snapshot SCN must all be read; a table read earlier or
    # later: a re-snapshot). Own random stream.
    midway = random.Random(f"mid-snapshot-{case.seed}")
    if midway.random() < 0.5:
        db.between_snapshot_reads = lambda: _go_on_while_reading(workload, midway)
    workload.run(case.transactions_per_cycle)
    return db, workload, partial_xid_rate > 0


def _go_on_while_reading(workload: WorkloadRunner, rng: random.Random) -> None:
    workload.run(1)
    if rng.random() < 0.5:
        workload.move_rows_of(rng.choice(workload.table_names), rng)


def _run_cycles(
    case: HarnessCase,
    config: OracdcConfig,
    workload: WorkloadRunner,
    cycle: Callable[[FaultHook | None], None],
) -> list[str]:
    """The seed's cycles, each with a workload after it, crashes at random fault points and
    checkpoint losses; returns what was injected, in order."""
    with _source_goes_on(workload):
        return _cycles(case, config, workload, cycle)


@contextmanager
def _source_goes_on(workload: WorkloadRunner) -> Iterator[None]:
    """While a snapshot waits for the source's SCN (after a RESETLOGS, or a checkpoint
    moved aside at the SCN staging reached), the simulated database makes changes, as a
    live one would: each of the wait's sleeps runs a few transactions."""
    saved = incarnation_guard.time
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        assert len(sleeps) < 1_000, "a snapshot waits for ever"
        workload.run(3)

    incarnation_guard.time = SimpleNamespace(  # type: ignore[assignment]
        sleep=sleep, monotonic=time.monotonic
    )
    try:
        yield
    finally:
        incarnation_guard.time = saved


def _cycles(
    case: HarnessCase,
    config: OracdcConfig,
    workload: WorkloadRunner,
    cycle: Callable[[FaultHook | None], None],
) -> list[str]:
    rng = random.Random(case.seed)
    crashes: list[str] = []
    loss_rng = random.Random(f"checkpoint-loss-{case.seed}")
    for number in range(case.cycles + 1):
        point = rng.choice(FAULT_POINTS) if number < case.cycles and rng.random() < 0.7 else None
        _cycle_with_restart(cycle, point, crashes)
        if number < case.cycles and loss_rng.random() < case.checkpoint_loss_ratio:
            _lose_checkpoint(config, crashes)
            point = loss_rng.choice(FAULT_POINTS) if loss_rng.random() < 0.5 else None
            _cycle_with_restart(cycle, point, crashes)
        if number == resetlogs_after(case):
            _restore_to_an_earlier_scn(workload, cycle, crashes)
        if number == pdb_flashback_after(case):
            _flash_the_pdb_back(workload, cycle, crashes)
        if number < case.cycles:
            workload.run(case.transactions_per_cycle)
    # A table whose snapshot Oracle refused (ORA-01466 soon after a DDL of it) waits for a
    # later cycle, and its replica is not built meanwhile: the source goes on, without DDL,
    # past the SCNs such a read is refused for, and cycles run until every table's snapshot
    # is done, as a sync loop's next cycles would.
    workload.db.between_snapshot_reads = None
    workload.spec = replace(workload.spec, **dict.fromkeys(_DDL_RATIOS, 0.0))
    lag = getattr(workload.db, "flashback_ddl_lag_scns", 0)
    for _ in range(_SETTLING_CYCLES):
        if not _waiting_for_a_snapshot(config):
            break
        start = workload.db.current_scn()
        workload.run(2)
        while workload.db.current_scn() < start + lag:  # past the DDL that refused the read
            workload.run(1)
        _cycle_with_restart(cycle, None, crashes)
    return crashes


_SETTLING_CYCLES = 5
# The workload's chances of DDL, off while the last cycles wait for refused snapshots.
_DDL_RATIOS = (
    "truncate_ratio", "recreate_ratio", "rebuild_ratio", "row_move_ratio",
    "add_partition_ratio", "logging_change_ratio", "database_logging_change_ratio",
    "visibility_change_ratio", "row_archival_ratio",
)  # fmt: skip


def _waiting_for_a_snapshot(config: OracdcConfig) -> list[str]:
    """The tables the checkpoint lists as not snapshotted yet (pending or running)."""
    path = config.data_dir / CHECKPOINT_FILE
    checkpoint = Checkpoint.from_json(json.loads(path.read_text(encoding="utf-8")))
    return [name for name, state in checkpoint.tables.items() if state.status != "done"]


def resetlogs_after(case: HarnessCase) -> int | None:
    """The cycle after which the seed's source is restored to an earlier SCN (None: never)."""
    if case.resetlogs_after is not None:
        return None if case.resetlogs_after < 0 else case.resetlogs_after
    draw = random.Random(f"resetlogs-{case.seed}")
    return draw.randrange(case.cycles) if draw.random() < 0.25 else None


def container_of(case: HarnessCase) -> str:
    """Where the seed's tables are (``_place_in_container``)."""
    return random.Random(f"container-{case.seed}").choice(CONTAINERS)


def pdb_flashback_after(case: HarnessCase) -> int | None:
    """The cycle after which a multitenant seed's PDB is flashed back (None: never)."""
    if container_of(case) == "none":
        return None
    draw = random.Random(f"pdb-flashback-{case.seed}")
    return draw.randrange(case.cycles) if draw.random() < 0.25 else None


def _flash_the_pdb_back(
    workload: WorkloadRunner, cycle: Callable[[FaultHook | None], None], crashes: list[str]
) -> None:
    """FLASHBACK PLUGGABLE DATABASE and OPEN RESETLOGS of the PDB: changes made and landed
    after a quiet SCN are undone; the database's SCNs go on. Closing the PDB ends its
    transactions."""
    _go_back(workload, cycle, crashes, workload.db.flashback_pdb, "PDB flashed back", True)


def _restore_to_an_earlier_scn(
    workload: WorkloadRunner, cycle: Callable[[FaultHook | None], None], crashes: list[str]
) -> None:
    """A point-in-time recovery and OPEN RESETLOGS: changes made and landed after a quiet
    SCN are lost, and the changes after it have their SCNs. The snapshot that follows waits
    for the SCN to pass them, while the database goes on (``_source_goes_on``)."""
    _go_back(workload, cycle, crashes, workload.db.open_resetlogs, "RESETLOGS", False)


def _go_back(
    workload: WorkloadRunner,
    cycle: Callable[[FaultHook | None], None],
    crashes: list[str],
    rewind: Callable[[int], object],
    what: str,
    end_transactions: bool,
) -> None:
    """Changes made after a quiet SCN land, then ``rewind`` takes the source back to it
    (skipped when DDL came after it: the simulator cannot rewind the dictionary); the
    workload goes on and a cycle replicates what happened."""
    db = workload.db
    workload.close_all()
    quiet = db.current_scn()
    workload.run(20)
    if end_transactions:
        workload.close_all()
    _cycle_with_restart(cycle, None, crashes)  # the changes to be undone land
    seen = db.current_scn()
    try:
        rewind(quiet)
    except SimUsageError:
        crashes.append(f"no {what} (DDL after SCN {quiet})")
        return
    workload.after_resetlogs()
    crashes.append(f"{what} to SCN {quiet} (changes up to SCN {seen} undone)")
    workload.run(5)
    _cycle_with_restart(cycle, None, crashes)  # every table is snapshotted again


def _cycle_with_restart(
    cycle: Callable[[FaultHook | None], None], point: str | None, crashes: list[str]
) -> None:
    fired: list[str] = []

    def fault(at: str) -> None:
        if at == point and not fired:
            fired.append(at)
            crashes.append(at)
            raise InjectedCrash(at)

    try:
        cycle(fault)
    except InjectedCrash:
        # The process "died": a new one starts from the checkpoint and completes the cycle.
        cycle(None)


def _initial_only_table(case: HarnessCase, workload: WorkloadRunner) -> str | None:
    """The seed's table with snapshot_mode initial_only (None: none). Half the seeds: the
    snapshot's row count (a read fallen short, as when a SHRINK SPACE moves rows while it
    reads) is the only thing that keeps such a replica whole; a streamed table is repaired
    by its mined DDL. Not in the seeds that restore the source: every table there is
    when_needed (an initial_only one stops the stream after a RESETLOGS, by design)."""
    if case.initial_only_table is not None:
        return case.initial_only_table or None
    draw = random.Random(f"initial-only-{case.seed}")
    if draw.random() < 0.5 or _restored(case):
        return None
    return draw.choice(sorted(t.name for t in workload.tables))


def _replica_scn(checkpoint: Checkpoint, table: TableDef) -> int:
    """The SCN to compare ``table`` at: where mining ended, or its later snapshot; an
    ``initial_only`` table's snapshot SCN (it is never streamed)."""
    state = checkpoint.tables.get(table.qualified_name)
    if state is not None and state.initial_only and state.snapshot_scn is not None:
        return state.snapshot_scn
    scn = checkpoint.replica_scn_of(table.qualified_name)
    assert scn is not None
    return scn


def _compare_with_reference(
    db: SimDatabase, staging: MemoryStagingWriter, table: TableDef, scn: int
) -> TableComparison:
    current = db.table(table.owner, table.name)
    replica = consolidate(current, staging.staged_rows(table))
    expected = truth_by_key(current, db.truth(table.owner, table.name, scn))
    found = differences(expected, replica, limit=len(expected) + len(replica) + 1)
    return TableComparison(
        table=table.qualified_name,
        source_rows=len(expected),
        replica_rows=len(replica),
        missing=sum(1 for d in found if d.startswith("missing ")),
        extra=sum(1 for d in found if d.startswith("extra ")),
        changed=sum(1 for d in found if not d.startswith(("missing ", "extra "))),
        examples=tuple(found[:5]),
    )


def _lose_checkpoint(config: OracdcConfig, crashes: list[str]) -> None:
    """Move checkpoint.json aside, as its error message advises for a damaged one. Done right
    after a cycle: keys deleted between the last landing and the re-snapshot would stay in the
    replicas until re-snapshots retire them (docs/extraction.md, "Checkpoint and crashes")."""
    checkpoint = config.data_dir / CHECKPOINT_FILE
    checkpoint.rename(checkpoint.with_name(f"{CHECKPOINT_FILE}.lost{len(crashes)}"))
    crashes.append("checkpoint moved aside")


def _place_in_container(db: SimDatabase, container: str) -> None:
    """``none``: a non-CDB database; ``pdb``: a session in the tables' PDB (per-PDB
    mining); ``root``: a session in CDB$ROOT with ``source.pdb`` (and CONTAINER_DATA), a
    clone PDB's rows to leave out (docs/sources.md, "Multitenant")."""
    if container == "none":
        return
    db.server.cdb = True
    if container == "root":
        db.server.container_name = "CDB$ROOT"
        db.server.container_data_all = True
        db.server.clone_pdb = "CLONEPDB"


def _source(db: SimDatabase) -> Source:
    server = db.server
    in_root = server.cdb and server.container_name == "CDB$ROOT"
    pdb = {"pdb": server.pdb_name} if in_root else {}
    return open_source({"kind": "sim", "database": db, **pdb})


def _restored(case: HarnessCase) -> bool:
    return resetlogs_after(case) is not None or pdb_flashback_after(case) is not None


def _replica_schema(case: HarnessCase) -> str:
    return f"harness_{case.seed}"


def _project(
    work_dir: Path, case: HarnessCase, *, small_windows: bool = False, initial_only: str | None
) -> OracdcConfig:
    """The seed's configuration in a dbt project of its own (the demo's, with its packages)."""
    prepare_work_dir(work_dir)
    if case.tables != 5:
        shutil.rmtree(work_dir / "models" / "views", ignore_errors=True)
    os.environ["ORACDC_DBT_SCHEMA"] = _replica_schema(case)
    config = _config(work_dir, case, small_windows=small_windows, initial_only=initial_only)
    deps = run_dbt(["deps"], project_dir=work_dir, profiles_dir=work_dir)
    assert deps.success, deps.exception
    return config


def _config(
    work_dir: Path, case: HarnessCase, *, small_windows: bool, initial_only: str | None
) -> OracdcConfig:
    return config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["SIM.*"],
            "data_dir": "data",
            "staging_schema": f"harness_{case.seed}_staging",
            "snapshot_batch_rows": 40,
            "memory_budget_mb": 1,
            # a source (or PDB) restored to an earlier SCN is snapshotted again by itself
            **({"snapshot_mode": "when_needed"} if _restored(case) else {}),
            **({"snapshot_modes": {f"SIM.{initial_only}": "initial_only"}} if initial_only else {}),
            "dbt": {"project_dir": "."},
            **(
                {"mining": {"window_scns": 100, "min_window_scns": 100, "max_window_scns": 200}}
                if small_windows
                else {}
            ),
        },
        base_dir=work_dir,
    )
